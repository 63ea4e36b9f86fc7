import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeBytes } from '../write-text.js';
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
      const sinks: Array<(bytes: Uint8Array) => void> = [(bytes) => writeBytes(fd, bytes, null)];
      if (options.toStdout) sinks.push((bytes) => process.stdout.write(bytes));
      try {
        writeDocument(outcome, (bytes) => {
          for (const sink of sinks) sink(bytes);
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

/** Writes the document in pieces of about 1 MB; each result's bytes are copied as the run log holds them. */
export function writeDocument(outcome: RunOutcome, write: (bytes: Uint8Array) => void): void {
  const head = JSON.stringify(outcome.head, null, 2);
  // The head's closing brace is replaced by the candidates array, written last.
  let pieces: Uint8Array[] = [Buffer.from(`${head.slice(0, head.lastIndexOf('}')).trimEnd()},\n  "candidates": [`, 'utf8')];
  let size = pieces[0]!.length;
  let first = true;
  for (const result of outcome.resultRecords()) {
    const before = first ? FIRST_ITEM : NEXT_ITEM;
    pieces.push(before, result);
    size += before.length + result.length;
    first = false;
    if (size >= 1 << 20) {
      write(Buffer.concat(pieces, size));
      pieces = [];
      size = 0;
    }
  }
  pieces.push(first ? EMPTY_END : LIST_END);
  write(Buffer.concat(pieces));
}

const FIRST_ITEM = Buffer.from('\n    ');
const NEXT_ITEM = Buffer.from(',\n    ');
const EMPTY_END = Buffer.from(']\n}\n');
const LIST_END = Buffer.from('\n  ]\n}\n');

export class ScorecardWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot write the scorecard to ${file}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
