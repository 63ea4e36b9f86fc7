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
  const out = new Output(write);
  writeHead(outcome.head, out);
  // The candidates array is the head's last member.
  out.add(CANDIDATES);
  let first = true;
  outcome.resultRecords((bytes, start, end) => {
    out.add(first ? FIRST_ITEM : NEXT_ITEM);
    out.copy(bytes, start, end);
    first = false;
  });
  out.add(first ? EMPTY_END : LIST_END);
  out.flush();
}

/**
 * The head as JSON.stringify(head, null, 2) writes it, less its closing
 * brace, member by member and a long array a slice at a time: as one text,
 * a large self-check's head (a report per problem) was a string of
 * megabytes and a buffer as large, made at the end of the run, where they
 * set the supervisor's peak memory. Each piece is JSON.stringify of an
 * object that holds it as the head does (the member, or a slice of the
 * array as a member), so that it is laid out at the head's depth, less
 * that object's braces.
 */
function writeHead(head: object, out: Output): void {
  let first = true;
  for (const [name, value] of Object.entries(head) as Array<[string, unknown]>) {
    if (Array.isArray(value) && value.length > HEAD_SLICE) {
      out.addText(`${first ? '{\n' : ',\n'}  ${JSON.stringify(name)}: [`);
      for (let from = 0; from < value.length; from += HEAD_SLICE) {
        const text = JSON.stringify({ s: value.slice(from, from + HEAD_SLICE) }, null, 2);
        out.addText(`${from === 0 ? '\n' : ',\n'}${text.slice(SLICE_OPEN.length, -SLICE_CLOSE.length)}`);
      }
      out.addText('\n  ]');
    } else {
      // "{\n  <name>: <value>\n}", or "{}" for a value JSON leaves out.
      const text = JSON.stringify({ [name]: value }, null, 2);
      if (text === '{}') continue;
      out.addText(`${first ? '{' : ','}${text.slice(1, -2)}`);
    }
    first = false;
  }
  if (first) out.addText('{');
}

/** Elements of a long array of the head written with one JSON.stringify. */
const HEAD_SLICE = 256;
/** What a slice's elements are wrapped in (as a member `s` of an object). */
const SLICE_OPEN = '{\n  "s": [\n';
const SLICE_CLOSE = '\n  ]\n}';
const CANDIDATES = Buffer.from(',\n  "candidates": [');

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

  /** Text as UTF-8, encoded straight into the buffer when it fits (three bytes per UTF-16 code unit at most). */
  addText(text: string): void {
    if (this.used + 3 * text.length > this.buffer.length) {
      this.flush();
      if (3 * text.length > this.buffer.length) {
        this.add(Buffer.from(text, 'utf8'));
        return;
      }
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
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
