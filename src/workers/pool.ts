import { availableParallelism } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { adoptPrestarted, launchWorker } from '../sandbox-host/worker-launch.js';
import { monotonicMs, type Progress, type ProgressCell } from '../sandbox-host/progress-cell.js';
import type { WorkerLink } from '../sandbox-host/worker-link.js';
import { SandboxCrashed, SandboxUnresponsive } from '../sandbox-host/sandbox-errors.js';
import { itemsAnswered, readFromWorker, toWorkerLine, type Batch, type ItemMessage, type RunContext, type ToWorker } from './messages.js';

export { FAULT_RETRIES, isSandboxFault, SandboxCrashed, SandboxUnresponsive } from '../sandbox-host/sandbox-errors.js';

export interface PoolOptions {
  size: number;
  /** Overrides every item's ceiling (BatchRun.ceilingMs). */
  ceilingMs?: () => number;
  /**
   * Start a new worker as soon as one is lost, instead of with the next
   * batch: a long-lived pool (the grading service) stays at full size and
   * warm between requests.
   */
  keepWarm?: boolean;
  /** Hears each worker (by its process id) that has readied the engines its context asked to warm (`errors`: those that could not start). */
  onWarmed?(worker: number, errors: string[]): void;
  /** Hears each worker lost while the pool is open (it died, was killed, or passed its ceiling). */
  onWorkerLost?(worker: number): void;
  /**
   * The program each worker runs instead of evalrun's own (which a CLI may
   * have started already): the tests' stand-ins for a worker that breaks
   * the protocol.
   */
  workerScript?: string;
}

/** A batch as the pool runs it: the work, and who hears its answers. */
export interface BatchRun {
  batch: Batch;
  /**
   * Wall-clock ceiling of an item from when the worker takes it up (for an
   * item run one test at a time, of each test), given the tests the
   * worker's progress cell reports (0 when it reports none: a self-check
   * learns them once it has read its problem). It only matters when the
   * sandbox machinery itself stops answering: a candidate's own time limit
   * is kept inside the worker.
   */
  ceilingMs: (item: number, tests: number) => number;
  /** Hears each answer, in order (a graded message answers `count` items from its `item`). */
  onMessage: (message: ItemMessage) => void;
}

/**
 * A batch's worker died or stopped answering. `answered` items (the first
 * ones, since a worker does them in order) were delivered. `running`, from
 * the worker's progress cell, is the item it was running (and the test, for
 * an item run one test at a time); items between the answered ones and it
 * were done but not yet answered, and the ones after it had not started.
 * Null when the cell did not say (then the first unanswered item is taken
 * to be the one running).
 */
export class BatchFault extends Error {
  constructor(
    readonly answered: number,
    readonly running: { item: number; test: number | null } | null,
    readonly fault: SandboxCrashed | SandboxUnresponsive,
  ) {
    super(fault.message);
    this.name = 'BatchFault';
  }
}

interface Pending {
  id: number;
  /**
   * The batch until its line is made, then null: a batch in flight keeps its
   * line (to send it again to another worker, should its own die before it
   * starts), not its items.
   */
  batch: Batch | null;
  line: string | null;
  /** Items in the batch. */
  count: number;
  ceilingMs: BatchRun['ceilingMs'];
  onMessage: BatchRun['onMessage'];
  /** The next item to be answered. */
  cursor: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Slot {
  child: ChildProcess;
  link: WorkerLink;
  progress: ProgressCell;
  ready: boolean;
  /** No new batch goes to it: it exited, or it is being killed. */
  dead: boolean;
  /** Killed at the ceiling of its first batch: the batches behind that one never started. */
  killedAtCeiling: boolean;
  /** In the order the worker runs them; the first is running (or will, once the worker is ready). */
  batches: Pending[];
  /** When the running item's ceiling passes (monotonicMs()), once the worker has the batch; null when nothing runs. */
  deadline: number | null;
  /** That ceiling, for the error. */
  ceilingMs: number;
  stderrTail: string;
  /** What the worker sent that broke the protocol, when that is why it was killed. */
  brokeProtocol: string | null;
}

/** How often the pool looks for a worker past its ceiling; ceilings are seconds long, so a fraction of a second late is nothing. */
const CEILING_CHECK_MS = 100;

/**
 * A fixed number of sandbox worker processes. Each runs one batch at a
 * time, in the order it received them, answering item by item; a worker
 * that dies or hangs is replaced, and only the batch it was running fails,
 * saying how many items were answered (recovery.ts sends the rest again).
 * Batches queued behind that one had not started, and go to another
 * worker. How much is in flight is the caller's to bound (the run does it
 * with p-limit); the pool hands each batch to the least loaded worker.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  /** Batches no worker has taken yet, oldest first. */
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private closing: Promise<void> | null = null;
  private context: RunContext | null = null;
  /** One timer for every worker's ceiling: answers only move a deadline, which costs no timer per answer. */
  private watch: NodeJS.Timeout | null = null;

  constructor(private readonly options: PoolOptions) {}

  get size(): number {
    return this.options.size;
  }

  /**
   * Starts workers now instead of at the first batches. A worker takes
   * a few hundred milliseconds to start (Node without its snapshot, then
   * isolated-vm and the first isolate); calling this before planning lets
   * that happen meanwhile. At most one per core is started ahead: more
   * could not start any faster side by side, and a pool larger than the
   * run's work (a `--concurrency` of hundreds for a few candidates) starts
   * the rest only when batches wait for them.
   */
  warm(): void {
    if (this.closed) return;
    const ahead = Math.min(this.options.size, availableParallelism());
    while (this.live().length < ahead) this.slots.push(this.spawn());
  }

  /** What every worker keeps for the run; sent to each worker now and to every worker started later. */
  setContext(context: RunContext): void {
    this.context = context;
    for (const slot of this.live()) if (slot.ready) this.sendContext(slot);
  }

  /**
   * Runs one batch on a worker; resolves once every item is answered, or
   * rejects with a BatchFault when its worker dies or hangs.
   */
  run(run: BatchRun): Promise<void> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    const count = run.batch.items.length;
    if (count === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        batch: run.batch,
        line: null,
        count,
        ceilingMs: run.ceilingMs,
        onMessage: run.onMessage,
        cursor: 0,
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /**
   * Stops every worker. Batches still running fail; batches not yet taken
   * fail too. Each worker's input is closed at once: an idle worker reads
   * the end of it and exits; a busy one exits after answering what it
   * already had. Either is killed if it is still there two seconds later.
   * Closing again waits for the same exits.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    if (this.watch !== null) clearInterval(this.watch);
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

  /** Hands queued batches to workers: an idle one, else a new one, else the least loaded. */
  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const live = this.live();
      let slot = live.find((s) => s.batches.length === 0);
      if (slot === undefined && live.length < this.options.size) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      slot ??= live.reduce<Slot | undefined>((best, s) => (best === undefined || s.batches.length < best.batches.length ? s : best), undefined);
      if (slot === undefined) return;
      const pending = this.queue.shift()!;
      slot.batches.push(pending);
      if (slot.ready) this.post(slot, pending);
    }
  }

  /** Sends a message (messages.ts `toWorkerLine`); throws if it cannot be encoded. */
  private send(slot: Slot, message: ToWorker): void {
    this.sendLine(slot, toWorkerLine(message));
  }

  private sendLine(slot: Slot, line: string): void {
    slot.link.sendLine(line, (error) => {
      // The pipe broke: the worker is gone or going; its exit settles its batches.
      if (error !== null && error !== undefined) this.kill(slot);
    });
  }

  private sendContext(slot: Slot): void {
    if (this.context !== null) this.send(slot, { type: 'context', context: this.context });
  }

  private post(slot: Slot, pending: Pending): void {
    try {
      pending.line ??= toWorkerLine({ type: 'batch', id: pending.id, batch: pending.batch! });
      pending.batch = null;
      this.sendLine(slot, pending.line);
    } catch (e) {
      // The batch itself cannot be sent (it does not serialize): only it fails.
      this.take(slot, pending);
      pending.reject(new Error(`could not send a batch to a sandbox worker: ${e instanceof Error ? e.message : String(e)}`));
      this.dispatch();
      return;
    }
    if (slot.batches[0] === pending) this.armCeiling(slot, this.ceilingOf(pending, 0));
  }

  private ceilingOf(pending: Pending, item: number, tests = 0): number {
    return this.options.ceilingMs?.() ?? pending.ceilingMs(item, tests);
  }

  private armCeiling(slot: Slot, ceiling: number): void {
    const head = slot.batches[0];
    if (head === undefined || !slot.ready) {
      slot.deadline = null;
      return;
    }
    slot.deadline = monotonicMs() + ceiling;
    slot.ceilingMs = ceiling;
    this.watch ??= setInterval(() => this.checkCeilings(), CEILING_CHECK_MS).unref();
  }

  /** Kills the workers whose running item outlived its ceiling; their batch fails as unresponsive. */
  private checkCeilings(): void {
    const now = monotonicMs();
    for (const slot of this.live()) {
      const head = slot.batches[0];
      if (slot.deadline === null || head === undefined || now < slot.deadline) continue;
      // A worker that has moved on since (another item, another test, its tests known) has the ceiling of what it does now, from when it started it.
      const cell = slot.progress.read();
      if (cell !== null && cell.batch === head.id && cell.item >= head.cursor) {
        const ceiling = this.ceilingOf(head, cell.item, cell.tests);
        if (cell.at + ceiling > now) {
          slot.deadline = cell.at + ceiling;
          slot.ceilingMs = ceiling;
          continue;
        }
      }
      slot.deadline = null;
      slot.batches.shift();
      slot.killedAtCeiling = true;
      this.kill(slot);
      head.reject(new BatchFault(head.cursor, runningIn(head, cell), new SandboxUnresponsive(slot.ceilingMs)));
    }
  }

  private kill(slot: Slot): void {
    slot.dead = true;
    slot.child.kill('SIGKILL');
  }

  private take(slot: Slot, pending: Pending): void {
    const index = slot.batches.indexOf(pending);
    if (index >= 0) slot.batches.splice(index, 1);
    if (index === 0) {
      const next = slot.batches[0];
      if (next !== undefined) this.armCeiling(slot, this.ceilingOf(next, next.cursor));
      else slot.deadline = null;
    }
  }

  private spawn(): Slot {
    const script = this.options.workerScript;
    const adopted = script === undefined ? adoptPrestarted() : undefined;
    const { child, link, progress } = adopted ?? launchWorker(script);
    const slot: Slot = {
      child,
      link,
      progress,
      ready: false,
      dead: false,
      killedAtCeiling: false,
      batches: [],
      deadline: null,
      ceilingMs: 0,
      stderrTail: '',
      brokeProtocol: null,
    };
    // A worker's stderr is only read to explain a crash; keep the tail.
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      slot.stderrTail = (slot.stderrTail + chunk).slice(-2000);
    });
    link.onMessage((m, payload) => this.onMessage(slot, m, payload));
    child.once('exit', (code, signal) => this.onExit(slot, code, signal));
    if (adopted?.ready === true) this.becomeReady(slot);
    return slot;
  }

  private becomeReady(slot: Slot): void {
    if (slot.ready) return;
    slot.ready = true;
    this.sendContext(slot);
    for (const pending of [...slot.batches]) if (!slot.dead) this.post(slot, pending);
  }

  private onMessage(slot: Slot, raw: unknown, payload: Buffer | null): void {
    if (slot.dead) return;
    const message = readFromWorker(raw, payload);
    if (typeof message === 'string') return this.protocolError(slot, message);
    if (message.type === 'ready') return this.becomeReady(slot);
    if (message.type === 'warmed') return this.options.onWarmed?.(slot.child.pid ?? -1, message.errors);
    const head = slot.batches[0];
    // A worker answers its batches in order and each batch's items in order: anything else is not evalrun's worker speaking.
    if (head === undefined || head.id !== message.batch) return this.protocolError(slot, `an answer to batch ${message.batch}, which it is not running`);
    if (message.item !== head.cursor) return this.protocolError(slot, `an answer to item ${message.item} where item ${head.cursor} was due`);
    const answered = itemsAnswered(message);
    if (head.cursor + answered > head.count) {
      return this.protocolError(slot, `answers to items ${head.cursor} to ${head.cursor + answered - 1} of a batch of ${head.count}`);
    }
    try {
      head.onMessage(message);
    } catch (e) {
      // The listener's failure is the run's to report; the worker did nothing wrong.
      this.take(slot, head);
      head.reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    if (answered === 0) return;
    head.cursor += answered;
    if (head.cursor < head.count) {
      this.armCeiling(slot, this.ceilingOf(head, head.cursor));
      return;
    }
    this.take(slot, head);
    head.resolve();
    this.dispatch();
  }

  /** A message that breaks the protocol: the worker cannot be trusted with more work, and its running batch fails as if it crashed. */
  private protocolError(slot: Slot, what: string): void {
    slot.brokeProtocol = what;
    this.kill(slot);
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    slot.dead = true;
    slot.deadline = null;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    const batches = slot.batches.splice(0);
    const crash = new SandboxCrashed(describeExit(code, signal, slot), ranOutOfMemory(slot.stderrTail));
    // The first batch was running unless the ceiling already failed it; the rest never started.
    const running = slot.killedAtCeiling ? undefined : batches.shift();
    running?.reject(new BatchFault(running.cursor, runningIn(running, slot.progress.read()), crash));
    if (this.closed) {
      for (const pending of batches) pending.reject(new BatchFault(pending.cursor, null, crash));
      return;
    }
    this.options.onWorkerLost?.(slot.child.pid ?? -1);
    this.queue.unshift(...batches);
    this.dispatch();
    if (this.options.keepWarm === true) this.warm();
  }
}

/** The item (and test) of `pending` its worker's cell says was running, if it is one not yet answered. */
function runningIn(pending: Pending, cell: Progress | null): BatchFault['running'] {
  if (cell === null || cell.batch !== pending.id || cell.item < pending.cursor || cell.item >= pending.count) return null;
  return { item: cell.item, test: cell.test >= 0 ? cell.test : null };
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, slot: Pick<Slot, 'stderrTail' | 'brokeProtocol'>): string {
  const how = signal !== null ? `killed by ${signal}` : `exit code ${code ?? 'unknown'}`;
  if (slot.brokeProtocol !== null) return `${how} after it sent ${slot.brokeProtocol}`;
  return ranOutOfMemory(slot.stderrTail) ? `${how} (V8 ran out of memory)` : how;
}

/** V8's fatal out-of-memory report, which it writes before it aborts the process. */
function ranOutOfMemory(stderrTail: string): boolean {
  return /out of memory|OOM|heap limit|Allocation failed/i.test(stderrTail);
}
