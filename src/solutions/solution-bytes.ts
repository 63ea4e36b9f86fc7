import { closeSync, openSync, readSync } from 'node:fs';

/** How much of a solution file one read takes in: many samples' lines. */
const WINDOW_BYTES = 1 << 16;

/**
 * Byte ranges of solution files, for the worker that grades their
 * submissions (`SubmittedText`). A batch's samples usually lie close
 * together in one file (a JSON Lines file per model), so a window of the
 * file is read once and each range inside it is cut from it, rather than
 * a file opened and read per candidate. `forget` drops the window (the
 * worker does at the end of each batch), so nothing read is older than the
 * batch it serves.
 */
export class SolutionBytes {
  private window: { file: string; start: number; bytes: Buffer } | null = null;

  /** Bytes [start, start + length) of `file`: fewer when the file ends first. Throws what reading the file throws. */
  read(file: string, start: number, length: number): Buffer {
    let window = this.window;
    if (window === null || window.file !== file || start < window.start || start + length > window.start + window.bytes.length) {
      window = { file, start, bytes: readAt(file, start, length, Math.max(length, WINDOW_BYTES)) };
      this.window = window;
    }
    const from = start - window.start;
    return window.bytes.subarray(from, Math.min(from + length, window.bytes.length));
  }

  forget(): void {
    this.window = null;
  }
}

/** At least `length` bytes from `start` (fewer at the end of the file), and up to `upTo` if one read gives them. */
function readAt(file: string, start: number, length: number, upTo: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const bytes = Buffer.allocUnsafe(upTo);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, bytes, read, upTo - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * A 53-bit digest of bytes [start, end), as a whole number (`isDigest`):
 * two FNV-1a lanes with different primes and starting values, all of the
 * first and the high 21 bits of the second. It tells a solution file whose
 * bytes changed from the same file; it is no defence against bytes chosen
 * to collide, which only someone who may write the solutions folder could
 * choose, and who decides what is graded anyway. A cryptographic hash cost
 * more than reading the bytes (an object per call). A number rather than
 * text: the plan keeps one per candidate and every batch carries one, and
 * the supervisor stores, sends and checks a number without writing it out
 * or reading it back (JSON holds every whole number below 2^53 exactly).
 */
export function digestOf(bytes: Uint8Array, start: number, end: number): number {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 2 ** 21 + (b >>> 11);
}

/** Whether `value` is a digest as `digestOf` makes one: a whole number from 0 below 2^53. */
export function isDigest(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
