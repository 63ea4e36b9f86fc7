import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { FrameSplitter } from './json-lines.js';

/**
 * The worker's file descriptor for messages to the supervisor. Its stdout
 * (fd 1) is left alone, so that nothing a library prints can be read as a
 * message; its stdin (fd 0) carries messages to it.
 */
export const WORKER_REPLY_FD = 3;

/**
 * The stdio of a worker process: requests in on stdin, stdout ignored,
 * stderr kept for crash reports, replies on fd 3, and its progress cell on
 * fd 4 (progress-cell.ts).
 */
export function workerStdio(progressFd: number): ['pipe', 'ignore', 'pipe', 'pipe', number] {
  return ['pipe', 'ignore', 'pipe', 'pipe', progressFd];
}

/**
 * The supervisor's end of the pipes to one sandbox worker: one JSON document
 * per line each way, a worker's lines followed by a payload where they say
 * so (json-lines.ts).
 *
 * Node's IPC channel would do the same job, but a process that has one
 * loads Node's networking and stream modules at start-up, and a worker
 * starts without Node's snapshot, so it would compile them from source at
 * every start (docs/PERFORMANCE.md). The worker reads and
 * writes its ends with plain blocking calls instead (worker-io.ts).
 */
export class WorkerLink {
  private readonly input: Socket;
  private readonly replies: Socket;
  private readonly frames = new FrameSplitter();
  private listener: (message: unknown, payload: Buffer | null) => void = () => undefined;

  constructor(child: ChildProcess) {
    // Pipes to a child process are sockets (the typings only say streams).
    const input = child.stdin as Socket | null;
    const replies = child.stdio[WORKER_REPLY_FD] as Socket | null | undefined;
    if (input === null || replies === null || replies === undefined) {
      throw new Error('a sandbox worker must be started with workerStdio()');
    }
    this.input = input;
    this.replies = replies;
    // Writing to a worker that just died fails with EPIPE; its exit reports that.
    input.on('error', () => undefined);
    replies.on('data', (chunk: Buffer) => {
      for (const frame of this.frames.push(chunk)) {
        // A line that is not JSON is not a message evalrun's worker wrote; nothing to do with it.
        if (frame.message !== undefined) this.listener(frame.message, frame.payload);
      }
    });
  }

  /** Whether messages can still be sent: the worker's input is not closed. */
  get open(): boolean {
    return this.input.writable && !this.input.destroyed;
  }

  /** Where every message from the worker goes, with its payload (json-lines.ts); replaces the previous listener. */
  onMessage(listener: (message: unknown, payload: Buffer | null) => void): void {
    this.listener = listener;
  }

  /**
   * Sends one message, already encoded as its line (workers/messages.ts
   * `toWorkerLine`, which throws if it cannot be encoded, failing only that
   * message); `done` is called with an error if the pipe broke.
   */
  sendLine(line: string, done: (error: Error | null | undefined) => void): void {
    this.input.write(line, done);
  }

  /**
   * Closes the worker's input now, not once this process's event loop next
   * turns (which a run busy writing its scorecards would delay by tens of
   * milliseconds): the worker exits once it has answered what it already
   * read. Messages not yet handed to the pipe are dropped.
   */
  close(): void {
    this.input.destroy();
  }

  /** Whether this link keeps the supervisor's event loop alive. */
  hold(held: boolean): void {
    for (const socket of [this.input, this.replies]) {
      if (held) socket.ref();
      else socket.unref();
    }
  }
}
