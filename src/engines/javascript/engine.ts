import ivm from 'isolated-vm';
import type { CandidateJob, CandidateOutcome, StopAfter } from '../../sandbox-host/protocol.js';
import { runBatches, MEMORY_MESSAGE } from '../batch-driver.js';
import type { CallResult, Engine, LoadResult, Session } from '../engine.js';
import { Isolates } from './isolates.js';
import { runMeasured } from './measured-session.js';

/** Fixed "now" inside the sandbox, so candidates that read the clock are reproducible. */
const SANDBOX_EPOCH_MS = Date.UTC(2024, 0, 1);

/**
 * Extra wall-clock time the host waits, beyond the per-test limit, before it
 * decides that the isolate is idle on a promise that will never settle. The
 * isolate's own timeout fires first whenever JavaScript is actually running.
 */
const IDLE_GRACE_MS = 100;

/**
 * Isolates are recycled after this many candidates. Every released context
 * stays in the isolate's heap until V8 collects it, and collecting a heap
 * full of dead contexts costs more than starting a new isolate; fewer
 * candidates per isolate cost more again in isolate starts. The measured
 * trade-off is in docs/PERFORMANCE.md, "Design choices behind these figures".
 */
const CANDIDATES_PER_ISOLATE = 50;

/** What `run` answers when the candidate returned a thenable: the rest comes through `settle`. */
const ASYNC_MARK = 'A';

/** The harness's functions in one context, with the candidate's code loaded there. */
interface Loaded {
  context: ivm.Context;
  run: ivm.Reference<(name: string, names: string, tests: string) => string>;
  progress: ivm.Reference<() => string>;
  settle: ivm.Reference<() => string | Promise<string>>;
}

/**
 * Runs JavaScript candidates in isolated-vm, through the shared batch
 * driver. One isolate serves many candidates, each in a fresh context; an
 * isolate that hit a limit is discarded. A context survives a test
 * interrupted at its time limit (the isolate's timeout only stops the
 * running code), so the candidate's other tests go on in it.
 *
 * Creating a context is the largest fixed cost of a candidate, so `warm`
 * prepares the next one (and the isolate, when it was discarded) while the
 * worker waits for its next job; a load takes it if it is there.
 */
export class JsEngine implements Engine {
  private readonly isolates = new Isolates();

  /**
   * Prepares the isolate and one unused context for the next candidate.
   * Only ever called between jobs; if it throws, the next `run` meets the
   * same trouble and reports it.
   */
  warm(memoryMb: number): void {
    this.isolates.warm(memoryMb);
  }

  run(job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome> {
    if (job.measure !== undefined) return runMeasured((code) => new JsSession(this.isolates, code), job, job.measure.repetitions, stop);
    return runBatches(new JsSession(this.isolates), job, stop);
  }

  dispose(): void {
    this.isolates.discard();
  }
}

/**
 * One candidate's run: a fresh context per load. Any limit or failure
 * taints the isolate, which is then discarded once the candidate is done
 * (or at once, when the driver says so).
 */
export class JsSession implements Session {
  readonly survivesTimeout = true;
  private loaded: Loaded | null = null;
  private tainted = false;
  /** The loaded candidate shares its isolate with candidates before it. */
  private shared = false;
  /** Contexts this session loaded the code into (a measured run loads it for every test). */
  private loads = 0;
  /** A measured run: the figures of the last load that finished (its times: the candidate's top-level code alone). */
  lastLoad: { cost: number; memory: number; wallMs: number; cpuMs: number } | null = null;
  /** A measured run's compiled code, for the next load in the same isolate. */
  private compiled: { isolate: ivm.Isolate; script: ivm.Script } | null = null;

  /** Whether this is a measured run: the meter in every context, and `meteredCode` loaded instead of the job's. */
  private readonly metered: boolean;

  /** `meteredCode`: in a measured run, the candidate's code with the meter's counters in it (instrument.ts). */
  constructor(
    private readonly isolates: Isolates,
    private readonly meteredCode: string | null = null,
  ) {
    this.metered = meteredCode !== null;
  }

  /** CPU time the current isolate has used, in ms (for a measured run's times). */
  isolateCpuMs(): number {
    const isolate = this.isolates.isolate;
    return isolate === null || isolate.isDisposed ? 0 : Number(isolate.cpuTime) / 1e6;
  }

  async load(job: CandidateJob, wallMs: number): Promise<LoadResult> {
    this.release();
    try {
      this.shared = this.isolates.isolate !== null && !this.isolates.isolate.isDisposed && this.isolates.served > 0;
      const loaded = await this.loadOnce(job, wallMs);
      if (!this.shared || loaded.kind !== 'failed' || !loaded.lost) return loaded;
      // Out of memory in an isolate that earlier candidates used: what they left (a FinalizationRegistry keeps
      // objects past their context) may be what filled it, so the code runs again on an isolate of its own.
      this.isolates.discard();
      this.shared = false;
      return await this.loadOnce(job, wallMs);
    } catch (e) {
      // The isolate gave out while a fresh context was being set up (a heap
      // left nearly full by an earlier candidate): start over on a new one.
      this.isolates.discard();
      if (!isDisposedError(e)) throw e;
      return await this.loadOnce(job, wallMs);
    }
  }

  private async loadOnce(job: CandidateJob, wallMs: number): Promise<LoadResult> {
    const code = this.meteredCode ?? job.code;
    const { isolate, harness } = this.isolates.ensureIsolate(job.limits.memoryMb);
    const { context, install } = this.metered ? this.isolates.meteredContext(isolate) : this.isolates.takeContext(isolate, harness);
    this.loads++;
    const api = install.applySync(undefined, [job.limits.seed, SANDBOX_EPOCH_MS], {
      result: { reference: true },
    }) as ivm.Reference<unknown[]>;
    const run = api.getSync(0, { reference: true }) as Loaded['run'];
    const progress = api.getSync(1, { reference: true }) as Loaded['progress'];
    const settle = api.getSync(2, { reference: true }) as Loaded['settle'];
    const take = this.metered ? (api.getSync(3, { reference: true }) as ivm.Reference<() => string>) : null;
    install.release();
    api.release();

    let script: ivm.Script;
    try {
      script = this.compiled?.isolate === isolate ? this.compiled.script : isolate.compileScriptSync(code, { filename: 'candidate.js' });
    } catch (e) {
      take?.release();
      context.release();
      return { kind: 'load-error', message: `does not compile: ${errorText(e)}` };
    }
    const cpu = cpuClock(job.limits.timeoutMs);
    try {
      take?.applySync(undefined, []);
      const wallStart = performance.now();
      const cpuStart = isolate.cpuTime;
      if (job.guardTopLevel === true) await runTopLevel(isolate, script, context, wallMs);
      else script.runSync(context, { timeout: wallMs });
      if (take !== null) {
        const wall = performance.now() - wallStart;
        const cpu = Number(isolate.cpuTime - cpuStart) / 1e6;
        const [cost, memory] = String(take.applySync(undefined, [], { timeout: wallMs }))
          .split(',')
          .map(Number);
        this.lastLoad = { cost: cost ?? 0, memory: memory ?? 0, wallMs: wall, cpuMs: cpu };
      }
    } catch (e) {
      const memory: LoadResult = { kind: 'failed', outcome: { kind: 'memory', message: `top-level code ${MEMORY_MESSAGE}` }, lost: true };
      if (e instanceof TopLevelHang || isTimeout(e)) return { kind: 'timeout', cpuMs: cpu() };
      if (isolate.isDisposed) return memory;
      context.release();
      // Typed arrays live outside the V8 heap: when they exhaust memory the
      // code gets a RangeError instead of the isolate being disposed.
      if (isAllocationFailure(e)) return memory;
      return { kind: 'load-error', message: `threw while loading: ${errorText(e)}` };
    } finally {
      // A measured run loads the same code for every test: it is compiled once per isolate.
      if (this.metered && !isolate.isDisposed) this.compiled = { isolate, script };
      else script.release();
      if (!isolate.isDisposed) take?.release();
    }
    this.loaded = { context, run, progress, settle };
    return { kind: 'loaded', entryPoint: '', cpuMs: cpu() };
  }

  /**
   * Runs a slice of tests. The first call is synchronous: for a candidate
   * that returns plain values it is the whole run, without handing the call
   * to the isolate's thread and back. Only a candidate that returned a
   * thenable continues in an asynchronous call, raced against a host timer
   * because a promise that never settles is not covered by the isolate's
   * own timeout. Both calls together get one time limit, as one call did.
   */
  async call(job: CandidateJob, tests: readonly string[], wallMs: number): Promise<CallResult> {
    const result = await this.callOnce(job, tests, wallMs);
    if (result.kind !== 'finished') this.tainted = true;
    return result.kind === 'memory' && this.shared ? { ...result, shared: true } : result;
  }

  private async callOnce(job: CandidateJob, tests: readonly string[], wallMs: number): Promise<CallResult> {
    const isolate = this.isolates.isolate;
    const loaded = this.loaded;
    if (isolate === null || loaded === null) return { kind: 'crashed', message: 'isolate missing' };
    const names = JSON.stringify(job.topLevelNames ?? []);
    const testsJson = `[${tests.join(',')}]`;
    const started = performance.now();
    const cpu = cpuClock(job.limits.timeoutMs);
    let text: unknown;
    try {
      text = loaded.run.applySync(undefined, [job.functionName, names, testsJson], { timeout: wallMs });
    } catch (e) {
      return failedCall(isolate, e, cpu());
    }
    if (text !== ASYNC_MARK) {
      return typeof text === 'string' ? { kind: 'finished', text, cpuMs: cpu() } : { kind: 'crashed', message: 'harness returned no text' };
    }
    const remainingMs = Math.max(1, Math.ceil(wallMs - (performance.now() - started)));
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<CallResult>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timeout', cpuMs: cpu(), idle: true }), remainingMs + IDLE_GRACE_MS);
    });
    const running = loaded.settle.apply(undefined, [], { timeout: remainingMs, result: { promise: true, copy: true } }).then(
      (settled): CallResult =>
        typeof settled === 'string' ? { kind: 'finished', text: settled, cpuMs: cpu() } : { kind: 'crashed', message: 'harness returned no text' },
      (e: unknown): CallResult => failedCall(isolate, e, cpu()),
    );
    try {
      return await Promise.race([running, idle]);
    } finally {
      clearTimeout(timer);
    }
  }

  progress(): string | null {
    const isolate = this.isolates.isolate;
    if (isolate === null || isolate.isDisposed || this.loaded === null) return null;
    try {
      const text = this.loaded.progress.applySync(undefined, [], { timeout: 1000 });
      return typeof text === 'string' ? text : null;
    } catch {
      return null;
    }
  }

  discard(): void {
    this.loaded = null;
    this.tainted = true;
    this.isolates.discard();
  }

  end(): void {
    this.release();
    const compiled = this.compiled;
    this.compiled = null;
    if (compiled !== null && !compiled.isolate.isDisposed) compiled.script.release();
    // A measured run leaves a dead context per test in the isolate's heap, as a candidate does.
    this.isolates.served += this.metered ? Math.max(1, this.loads) : 1;
    if (this.tainted || this.isolates.served >= CANDIDATES_PER_ISOLATE) this.isolates.discard();
  }

  describeCrash(payload: string): string {
    return `sandbox failure: ${payload}`;
  }

  /** Lets go of the context of the last load, when its isolate is still there. */
  private release(): void {
    const loaded = this.loaded;
    this.loaded = null;
    const isolate = this.isolates.isolate;
    if (loaded !== null && isolate !== null && !isolate.isDisposed) loaded.context.release();
  }
}

/**
 * Runs a candidate's top-level code, on the isolate's thread, with a host
 * timer beside the isolate's own limit. What the code throws is read by
 * isolated-vm once that limit is off (its name and message, through getters
 * the candidate wrote or a Proxy's traps): a read that never ends would hold
 * this process for good, so when the timer fires first the isolate is
 * disposed of and the load timed out. The hop to the isolate's thread and
 * back costs every candidate, so only a job that asks for it
 * (`guardTopLevel`: its candidate already stopped a worker) runs this way.
 */
async function runTopLevel(isolate: ivm.Isolate, script: ivm.Script, context: ivm.Context, wallMs: number): Promise<void> {
  const running = script.run(context, { timeout: wallMs });
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new TopLevelHang());
      isolate.dispose();
    }, wallMs + IDLE_GRACE_MS);
  });
  // Settles after a dispose too, when nothing waits for it any more.
  running.catch(() => undefined);
  try {
    await Promise.race([running, hang]);
  } finally {
    clearTimeout(timer);
  }
}

class TopLevelHang extends Error {
  constructor() {
    super('top-level code did not finish within its limit');
  }
}

/**
 * CPU time the candidate used since the clock was made, in ms, as the batch
 * driver needs it: only once `limitMs` of wall time has passed is it read
 * from the system. Before that, the wall time stands in for it: the isolate
 * runs on one thread, so its CPU time is at most the wall time, and the
 * driver only asks whether a call used its limit (reading this process's
 * CPU time is a system call, on every load and call of every candidate).
 */
function cpuClock(limitMs: number): () => number {
  const start = process.cpuUsage();
  const wallStart = performance.now();
  return () => {
    const wall = performance.now() - wallStart;
    if (wall < limitMs) return wall;
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
}

function failedCall(isolate: ivm.Isolate, e: unknown, cpuMs: number): CallResult {
  if (isolate.isDisposed) return { kind: 'memory', cpuMs };
  if (isTimeout(e)) return { kind: 'timeout', cpuMs, idle: false };
  return { kind: 'crashed', message: errorText(e) };
}

function isAllocationFailure(e: unknown): boolean {
  return /Array buffer allocation failed/.test(errorText(e));
}

function isDisposedError(e: unknown): boolean {
  return /Isolate (was|is) disposed/.test(errorText(e));
}

function isTimeout(e: unknown): boolean {
  return e instanceof Error && /timed out/i.test(e.message);
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

/** The registry's way to start JavaScript's engine (registry.ts). */
export function createEngine(): Engine {
  return new JsEngine();
}
