import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import type { FromWorker, GradeJob, GradeReply, ToWorker } from './grade-protocol.js';

/** The worker process died while it held the job (for example a V8 fatal out-of-memory abort). */
export class SandboxCrashed extends Error {
  constructor(readonly detail: string) {
    super(`sandbox process died: ${detail}`);
  }
}

/** The job outlived its wall-clock ceiling; the worker was killed. */
export class SandboxUnresponsive extends Error {
  constructor(readonly ceilingMs: number) {
    super(`sandbox stopped responding (no answer within ${ceilingMs} ms); it was killed`);
  }
}

export interface PoolOptions {
  size: number;
  /** Overrides the per-job ceiling computed from the job's limits. */
  ceilingMs?: (job: GradeJob) => number;
}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  busy: boolean;
  dead: boolean;
}

/**
 * Ceiling for one candidate: every test may use its whole time limit twice
 * (a timed-out batch is replayed from the interrupted test), plus start-up.
 * It only matters when the sandbox machinery itself stops answering.
 */
export function defaultCeilingMs(job: GradeJob): number {
  return (job.tests.length + 1) * (job.limits.timeoutMs + 250) * 2 + 10_000;
}

const WORKER_SCRIPT = (): string => join(packageRoot(), 'dist', 'src', 'sandbox-host', 'worker-process.js');

/**
 * A fixed number of sandbox worker processes. Each runs one candidate at a
 * time; a worker that dies or hangs is replaced, and only the job it held
 * fails.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<(slot: Slot) => void> = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {}

  /**
   * Starts every worker now instead of at the first jobs. A worker takes a
   * few hundred milliseconds to start (Node without its snapshot, then
   * isolated-vm and the first isolate); calling this before loading the
   * problems lets that happen while they load.
   */
  warm(): void {
    if (this.closed) return;
    this.slots.splice(0, this.slots.length, ...this.slots.filter((s) => !s.dead || s.busy));
    while (this.slots.length < this.options.size) this.slots.push(this.spawn());
  }

  async grade(job: GradeJob): Promise<GradeReply> {
    const slot = await this.acquire();
    try {
      return await this.send(slot, job);
    } finally {
      this.release(slot);
    }
  }

  /** Stops every worker. Jobs still running fail with SandboxCrashed. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            if (slot.dead || slot.child.exitCode !== null) return resolve();
            slot.child.once('exit', () => resolve());
            if (slot.child.connected) slot.child.disconnect();
            setTimeout(() => slot.child.kill('SIGKILL'), 2000).unref();
          }),
      ),
    );
  }

  private spawn(): Slot {
    const child = fork(WORKER_SCRIPT(), [], {
      // isolated-vm needs this on Node 20+; it is the reason isolates live in these processes.
      execArgv: ['--no-node-snapshot'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    // A worker's stderr is only read to explain a crash; keep the tail.
    let stderrTail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-2000);
    });
    Object.defineProperty(child, 'stderrTail', { get: () => stderrTail });
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: FromWorker): void => {
        if (m.type === 'ready') {
          child.off('message', onMessage);
          resolve();
        }
      };
      child.on('message', onMessage);
      child.once('exit', (code, signal) => reject(new SandboxCrashed(describeExit(code, signal, stderrTail))));
    });
    ready.catch(() => undefined);
    const slot: Slot = { child, ready, busy: false, dead: false };
    child.once('exit', () => {
      slot.dead = true;
    });
    return slot;
  }

  private async acquire(): Promise<Slot> {
    if (this.closed) throw new Error('worker pool is closed');
    this.slots.splice(0, this.slots.length, ...this.slots.filter((s) => !s.dead || s.busy));
    const idle = this.slots.find((s) => !s.busy && !s.dead);
    if (idle !== undefined) {
      idle.busy = true;
      return idle;
    }
    if (this.slots.length < this.options.size) {
      const slot = this.spawn();
      slot.busy = true;
      this.slots.push(slot);
      return slot;
    }
    return new Promise<Slot>((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot): void {
    slot.busy = false;
    const next = this.waiting.shift();
    if (next === undefined) return;
    if (slot.dead) {
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      const fresh = this.spawn();
      fresh.busy = true;
      this.slots.push(fresh);
      next(fresh);
      return;
    }
    slot.busy = true;
    next(slot);
  }

  private async send(slot: Slot, job: GradeJob): Promise<GradeReply> {
    await slot.ready;
    const id = this.nextId++;
    const ceiling = (this.options.ceilingMs ?? defaultCeilingMs)(job);
    const { child } = slot;
    return new Promise<GradeReply>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      const onMessage = (m: FromWorker): void => {
        if (m.type === 'graded' && m.id === id) {
          cleanup();
          resolve(m.reply);
        } else if (m.type === 'failed' && m.id === id) {
          cleanup();
          reject(new Error(`sandbox worker failed: ${m.message}`));
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        cleanup();
        slot.dead = true;
        const tail = (child as ChildProcess & { stderrTail?: string }).stderrTail ?? '';
        reject(new SandboxCrashed(describeExit(code, signal, tail)));
      };
      const timer = setTimeout(() => {
        cleanup();
        slot.dead = true;
        child.kill('SIGKILL');
        reject(new SandboxUnresponsive(ceiling));
      }, ceiling);
      child.on('message', onMessage);
      child.once('exit', onExit);
      const message: ToWorker = { type: 'grade', id, job };
      child.send(message, (error) => {
        if (error !== null && error !== undefined) {
          cleanup();
          slot.dead = true;
          child.kill('SIGKILL');
          reject(new SandboxCrashed(`could not send the job: ${error.message}`));
        }
      });
    });
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, stderrTail: string): string {
  const how = signal !== null ? `killed by ${signal}` : `exit code ${code ?? 'unknown'}`;
  const oom = /out of memory|OOM|heap limit|Allocation failed/i.test(stderrTail);
  return oom ? `${how} (V8 ran out of memory)` : how;
}
