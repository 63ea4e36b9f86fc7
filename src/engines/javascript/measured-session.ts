/**
 * A measured run of a JavaScript candidate (`CandidateJob.measure`,
 * docs/METERING-JS.md), through the shared batch driver like any run.
 *
 * Every test runs from the state right after the candidate's code loaded:
 * the first repetition of the first test in the context the load made, every
 * other repetition of every test in a new context with the code loaded again.
 * V8 has no way to put a context back into an earlier state (isolated-vm
 * offers no snapshot of a context), and loading again is exact: the same
 * code run from the same fresh context reaches the same state, so nothing a
 * test leaves behind (a memoized answer, a warmed cache, a changed global)
 * is there for the next. A new context costs about what a candidate's start
 * does (docs/PERFORMANCE.md).
 *
 * Each call runs the first test it is given (the driver asks again for the
 * rest), `repetitions` times. The first repetition decides the test's
 * outcome and gives its cost and memory (the meter counts the same on every
 * repetition); the others only add times. A later repetition that ends
 * otherwise (a timeout on a busy machine) ends the repeating, with the times
 * so far.
 */
import type { CandidateJob, CandidateOutcome, StopAfter, TestMeasure } from '../../sandbox-host/protocol.js';
import { runBatches } from '../batch-driver.js';
import type { CallResult, LoadResult, Session } from '../engine.js';
import { measuredFrames, parseFrames } from '../frames.js';

/** What a measured run needs of JavaScript's session (engine.ts) besides the `Session` it is. */
export interface MeterableSession extends Session {
  /** CPU time the current isolate has used, in ms. */
  isolateCpuMs(): number;
  /** The figures of the last load that finished. */
  readonly lastLoad: { cost: number; memory: number; wallMs: number; cpuMs: number } | null;
}

/**
 * Runs `job` measured. `session` makes the engine's session for the
 * instrumented code. The instrumenter (and acorn) is loaded on the first
 * measured run: a worker that never measures never evaluates it.
 */
export async function runMeasured(
  session: (instrumentedCode: string) => MeterableSession,
  job: CandidateJob,
  repetitions: number,
  stop?: StopAfter,
): Promise<CandidateOutcome> {
  const { instrument } = await import('./instrument.js');
  const instrumented = instrument(job.code);
  if (!instrumented.ok) return { kind: 'load-error', message: instrumented.error };
  return runInstrumented(new MeasuredSession(session(instrumented.code), Number.isFinite(repetitions) ? Math.max(1, Math.floor(repetitions)) : 1), job, stop);
}

async function runInstrumented(session: MeasuredSession, job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome> {
  const outcome = await runBatches(session, job, stop);
  if (outcome.kind !== 'ran' || session.loadMeasure === null) return outcome;
  return { ...outcome, load: session.loadMeasure };
}

class MeasuredSession implements Session {
  readonly survivesTimeout = true;
  /** The loading's figures: cost and memory of the first load, the times of the first `repetitions` loads. */
  loadMeasure: TestMeasure | null = null;
  /** Whether the loaded context has run nothing yet. */
  private fresh = false;

  constructor(
    private readonly inner: MeterableSession,
    private readonly repetitions: number,
  ) {}

  load(job: CandidateJob, wallMs: number): Promise<LoadResult> {
    return this.timedLoad(job, wallMs);
  }

  private async timedLoad(job: CandidateJob, wallMs: number): Promise<LoadResult> {
    const result = await this.inner.load(job, wallMs);
    const figures = this.inner.lastLoad;
    if (result.kind !== 'loaded' || figures === null) return result;
    this.fresh = true;
    this.loadMeasure ??= { cost: figures.cost, memory: figures.memory, wallMs: [], cpuMs: [] };
    if (this.loadMeasure.wallMs.length < this.repetitions) {
      this.loadMeasure.wallMs.push(round(figures.wallMs));
      this.loadMeasure.cpuMs.push(round(figures.cpuMs));
    }
    return result;
  }

  async call(job: CandidateJob, tests: readonly string[], wallMs: number): Promise<CallResult> {
    const test = tests.slice(0, 1);
    let first: { entryPoint: string; durationMs: number; json: string; measure: TestMeasure; cpuMs: number } | null = null;
    for (let repetition = 0; repetition < this.repetitions; repetition++) {
      if (!this.fresh) {
        const reload = await this.timedLoad(job, wallMs);
        if (reload.kind !== 'loaded') {
          if (first === null) return fromLoad(reload);
          break;
        }
      }
      this.fresh = false;
      const wallStart = performance.now();
      const cpuStart = this.inner.isolateCpuMs();
      const result = await this.inner.call(job, test, wallMs);
      const wall = round(performance.now() - wallStart);
      const cpu = round(Math.max(0, this.inner.isolateCpuMs() - cpuStart));
      if (first === null) {
        if (result.kind !== 'finished') return result;
        const parsed = parseFrames(result.text, (payload) => this.inner.describeCrash(payload));
        const outcome = parsed.kind === 'tests' && parsed.tests.length === 1 ? parsed.tests[0]! : null;
        // Only a test that returned carries figures; any other outcome is the test's as it is.
        if (parsed.kind !== 'tests' || outcome?.kind !== 'returned' || outcome.measure === undefined) return result;
        first = { entryPoint: parsed.entryPoint, durationMs: outcome.durationMs, json: outcome.json, measure: outcome.measure, cpuMs: result.cpuMs };
      } else if (result.kind !== 'finished') {
        break;
      }
      first.measure.wallMs.push(wall);
      first.measure.cpuMs.push(cpu);
    }
    if (first === null) return { kind: 'crashed', message: 'no repetition ran' };
    return { kind: 'finished', text: measuredFrames(first.entryPoint, first.durationMs, first.json, first.measure), cpuMs: first.cpuMs };
  }

  progress(): string | null {
    return this.inner.progress();
  }

  discard(): void {
    this.fresh = false;
    this.inner.discard();
  }

  end(): void {
    this.inner.end();
  }

  describeCrash(payload: string): string {
    return this.inner.describeCrash(payload);
  }
}

/** A reload that did not finish, as the call's result (the first load of the same code did). */
function fromLoad(load: Exclude<LoadResult, { kind: 'loaded' }>): CallResult {
  switch (load.kind) {
    case 'timeout':
      return { kind: 'timeout', cpuMs: load.cpuMs, idle: false };
    case 'failed':
      return load.outcome.kind === 'memory' ? { kind: 'memory', cpuMs: 0 } : { kind: 'crashed', message: 'reloading the code failed' };
    case 'load-error':
      return { kind: 'crashed', message: `reloading the code failed: ${load.message}` };
  }
}

/** Times to the microsecond: finer digits are noise, and they would only lengthen the frames. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
