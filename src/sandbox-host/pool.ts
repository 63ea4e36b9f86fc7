import type { ChildProcess } from 'node:child_process';
import type { GradeJob, GradeReply } from './grade-protocol.js';
import type { FromWorker, ToWorker } from './worker-messages.js';
import type { SandboxLimits } from './protocol.js';
import { adoptPrestarted, launchWorker } from './worker-launch.js';
import type { WorkerLink } from './worker-link.js';
import { SandboxCrashed, SandboxUnresponsive } from './sandbox-errors.js';

export { FAULT_RETRIES, isSandboxFault, SandboxCrashed, SandboxUnresponsive } from './sandbox-errors.js';

export interface PoolOptions {
  size: number;
  /**
   * Jobs one worker may hold at once: the one it runs and the ones queued
   * behind it (default 2). A queued job is already in the worker's pipe
   * when the running one ends, so the worker does not sit idle while the
   * supervisor records a reply and prepares the next job. A job is only
   * queued behind another when every worker is busy.
   */
  depth?: number;
  /** Overrides the per-job ceiling computed from the job's limits. */
  ceilingMs?: (job: GradeJob) => number;
}

interface Pending {
  id: number;
  job: GradeJob;
  /** Wall-clock ceiling once a worker runs it; for a job run one test at a time, of each test. */
  ceilingMs: number;
  onTest: ((test: number) => void) | undefined;
  resolve: (reply: GradeReply) => void;
  reject: (error: Error) => void;
}

interface Slot {
  child: ChildProcess;
  link: WorkerLink;
  ready: boolean;
  /** No new job goes to it: it exited, or it is being killed. */
  dead: boolean;
  /** Killed at the ceiling of its first job: the jobs behind that one never started. */
  killedAtCeiling: boolean;
  /** In the order the worker runs them; the first is running (or will, once the worker is ready). */
  jobs: Pending[];
  /** Ceiling of the first job, armed once the worker has it. */
  timer: NodeJS.Timeout | null;
  stderrTail: string;
}

const DEFAULT_DEPTH = 2;

/**
 * Ceiling for one candidate: every test may use its whole time limit twice
 * (a timed-out batch is replayed from the interrupted test), plus start-up;
 * for a job run one test at a time, the ceiling of one test, counted again
 * from the start of each. It only matters when the sandbox machinery itself
 * stops answering.
 */
export function defaultCeilingMs(job: GradeJob): number {
  return ceilingForTests(job.oneByOne === undefined ? job.tests.length : 1, job.limits);
}

/** The ceiling of a candidate with this many tests under these limits. */
export function ceilingForTests(tests: number, limits: SandboxLimits): number {
  return (tests + 1) * (limits.timeoutMs + 250) * 2 + 10_000;
}

/**
 * A fixed number of sandbox worker processes. Each runs one grade job at a
 * time, in the order it received them; a worker that dies or hangs is
 * replaced, and only the job it was running fails (grading/recovery.ts
 * sends it again). Jobs queued behind that one had not started, and go to
 * another worker.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  /** Jobs no worker has taken yet, oldest first. */
  private readonly queue: Pending[] = [];
  private readonly depth: number;
  private nextId = 1;
  private closed = false;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: PoolOptions) {
    this.depth = Math.max(1, options.depth ?? DEFAULT_DEPTH);
  }

  /**
   * Starts every worker now instead of at the first jobs. A worker takes a
   * few hundred milliseconds to start (Node without its snapshot, then
   * isolated-vm and the first isolate); calling this before loading the
   * problems lets that happen while they load.
   */
  warm(): void {
    if (this.closed) return;
    while (this.live().length < this.options.size) this.slots.push(this.spawn());
  }

  /**
   * Sends one job to a worker; rejects with SandboxCrashed or
   * SandboxUnresponsive when its worker dies or hangs. `onTest` hears which
   * test a job sent one test at a time (`oneByOne`) starts.
   */
  grade(job: GradeJob, onTest?: (test: number) => void): Promise<GradeReply> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    const ceilingMs = (this.options.ceilingMs ?? defaultCeilingMs)(job);
    return new Promise<GradeReply>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, ceilingMs, onTest, resolve, reject });
      this.dispatch();
    });
  }

  /**
   * Stops every worker. Jobs still running fail with SandboxCrashed; jobs
   * not yet taken fail too. Each worker's input is closed at once: an idle
   * worker reads the end of it and exits; a busy one exits after answering
   * what it already had. Either is killed if it is still there two seconds
   * later. Closing again (a run lets its workers go once grading ends, and
   * closes the pool when it is done) waits for the same exits.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('worker pool is closed'));
    await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            if (slot.child.exitCode !== null || slot.child.signalCode !== null) return resolve();
            slot.child.once('exit', () => resolve());
            slot.link.close();
            setTimeout(() => slot.child.kill('SIGKILL'), 2000).unref();
          }),
      ),
    );
  }

  private live(): Slot[] {
    return this.slots.filter((s) => !s.dead);
  }

  /**
   * Hands queued jobs to workers: an idle one, else a new one, else the
   * least loaded below `depth`.
   */
  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const live = this.live();
      let slot = live.find((s) => s.jobs.length === 0);
      if (slot === undefined && live.length < this.options.size) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      if (slot === undefined) {
        const lightest = live.reduce<Slot | undefined>((best, s) => (best === undefined || s.jobs.length < best.jobs.length ? s : best), undefined);
        if (lightest === undefined || lightest.jobs.length >= this.depth) return;
        slot = lightest;
      }
      const pending = this.queue.shift()!;
      slot.jobs.push(pending);
      if (slot.ready) this.post(slot, pending);
    }
  }

  private post(slot: Slot, pending: Pending): void {
    const message: ToWorker = { type: 'request', id: pending.id, job: pending.job };
    try {
      slot.link.send(message, (error) => {
        // The pipe broke: the worker is gone or going; its exit settles its jobs.
        if (error !== null && error !== undefined) this.kill(slot);
      });
    } catch (e) {
      // The job itself cannot be sent (it does not serialize): only it fails.
      this.take(slot, pending.id);
      pending.reject(new Error(`could not send the job to a sandbox worker: ${e instanceof Error ? e.message : String(e)}`));
      this.afterTake(slot);
      return;
    }
    if (slot.jobs[0] === pending) this.armCeiling(slot);
  }

  private armCeiling(slot: Slot): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    const head = slot.jobs[0];
    if (head === undefined || !slot.ready) return;
    const ceiling = head.ceilingMs;
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (slot.jobs[0] !== head) return;
      slot.jobs.shift();
      slot.killedAtCeiling = true;
      this.kill(slot);
      head.reject(new SandboxUnresponsive(ceiling));
    }, ceiling);
  }

  private kill(slot: Slot): void {
    slot.dead = true;
    slot.child.kill('SIGKILL');
  }

  private take(slot: Slot, id: number): Pending | undefined {
    const index = slot.jobs.findIndex((p) => p.id === id);
    if (index < 0) return undefined;
    const [pending] = slot.jobs.splice(index, 1);
    if (index === 0) this.armCeiling(slot);
    return pending;
  }

  private afterTake(slot: Slot): void {
    if (slot.jobs.length === 0 && slot.timer !== null) {
      clearTimeout(slot.timer);
      slot.timer = null;
    }
    this.dispatch();
  }

  private spawn(): Slot {
    const adopted = adoptPrestarted();
    const { child, link } = adopted ?? launchWorker();
    const slot: Slot = { child, link, ready: adopted?.ready ?? false, dead: false, killedAtCeiling: false, jobs: [], timer: null, stderrTail: '' };
    // A worker's stderr is only read to explain a crash; keep the tail.
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      slot.stderrTail = (slot.stderrTail + chunk).slice(-2000);
    });
    // The worker writes only FromWorker messages (worker-process.ts).
    link.onMessage((m) => this.onMessage(slot, m as FromWorker));
    child.once('exit', (code, signal) => this.onExit(slot, code, signal));
    return slot;
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    if (m.type === 'ready') {
      if (slot.ready) return;
      slot.ready = true;
      for (const pending of [...slot.jobs]) if (!slot.dead) this.post(slot, pending);
      return;
    }
    if (m.type === 'started') {
      const head = slot.jobs[0];
      if (head === undefined || head.id !== m.id) return;
      // Each test of a job run one at a time has a ceiling of its own.
      this.armCeiling(slot);
      head.onTest?.(m.test);
      return;
    }
    const pending = this.take(slot, m.id);
    if (pending === undefined) return;
    if (m.type === 'answered') pending.resolve(m.reply);
    else pending.reject(new Error(`sandbox worker failed: ${m.message}`));
    this.afterTake(slot);
  }


  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    slot.dead = true;
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    const jobs = slot.jobs.splice(0);
    const crash = new SandboxCrashed(describeExit(code, signal, slot.stderrTail), ranOutOfMemory(slot.stderrTail));
    // The first job was running unless the ceiling already failed it; the rest never started.
    const running = slot.killedAtCeiling ? undefined : jobs.shift();
    running?.reject(crash);
    if (this.closed) {
      for (const pending of jobs) pending.reject(crash);
      return;
    }
    this.queue.unshift(...jobs);
    this.dispatch();
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, stderrTail: string): string {
  const how = signal !== null ? `killed by ${signal}` : `exit code ${code ?? 'unknown'}`;
  return ranOutOfMemory(stderrTail) ? `${how} (V8 ran out of memory)` : how;
}

/** V8's fatal out-of-memory report, which it writes before it aborts the process. */
function ranOutOfMemory(stderrTail: string): boolean {
  return /out of memory|OOM|heap limit|Allocation failed/i.test(stderrTail);
}
