/**
 * The framing of messages between the supervisor and a sandbox worker, used
 * by both ends (worker-link.ts, worker-io.ts): one JSON document per line.
 * JSON text never holds a raw newline (JSON.stringify escapes it), and a
 * newline byte never occurs inside a multi-byte UTF-8 character, so lines
 * split safely on bytes.
 */
const NEWLINE = 0x0a;

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
