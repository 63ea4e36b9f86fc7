import { readSync } from 'node:fs';

/** The complete lines of a file, with where each starts and its length in bytes; a last line without its newline is left out. */
export function* readLines(fd: number, size: number): Generator<{ offset: number; length: number; text: string }> {
  const chunk = Buffer.alloc(1 << 20);
  let pending: Buffer[] = [];
  let pendingStart = 0;
  let position = 0;
  while (position < size) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
    if (n === 0) break;
    let start = 0;
    for (let i = 0; i < n; i++) {
      if (chunk[i] !== 0x0a) continue;
      const piece = chunk.subarray(start, i + 1);
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      yield { offset: pendingStart, length: line.length, text: line.toString('utf8') };
      pending = [];
      start = i + 1;
      pendingStart = position + start;
    }
    if (start < n) pending.push(Buffer.from(chunk.subarray(start, n)));
    position += n;
  }
  // A last line without its newline was cut short by a kill: it is not a record.
}
