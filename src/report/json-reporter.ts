import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeText } from '../write-text.js';
import type { Reporter, RunOutcome } from './reporter.js';

export interface JsonReporterOptions {
  /** Where to write the document. */
  outFile: string;
  /** Also print the document on stdout (the `--json` flag). */
  toStdout: boolean;
  /** Where the "written to" line goes. */
  log: (line: string) => void;
}

/**
 * The machine-readable scorecard: one JSON document per run. The head is
 * pretty-printed; candidates follow, one per line, streamed from the run log
 * so a run of a million tests is never held in memory as one string.
 */
export function jsonReporter(options: JsonReporterOptions): Reporter {
  return {
    onRunEnd(outcome: RunOutcome) {
      let fd: number;
      try {
        mkdirSync(dirname(options.outFile), { recursive: true });
        fd = openSync(options.outFile, 'w');
      } catch (e) {
        throw new ScorecardWriteError(options.outFile, e);
      }
      const sinks: Array<(text: string) => void> = [(text) => writeAll(fd, text)];
      if (options.toStdout) sinks.push((text) => process.stdout.write(text));
      try {
        writeDocument(outcome, (text) => {
          for (const sink of sinks) sink(text);
        });
      } catch (e) {
        throw new ScorecardWriteError(options.outFile, e);
      } finally {
        closeSync(fd);
      }
      options.log(`Scorecard written to ${options.outFile}`);
    },
  };
}

/** Writes the document in pieces of about 1 MB. */
export function writeDocument(outcome: RunOutcome, write: (text: string) => void): void {
  const head = JSON.stringify(outcome.head, null, 2);
  // The head's closing brace is replaced by the candidates array, written last.
  let buffer = `${head.slice(0, head.lastIndexOf('}')).trimEnd()},\n  "candidates": [`;
  let first = true;
  for (const result of outcome.resultTexts()) {
    buffer += `${first ? '' : ','}\n    ${result}`;
    first = false;
    if (buffer.length >= 1 << 20) {
      write(buffer);
      buffer = '';
    }
  }
  buffer += first ? ']\n}\n' : '\n  ]\n}\n';
  write(buffer);
}

function writeAll(fd: number, text: string): void {
  writeText(fd, text, null);
}

export class ScorecardWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot write the scorecard to ${file}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
