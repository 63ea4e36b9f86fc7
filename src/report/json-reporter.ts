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
      // stdout keeps what it is given until it is written: a copy of its own.
      if (options.toStdout) sinks.push((bytes) => process.stdout.write(Buffer.from(bytes)));
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

/**
 * Writes the document in pieces of about 1 MB: the head, then each result's
 * bytes copied as the run log holds them into one buffer, so that a result
 * costs a copy and no object of its own. `write` must be done with the bytes
 * it is given when it returns: the buffer is filled again.
 */
export function writeDocument(outcome: RunOutcome, write: (bytes: Uint8Array) => void): void {
  const head = JSON.stringify(outcome.head, null, 2);
  // The head's closing brace is replaced by the candidates array, written last.
  write(Buffer.from(`${head.slice(0, head.lastIndexOf('}')).trimEnd()},\n  "candidates": [`, 'utf8'));
  const out = new Output(write);
  let first = true;
  outcome.resultRecords((bytes, start, end) => {
    out.add(first ? FIRST_ITEM : NEXT_ITEM);
    out.copy(bytes, start, end);
    first = false;
  });
  out.add(first ? EMPTY_END : LIST_END);
  out.flush();
}

const FIRST_ITEM = Buffer.from('\n    ');
const NEXT_ITEM = Buffer.from(',\n    ');
const EMPTY_END = Buffer.from(']\n}\n');
const LIST_END = Buffer.from('\n  ]\n}\n');

/** Bytes gathered into one buffer and written when it is full. */
class Output {
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;

  constructor(private readonly write: (bytes: Uint8Array) => void) {}

  add(bytes: Uint8Array): void {
    this.copy(bytes, 0, bytes.length);
  }

  copy(bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (this.used + length > this.buffer.length) {
      this.flush();
      if (length > this.buffer.length) {
        this.write(bytes.subarray(start, end));
        return;
      }
    }
    // A plain view: a Buffer's subarray costs more to make than the copy of a short record.
    this.buffer.set(start === 0 && end === bytes.length ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset + start, length), this.used);
    this.used += length;
  }

  flush(): void {
    if (this.used === 0) return;
    this.write(this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

export class ScorecardWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot write the scorecard to ${file}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
