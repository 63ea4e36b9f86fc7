import { writeSync } from 'node:fs';

/**
 * Writes all of `text` at `position` and returns its length in bytes. The
 * string goes to the file as it is, encoded outside the JavaScript heap;
 * only a short write (rare on a regular file) makes a buffer of the rest.
 */
export function writeText(fd: number, text: string, position: number | null): number {
  const length = Buffer.byteLength(text, 'utf8');
  let written = writeSync(fd, text, position, 'utf8');
  if (written < length) {
    const bytes = Buffer.from(text, 'utf8');
    while (written < length) written += writeSync(fd, bytes, written, length - written, position === null ? null : position + written);
  }
  return length;
}

/** Writes all of `bytes` at `position` (or at the file's offset, when null). */
export function writeBytes(fd: number, bytes: Uint8Array, position: number | null): void {
  for (let written = 0; written < bytes.length;) {
    written += writeSync(fd, bytes, written, bytes.length - written, position === null ? null : position + written);
  }
}
