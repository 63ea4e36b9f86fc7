/**
 * A worker's progress cell: a few bytes in a file that only the worker
 * writes and only its supervisor reads, saying what the worker is doing
 * (which item of which batch, how many tests it has, which test it runs
 * alone), and since when. The worker answers items in batches of
 * messages, so the supervisor hears of an item only some time after it is
 * done; the cell is how it still knows, when the worker dies or stops
 * answering, which item was running (the one at fault) and whether a worker
 * that has said nothing for a while is busy or stuck. Writing it costs the worker one positional
 * write per change and the supervisor nothing until it looks.
 *
 * The file is created and unlinked by the supervisor before the worker
 * starts, and reaches the worker as an inherited descriptor
 * (PROGRESS_CELL_FD): nothing else can open it.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The worker's file descriptor for its cell. */
export const PROGRESS_CELL_FD = 4;

/** What the worker is doing, and since when (`at`, on `monotonicMs`'s clock, which every process of the machine shares). */
export interface Progress {
  at: number;
  batch: number;
  item: number;
  /** Tests of the item, once known (0 before). */
  tests: number;
  /** The test an item run one test at a time is running, or -1. */
  test: number;
}

/** A float64 time, then four int32 fields. */
const BYTES = 8 + 4 * 4;

/** Milliseconds on the system's monotonic clock: comparable between the worker and its supervisor, unmoved by changes of the wall clock. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The worker's side: writes the cell in place. */
export class ProgressWriter {
  private readonly bytes = Buffer.alloc(BYTES);

  constructor(private readonly fd: number = PROGRESS_CELL_FD) {}

  set(batch: number, item: number, tests: number, test: number): void {
    this.bytes.writeDoubleLE(monotonicMs(), 0);
    [batch, item, tests, test].forEach((value, i) => this.bytes.writeInt32LE(value | 0, 8 + i * 4));
    try {
      writeSync(this.fd, this.bytes, 0, BYTES, 0);
    } catch {
      // A worker started without a cell (a test running the program by hand) only loses what the cell is for.
    }
  }
}

let cells = 0;

/** The supervisor's side: creates the cell for a worker about to start, and reads it. */
export class ProgressCell {
  readonly fd: number;
  private closed = false;
  private readonly bytes = Buffer.alloc(BYTES);

  constructor() {
    const file = join(tmpdir(), `evalrun-progress-${process.pid}-${++cells}`);
    this.fd = openSync(file, 'w+', 0o600);
    unlinkSync(file);
  }

  /** What the worker last wrote, or null before its first write. */
  read(): Progress | null {
    if (this.closed) return null;
    const bytes = this.bytes;
    let read: number;
    try {
      read = readSync(this.fd, bytes, 0, BYTES, 0);
    } catch {
      return null;
    }
    if (read < BYTES) return null;
    const field = (i: number): number => bytes.readInt32LE(8 + i * 4);
    return { at: bytes.readDoubleLE(0), batch: field(0), item: field(1), tests: field(2), test: field(3) };
  }

  close(): void {
    if (!this.closed) closeSync(this.fd);
    this.closed = true;
  }
}
