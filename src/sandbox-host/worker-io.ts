import { readSync, writeSync } from 'node:fs';
import { jsonLine, LineSplitter } from './json-lines.js';
import { WORKER_REPLY_FD } from './worker-link.js';

const REQUEST_FD = 0;
const READ_SIZE = 1 << 16;

/**
 * The worker's end of its link to the supervisor (see worker-link.ts): one
 * JSON document per line in on stdin and out on fd 3, read and written with
 * blocking calls. A worker does one request at a time and has nothing else
 * to do while it waits for the next, so blocking costs nothing, and it needs
 * neither Node's IPC channel nor its stream modules, which a worker (started
 * without Node's snapshot) would otherwise compile at every start.
 */
export class WorkerIo {
  private readonly buffer = Buffer.allocUnsafe(READ_SIZE);
  /** Whole requests read and not yet returned. */
  private readonly lines: string[] = [];
  private readonly splitter = new LineSplitter();
  private ended = false;

  /** Whether a whole request is already read, so that `next` will not wait. */
  hasRequest(): boolean {
    return this.lines.length > 0;
  }

  /** The next request's text, waiting for it if need be; null once the supervisor has closed the link. */
  next(): string | null {
    while (this.lines.length === 0 && !this.ended) {
      const read = this.read();
      if (read === 0) this.ended = true;
      else for (const line of this.splitter.push(this.buffer.subarray(0, read))) this.lines.push(line);
    }
    return this.lines.shift() ?? null;
  }

  /** Writes one message; false if the supervisor is gone. */
  send(message: unknown): boolean {
    return this.sendBytes(Buffer.from(jsonLine(message), 'utf8'));
  }

  /** Writes messages framed already (json-lines.ts), in one write; false if the supervisor is gone. */
  sendBytes(bytes: Buffer): boolean {
    try {
      for (let written = 0; written < bytes.length;) written += writeSync(WORKER_REPLY_FD, bytes, written);
      return true;
    } catch (e) {
      if (isGone(e)) return false;
      throw e;
    }
  }

  private read(): number {
    try {
      return readSync(REQUEST_FD, this.buffer, 0, READ_SIZE, null);
    } catch (e) {
      // The supervisor died: the same as closing the link.
      if (isGone(e)) return 0;
      throw e;
    }
  }
}

function isGone(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET' || code === 'EOF';
}
