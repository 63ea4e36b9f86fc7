import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Reporter } from './reporter.js';
import type { Scorecard } from './scorecard.js';

export interface JsonReporterOptions {
  /** Where to write; default `results/<UTC timestamp>.json` under the working directory. */
  outFile?: string;
  /** Also print the document on stdout (the `--json` flag). */
  toStdout: boolean;
  /** Where the "written to" line goes. */
  log: (line: string) => void;
}

export function timestampedResultPath(now: Date, dir = 'results'): string {
  return join(dir, `${now.toISOString().replace(/:/g, '-')}.json`);
}

/** The machine-readable scorecard: one JSON document per run. */
export function jsonReporter(options: JsonReporterOptions): Reporter & { writtenTo(): string | null } {
  let written: string | null = null;
  return {
    async onRunEnd(scorecard: Scorecard) {
      const text = `${JSON.stringify(scorecard, null, 2)}\n`;
      const file = options.outFile ?? timestampedResultPath(new Date(scorecard.started_at));
      try {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, text);
        written = file;
      } catch (e) {
        throw new ScorecardWriteError(file, e);
      } finally {
        if (options.toStdout) process.stdout.write(text);
      }
      options.log(`Scorecard written to ${file}`);
    },
    writtenTo: () => written,
  };
}

export class ScorecardWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot write the scorecard to ${file}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
