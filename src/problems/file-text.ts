/**
 * Reading a problem file's bytes and turning them into text, with limits:
 * a file is read only when it is a regular file no larger than the size
 * limit, and its bytes must be UTF-8 (a BOM is dropped) or UTF-16 (decoded,
 * with a warning). Anything else is one message saying what and where.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** Files above this are rejected unread: far larger than any real suite's file. */
export const MAX_PROBLEM_FILE_BYTES = 32 * 1024 * 1024;

const MIB = 1024 * 1024;

export type FileText = { ok: true; text: string; warnings: string[] } | { ok: false; message: string };

/** Reads `file` as text; `message` and `warnings` are one line each, without the file name. */
export function readProblemText(file: string, maxBytes = MAX_PROBLEM_FILE_BYTES): FileText {
  const read = readBounded(file, maxBytes);
  if (!read.ok) return read;
  return decodeProblemBytes(read.bytes);
}

type Bytes = { ok: true; bytes: Buffer } | { ok: false; message: string };

/**
 * Synchronous on purpose: files are read one at a time, and three thread-pool
 * round trips per file (open, read, close) left the main thread idle for
 * much of the loading phase. O_NONBLOCK keeps a FIFO from blocking the open.
 */
function readBounded(file: string, maxBytes: number): Bytes {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, message: `cannot read file: ${osReason(error)}` };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { ok: false, message: `cannot read file: not a regular file` };
    if (info.size > maxBytes) return { ok: false, message: tooLarge(info.size, maxBytes) };
    // The size can change between stat and read; the limit holds for what is actually read.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // What stat said is left, plus a byte that shows whether the file
      // grew; a file that grew, or one that reports no size (/proc), is
      // read on in small steps. A thousand small files then cost a thousand
      // small buffers.
      const expected = info.size - total;
      const chunk = Buffer.allocUnsafe(Math.min(expected > 0 ? expected : 4096, MIB) + 1);
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return { ok: false, message: tooLarge(total, maxBytes, true) };
      chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
      // A file with a size reads short only at its end (/proc files, which
      // report none, may read short anywhere).
      if (info.size > 0 && bytesRead < chunk.length) break;
    }
    return { ok: true, bytes: chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, total) };
  } catch (error) {
    return { ok: false, message: `cannot read file: ${osReason(error)}` };
  } finally {
    try {
      closeSync(fd);
    } catch {
      // nothing useful to do: the bytes were read or the error reported
    }
  }
}

function tooLarge(size: number, maxBytes: number, atLeast = false): string {
  return `${atLeast ? 'at least ' : ''}${formatMiB(size)} is larger than the ${formatMiB(maxBytes)} limit for a problem file`;
}

/** `104.2 MB`, `32 MB`: binary megabytes, as --memory counts them; bytes below one. */
export function formatMiB(bytes: number): string {
  if (bytes < MIB) return `${bytes} bytes`;
  const mib = bytes / MIB;
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MB`;
}

/**
 * Bytes to text. JSON is UTF-8 (RFC 8259), so that is the rule; UTF-16 is
 * decoded anyway because Windows editors write it, and said so in a warning.
 * Without a BOM, UTF-16 is recognised the RFC 4627 way: a JSON text starts
 * with an ASCII character, so its first two bytes are `xx 00` or `00 xx`.
 */
export function decodeProblemBytes(bytes: Uint8Array): FileText {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return decodeUtf8(bytes.subarray(3), 3);
  if (startsWith(bytes, [0x00, 0x00, 0xfe, 0xff]) || startsWith(bytes, [0xff, 0xfe, 0x00, 0x00])) {
    return { ok: false, message: 'UTF-32 is not supported: save the file as UTF-8' };
  }
  if (startsWith(bytes, [0xff, 0xfe])) return decodeUtf16(bytes.subarray(2), 'utf-16le', 'UTF-16LE');
  if (startsWith(bytes, [0xfe, 0xff])) return decodeUtf16(bytes.subarray(2), 'utf-16be', 'UTF-16BE');
  if (bytes.length >= 4 && bytes[0] !== 0 && bytes[1] === 0 && bytes[2] !== 0 && bytes[3] === 0) {
    return decodeUtf16(bytes, 'utf-16le', 'UTF-16LE (no byte-order mark)');
  }
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0 && bytes[3] !== 0) {
    return decodeUtf16(bytes, 'utf-16be', 'UTF-16BE (no byte-order mark)');
  }
  return decodeUtf8(bytes, 0);
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.length <= bytes.length && prefix.every((byte, i) => bytes[i] === byte);
}

/** `base` is where `bytes` starts in the file, so offsets name the file's own bytes. */
function decodeUtf8(bytes: Uint8Array, base: number): FileText {
  if (isUtf8(bytes)) return { ok: true, text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'), warnings: [] };
  const at = firstInvalidUtf8(bytes) ?? 0;
  const byte = (bytes[at] ?? 0).toString(16).toUpperCase().padStart(2, '0');
  return { ok: false, message: `not valid UTF-8 (byte 0x${byte} at offset ${base + at}, line ${lineAt(bytes, at)})` };
}

function decodeUtf16(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be', name: string): FileText {
  try {
    const text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
    return { ok: true, text, warnings: [`decoded as ${name}: problem files should be UTF-8`] };
  } catch {
    return { ok: false, message: `not valid ${name.replace(/ \(.*$/, '')} (unpaired surrogate or odd byte count)` };
  }
}

/** 1-based line of a byte offset, counting `\n` bytes (which never occur inside a UTF-8 sequence). */
function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/**
 * Offset of the first byte that starts an ill-formed UTF-8 sequence (per
 * the Unicode table of well-formed sequences: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or null when every byte is fine.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number | null {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0; // overlong
      if (b === 0xed) high = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90; // overlong
      if (b === 0xf4) high = 0x8f; // above U+10FFFF
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      const min = k === 1 ? low : 0x80;
      const max = k === 1 ? high : 0xbf;
      if (next === undefined || next < min || next > max) return i;
    }
    i += length;
  }
  return null;
}

/** The OS's reason without the `, open '<path>'` tail Node adds (the path is already named). */
export function osReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { syscall, path } = error as NodeJS.ErrnoException;
  const tail = syscall !== undefined && path !== undefined ? `, ${syscall} '${path}'` : '';
  return tail !== '' && error.message.endsWith(tail) ? error.message.slice(0, -tail.length) : error.message;
}
