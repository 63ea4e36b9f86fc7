/**
 * The framing of messages between the supervisor and a sandbox worker, used
 * by both ends (worker-link.ts, worker-io.ts): one JSON document per line,
 * and after a line that says so, its payload of raw bytes.
 *
 * JSON text never holds a raw newline (JSON.stringify escapes it), and a
 * newline byte never occurs inside a multi-byte UTF-8 character, so lines
 * split safely on bytes. A payload carries text that is already JSON (a
 * worker's record texts): inside a JSON string it would be escaped by one
 * end and unescaped by the other, work that grows with every candidate, so
 * it travels as the bytes it is and the supervisor passes them on as they
 * came.
 */
const NEWLINE = 0x0a;

/** The field of a message that says how many payload bytes follow its line. */
export const PAYLOAD_FIELD = 'payloadBytes';

/** One message as a line of text. Throws if the message cannot be encoded as JSON. */
export function jsonLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}

/** Cuts bytes as they arrive into whole lines, keeping the start of a line whose end has not arrived. */
export class LineSplitter {
  private partial: Buffer[] = [];

  /** The lines that `bytes` completes, in order. `bytes` may be reused by the caller afterwards. */
  push(bytes: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
      const piece = bytes.subarray(start, end);
      lines.push(this.partial.length === 0 ? piece.toString('utf8') : Buffer.concat([...this.partial, piece]).toString('utf8'));
      this.partial = [];
      start = end + 1;
    }
    if (start < bytes.length) this.partial.push(Buffer.from(bytes.subarray(start)));
    return lines;
  }
}

/** A message as it arrived: its parsed line (undefined when the line is not JSON), and its payload. */
export interface Frame {
  message: unknown;
  /** The bytes that followed the line, when the message named a count in PAYLOAD_FIELD; else null. */
  payload: Buffer | null;
}

/**
 * Cuts bytes as they arrive into frames: a line, then as many raw bytes as
 * its PAYLOAD_FIELD says. A count that is not a whole number counts as no
 * payload; the message's reader (messages.ts) then refuses the message.
 * A payload that arrived in one piece is a view of that piece, not a copy,
 * and the start of a line or payload is kept as a view until its end
 * arrives: the caller must not change bytes once pushed (a socket's chunks
 * are new each time).
 */
export class FrameSplitter {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The frame whose payload is being collected, and how many bytes it still lacks. */
  private open: { message: unknown; need: number } | null = null;

  /** The frames that `bytes` completes, in order. */
  push(bytes: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (start < bytes.length) {
      if (this.open !== null) {
        const take = Math.min(this.open.need - this.partialBytes, bytes.length - start);
        if (this.partialBytes === 0 && take === this.open.need) {
          frames.push({ message: this.open.message, payload: bytes.subarray(start, start + take) });
          this.open = null;
          start += take;
          continue;
        }
        this.keep(bytes.subarray(start, start + take));
        start += take;
        if (this.partialBytes < this.open.need) break;
        frames.push({ message: this.open.message, payload: this.takeKept() });
        this.open = null;
        continue;
      }
      const end = bytes.indexOf(NEWLINE, start);
      if (end < 0) {
        this.keep(bytes.subarray(start));
        break;
      }
      const piece = bytes.subarray(start, end);
      const line = this.partialBytes === 0 ? piece.toString('utf8') : Buffer.concat([...this.partial, piece]).toString('utf8');
      this.partial = [];
      this.partialBytes = 0;
      start = end + 1;
      const message = parse(line);
      const need = payloadBytes(message);
      if (need === null) frames.push({ message, payload: null });
      else if (need === 0) frames.push({ message, payload: Buffer.alloc(0) });
      else this.open = { message, need };
    }
    return frames;
  }

  /** Keeps a piece of a line or payload that goes on in the next bytes: a view, as pushed bytes are not changed. */
  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.partial.push(bytes);
    this.partialBytes += bytes.length;
  }

  private takeKept(): Buffer {
    const kept = this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial, this.partialBytes);
    this.partial = [];
    this.partialBytes = 0;
    return kept;
  }
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** The payload's length a message names, or null when it names none (or nothing usable). */
function payloadBytes(message: unknown): number | null {
  if (typeof message !== 'object' || message === null) return null;
  const count = (message as Record<string, unknown>)[PAYLOAD_FIELD];
  return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : null;
}
