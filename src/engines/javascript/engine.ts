import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ivm from 'isolated-vm';
import { packageRoot } from '../../package-root.js';
import type { CandidateJob, CandidateOutcome, TestOutcome } from '../../sandbox-host/protocol.js';
import { parseFrames } from '../frames.js';

const HARNESS_SOURCE = readFileSync(join(packageRoot(), 'sandbox', 'harness.js'), 'utf8');

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
 * full of dead contexts costs more than starting a new isolate: measured
 * here, the CPU time per candidate falls by a third going from 500
 * candidates per isolate to 50, and rises again below 50.
 */
const CANDIDATES_PER_ISOLATE = 50;

/** What `run` answers when the candidate returned a thenable: the rest comes through `settle`. */
const ASYNC_MARK = 'A';

const MEMORY_MESSAGE = 'exceeded the memory limit';

/**
 * A timeout is the candidate's only when its call kept this process's CPU
 * busy for most of the limit. isolated-vm's limit is wall-clock time, and a
 * machine with no core to spare (or a process stopped for a while) lets the
 * wall clock run out while the candidate hardly ran: such a test runs again,
 * at most OVERLOAD_RETRIES times per candidate, and then the verdict stands.
 * The Python engine judges its timeouts the same way.
 */
const CPU_SHARE_FOR_TIMEOUT = 0.75;
const OVERLOAD_RETRIES = 2;

type CallResult =
  | { kind: 'finished'; text: string }
  /** The isolate's timeout stopped running JavaScript; the context is still usable. `cpuMs`: this process's CPU time during the call. */
  | { kind: 'timeout'; cpuMs: number }
  /** Nothing ran, but the call never settled (a promise that never resolves). */
  | { kind: 'idle' }
  /** The isolate was disposed because it reached its heap limit. */
  | { kind: 'memory' }
  | { kind: 'crashed'; message: string };

type Install = ivm.Reference<(seed: number, epoch: number) => unknown>;

interface Session {
  context: ivm.Context;
  run: ivm.Reference<(name: string, names: string, tests: string) => string>;
  progress: ivm.Reference<() => string>;
  settle: ivm.Reference<() => string | Promise<string>>;
}

/** A context nobody has used yet, with the harness evaluated in it but not installed. */
interface Spare {
  isolate: ivm.Isolate;
  context: ivm.Context;
  install: Install;
}

type SessionOpen =
  | { kind: 'open'; session: Session }
  | { kind: 'load-error'; message: string }
  | { kind: 'timeout' }
  | { kind: 'memory' };

/**
 * Runs JavaScript candidates in isolated-vm. One isolate serves many
 * candidates, each in a fresh context; an isolate that hit a limit is
 * discarded. All of a candidate's tests go into the isolate in one call;
 * the engine falls back to smaller calls only to say which test hit a limit.
 *
 * Creating a context is the largest fixed cost of a candidate, so `warm`
 * prepares the next one (and the isolate, when it was discarded) while the
 * worker waits for its next job; `run` takes it if it is there.
 */
export class JsEngine {
  private isolate: ivm.Isolate | null = null;
  private harness: ivm.Script | null = null;
  private memoryMb = 0;
  private served = 0;
  private spare: Spare | null = null;

  /**
   * Prepares the isolate and one unused context for the next candidate.
   * Only ever called between jobs; if it throws, the next `run` meets the
   * same trouble and reports it.
   */
  warm(memoryMb: number): void {
    const { isolate, harness } = this.ensureIsolate(memoryMb);
    if (this.spare !== null && this.spare.isolate === isolate) return;
    this.dropSpare();
    this.spare = { isolate, ...this.freshContext(isolate, harness) };
  }

  async run(job: CandidateJob): Promise<CandidateOutcome> {
    const n = job.tests.length;
    const outcomes: TestOutcome[] = [];
    let entryPoint = '';
    let oneAtATime = false;
    let tainted = false;
    let overloadRetries = 0;
    const timeoutMs = job.limits.timeoutMs;
    /** Whether a timeout of `call` is the candidate's own (see CPU_SHARE_FOR_TIMEOUT). */
    const ownTimeout = (call: CallResult): boolean => {
      if (call.kind !== 'timeout' || call.cpuMs >= timeoutMs * CPU_SHARE_FOR_TIMEOUT || overloadRetries >= OVERLOAD_RETRIES) return true;
      overloadRetries++;
      return false;
    };

    while (outcomes.length < n) {
      const opened = this.open(job);
      if (opened.kind === 'load-error') {
        if (outcomes.length === 0) return { kind: 'load-error', message: opened.message };
        fill(outcomes, n, { kind: 'threw', message: opened.message, durationMs: 0 });
        break;
      }
      if (opened.kind === 'timeout' || opened.kind === 'memory') {
        this.discard();
        fill(
          outcomes,
          n,
          opened.kind === 'timeout'
            ? { kind: 'timeout', durationMs: timeoutMs }
            : { kind: 'memory', message: `top-level code ${MEMORY_MESSAGE}` },
        );
        break;
      }
      const { session } = opened;
      let keepSession = true;
      while (keepSession && outcomes.length < n) {
        const from = outcomes.length;
        const slice = oneAtATime ? job.tests.slice(from, from + 1) : job.tests.slice(from);
        const call = await this.call(session, job, slice);
        switch (call.kind) {
          case 'finished': {
            const parsed = parseFrames(call.text);
            if (parsed.kind === 'missing-entry') return { kind: 'load-error', message: parsed.message };
            if (parsed.kind === 'malformed') {
              fill(outcomes, n, { kind: 'threw', message: parsed.message, durationMs: 0 });
              break;
            }
            entryPoint = parsed.entryPoint;
            for (const t of parsed.tests.slice(0, slice.length)) outcomes.push(t); // no spread: 100k+ tests overflow the stack
            const missing = from + slice.length;
            fill(outcomes, missing, { kind: 'threw', message: 'sandbox returned too few results', durationMs: 0 });
            break;
          }
          case 'timeout':
          case 'idle': {
            tainted = true;
            const partial = this.recover(session);
            if (partial === null) {
              // Nothing could be read back: the first test of the slice gets the
              // blame, unless the time ran out with the CPU elsewhere: then the
              // slice runs again in a new context.
              if (ownTimeout(call)) outcomes.push({ kind: 'timeout', durationMs: timeoutMs });
              keepSession = false;
              this.discard();
              break;
            }
            if (partial.entryPoint !== '') entryPoint = partial.entryPoint;
            for (const t of partial.tests.slice(0, slice.length)) outcomes.push(t);
            // The test that was running when time ran out had the whole budget
            // only if it was the first of this call; otherwise it gets its own
            // call. Nor is it the candidate's timeout when the CPU was elsewhere:
            // then it runs again.
            if (partial.tests.length === 0 && ownTimeout(call)) outcomes.push({ kind: 'timeout', durationMs: timeoutMs });
            if (call.kind === 'idle') {
              keepSession = false;
              this.discard();
            }
            break;
          }
          case 'memory': {
            tainted = true;
            keepSession = false;
            this.discard();
            if (slice.length === 1) outcomes.push({ kind: 'memory', message: MEMORY_MESSAGE });
            // Which test of a batch exhausted memory is unknown: replay one test per call.
            oneAtATime = true;
            break;
          }
          case 'crashed': {
            tainted = true;
            keepSession = false;
            this.discard();
            outcomes.push({ kind: 'threw', message: `sandbox failure: ${call.message}`, durationMs: 0 });
            break;
          }
        }
      }
      if (keepSession) session.context.release();
    }

    this.served++;
    if (tainted || this.served >= CANDIDATES_PER_ISOLATE) this.discard();
    return { kind: 'ran', tests: outcomes, entryPoint };
  }

  dispose(): void {
    this.discard();
  }

  private ensureIsolate(memoryMb: number): { isolate: ivm.Isolate; harness: ivm.Script } {
    if (this.isolate === null || this.isolate.isDisposed || this.memoryMb !== memoryMb || this.harness === null) {
      this.discard();
      this.isolate = new ivm.Isolate({ memoryLimit: memoryMb });
      this.harness = this.isolate.compileScriptSync(HARNESS_SOURCE, { filename: 'evalrun-harness.js' });
      this.memoryMb = memoryMb;
      this.served = 0;
    }
    return { isolate: this.isolate, harness: this.harness };
  }

  private discard(): void {
    this.dropSpare();
    if (this.isolate !== null && !this.isolate.isDisposed) this.isolate.dispose();
    this.isolate = null;
    this.harness = null;
  }

  private dropSpare(): void {
    const spare = this.spare;
    this.spare = null;
    if (spare === null || spare.isolate.isDisposed) return;
    spare.install.release();
    spare.context.release();
  }

  /** The compiled harness is evaluated in every new context, so it captures its intrinsics before any candidate runs there. */
  private freshContext(isolate: ivm.Isolate, harness: ivm.Script): { context: ivm.Context; install: Install } {
    const context = isolate.createContextSync();
    const install = harness.runSync(context, { reference: true }) as Install;
    return { context, install };
  }

  /** The prepared context when it belongs to this isolate, else a new one. */
  private takeContext(isolate: ivm.Isolate, harness: ivm.Script): { context: ivm.Context; install: Install } {
    const spare = this.spare;
    if (spare !== null && spare.isolate === isolate && !isolate.isDisposed) {
      this.spare = null;
      return spare;
    }
    this.dropSpare();
    return this.freshContext(isolate, harness);
  }

  /** A fresh context with the harness installed, then the candidate's top-level code run. */
  private open(job: CandidateJob): SessionOpen {
    try {
      return this.openOnce(job);
    } catch (e) {
      // The isolate gave out while a fresh context was being set up (a heap
      // left nearly full by an earlier candidate): start over on a new one.
      this.discard();
      if (!isDisposedError(e)) throw e;
      return this.openOnce(job);
    }
  }

  private openOnce(job: CandidateJob): SessionOpen {
    const { isolate, harness } = this.ensureIsolate(job.limits.memoryMb);
    const { context, install } = this.takeContext(isolate, harness);
    const api = install.applySync(undefined, [job.limits.seed, SANDBOX_EPOCH_MS], {
      result: { reference: true },
    }) as ivm.Reference<unknown[]>;
    const run = api.getSync(0, { reference: true }) as Session['run'];
    const progress = api.getSync(1, { reference: true }) as Session['progress'];
    const settle = api.getSync(2, { reference: true }) as Session['settle'];
    install.release();
    api.release();

    let script: ivm.Script;
    try {
      script = isolate.compileScriptSync(job.code, { filename: 'candidate.js' });
    } catch (e) {
      context.release();
      return { kind: 'load-error', message: `does not compile: ${errorText(e)}` };
    }
    try {
      script.runSync(context, { timeout: job.limits.timeoutMs });
    } catch (e) {
      if (isolate.isDisposed) return { kind: 'memory' };
      if (isTimeout(e)) return { kind: 'timeout' };
      context.release();
      // Typed arrays live outside the V8 heap: when they exhaust memory the
      // code gets a RangeError instead of the isolate being disposed.
      if (isAllocationFailure(e)) return { kind: 'memory' };
      return { kind: 'load-error', message: `threw while loading: ${errorText(e)}` };
    } finally {
      script.release();
    }
    return { kind: 'open', session: { context, run, progress, settle } };
  }

  /**
   * Runs a slice of tests. The first call is synchronous: for a candidate
   * that returns plain values it is the whole run, without handing the call
   * to the isolate's thread and back. Only a candidate that returned a
   * thenable continues in an asynchronous call, raced against a host timer
   * because a promise that never settles is not covered by the isolate's
   * own timeout. Both calls together get one time limit, as one call did.
   */
  private async call(session: Session, job: CandidateJob, tests: readonly string[]): Promise<CallResult> {
    const isolate = this.isolate;
    if (isolate === null) return { kind: 'crashed', message: 'isolate missing' };
    const names = JSON.stringify(job.topLevelNames ?? []);
    const testsJson = `[${tests.join(',')}]`;
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    const cpuMs = (): number => {
      const used = process.cpuUsage(cpuAtStart);
      return (used.user + used.system) / 1000;
    };
    let text: unknown;
    try {
      text = session.run.applySync(undefined, [job.functionName, names, testsJson], { timeout: job.limits.timeoutMs });
    } catch (e) {
      return failedCall(isolate, e, cpuMs());
    }
    if (text !== ASYNC_MARK) {
      return typeof text === 'string' ? { kind: 'finished', text } : { kind: 'crashed', message: 'harness returned no text' };
    }
    const remainingMs = Math.max(1, Math.ceil(job.limits.timeoutMs - (performance.now() - started)));
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<CallResult>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'idle' }), remainingMs + IDLE_GRACE_MS);
    });
    const running = session.settle
      .apply(undefined, [], { timeout: remainingMs, result: { promise: true, copy: true } })
      .then(
        (settled): CallResult =>
          typeof settled === 'string' ? { kind: 'finished', text: settled } : { kind: 'crashed', message: 'harness returned no text' },
        (e: unknown): CallResult => failedCall(isolate, e, cpuMs()),
      );
    try {
      return await Promise.race([running, idle]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads back the tests that finished before a limit interrupted the call. */
  private recover(session: Session): { entryPoint: string; tests: TestOutcome[] } | null {
    if (this.isolate === null || this.isolate.isDisposed) return null;
    try {
      const text = session.progress.applySync(undefined, [], { timeout: 1000 });
      if (typeof text !== 'string') return null;
      if (text === '') return { entryPoint: '', tests: [] };
      const parsed = parseFrames(text);
      return parsed.kind === 'tests' ? { entryPoint: parsed.entryPoint, tests: parsed.tests } : null;
    } catch {
      return null;
    }
  }
}

function failedCall(isolate: ivm.Isolate, e: unknown, cpuMs: number): CallResult {
  if (isolate.isDisposed) return { kind: 'memory' };
  if (isTimeout(e)) return { kind: 'timeout', cpuMs };
  return { kind: 'crashed', message: errorText(e) };
}

function fill(outcomes: TestOutcome[], n: number, outcome: TestOutcome): void {
  while (outcomes.length < n) outcomes.push(outcome);
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
