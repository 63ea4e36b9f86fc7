/**
 * A measured run of the Python engine (CandidateJob.measure,
 * docs/METERING.md), on a lane of metered interpreters. The loading of the
 * code runs twice, from the booted state: under tracemalloc for its memory,
 * then counted, and the state right after the counted load is kept. Every
 * pass of every test starts from that state, written back before it:
 * `repetitions` counted passes (the cost, and the times), then one traced
 * pass (the memory). tracemalloc is not on while counting, so its own
 * bookkeeping is no part of a cost.
 */
import type { CandidateJob, TestMeasure } from '../../sandbox-host/protocol.js';
import type { CallResult, LoadResult } from '../engine.js';
import { frame, measuredFrame } from '../frames.js';
import { splitFigure, type CallResult as InterpreterResult, type Interpreter, type MeasurePass } from './boot.js';
import { RESET_TIMEOUT_MS, type Lane } from './lane.js';
import { readPrepare } from './prepare-result.js';

/**
 * The wall-clock limit of a traced pass, as a multiple of the test's: the
 * test already ended within its limit in the counted pass, and tracemalloc
 * slows allocating code down.
 */
const TRACED_STRETCH = 2;

/** The state a lane's measured run keeps between the driver's calls. */
export interface MeasuredState {
  /** Frames of the tests finished in the current call (read after a timeout). */
  frames: string[];
  /** Nothing ran since the counted load: the first test needs no restore. */
  pristine: boolean;
}

export function newMeasuredState(): MeasuredState {
  return { frames: [], pristine: false };
}

/** Loads the code: traced, then counted; the outcome carries the load's measure when both passes agree. */
export async function measuredLoad(lane: Lane, state: MeasuredState, job: CandidateJob, wallMs: number): Promise<LoadResult> {
  state.pristine = false;
  const { code, functionName, limits } = job;
  let interpreter = await lane.fresh();
  const traced = await interpreter.prepare(code, functionName, limits.seed, limits.memoryMb, wallMs * TRACED_STRETCH, 'traced');
  const tracedSplit = traced.kind === 'ok' ? splitFigure(traced.text) : null;
  // The same code fails to load the same way counted: no need to run it again.
  if (traced.kind === 'ok' && tracedSplit?.rest.startsWith('load-error ') === true) return readPrepare({ ...traced, text: tracedSplit.rest });
  if (traced.kind !== 'ok') lane.discard();
  interpreter = await lane.fresh();
  const start = performance.now();
  const counted = await interpreter.prepare(code, functionName, limits.seed, limits.memoryMb, wallMs, 'counted');
  const wall = performance.now() - start;
  if (counted.kind !== 'ok') return readPrepare(counted);
  const split = splitFigure(counted.text);
  const result = readPrepare(split === null ? counted : { ...counted, text: split.rest });
  if (result.kind !== 'loaded') return result;
  state.pristine = true;
  const memory = tracedSplit !== null && tracedSplit.rest === split?.rest ? tracedSplit.figure : null;
  if (split?.figure != null && memory !== null) {
    return { ...result, measure: { cost: split.figure, memory, wallMs: [wall], cpuMs: [counted.cpuMs] } };
  }
  return result;
}

/** One pass of one test, from the state after loading. */
type Pass =
  /** The call answered: its figure (null when none), its outcome as end_test writes it, and its times. */
  | { kind: 'ran'; figure: number | null; out: string; wallMs: number; cpuMs: number; sleptMs: number }
  /** The interpreter failed during the call: the frame kind (`c` or `M`) and message. */
  | { kind: 'lost'; out: string; wallMs: number }
  /** The call did not answer (timeout, out of isolate memory, crash). */
  | { kind: 'failed'; result: Exclude<InterpreterResult, { kind: 'ok' }> };

async function runPass(
  interpreter: Interpreter,
  state: MeasuredState,
  test: string,
  pass: MeasurePass,
  wallMs: number,
): Promise<{ exact: boolean; pass: Pass }> {
  let exact = true;
  if (state.pristine) state.pristine = false;
  else {
    const restored = await interpreter.restoreLoaded(RESET_TIMEOUT_MS);
    exact = restored.kind === 'ok' && restored.text === 'clean';
  }
  const start = performance.now();
  const result = await interpreter.measureTest(test, pass, wallMs);
  const wall = performance.now() - start;
  if (result.kind !== 'ok') return { exact, pass: { kind: 'failed', result } };
  const split = splitFigure(result.text);
  if (split === null) return { exact, pass: { kind: 'lost', out: result.text, wallMs: wall } };
  return { exact, pass: { kind: 'ran', figure: split.figure, out: split.rest, wallMs: wall, cpuMs: result.cpuMs, sleptMs: result.sleptMs ?? 0 } };
}

/**
 * Runs `tests` measured, one after another, each from the state after
 * loading. A test's outcome is its first counted pass's, as in a run that
 * is not measured; it carries a measure only when every pass started from
 * an exact restore and answered the same, with the same count.
 */
export async function measuredTests(lane: Lane, state: MeasuredState, job: CandidateJob, tests: readonly string[], wallMs: number): Promise<CallResult> {
  const repetitions = Math.max(1, Math.floor(job.measure?.repetitions ?? 1));
  state.frames = [];
  let cpuMs = 0;
  let sleptMs = 0;
  const finished = (): CallResult => ({ kind: 'finished', text: state.frames.join(''), cpuMs, sleptMs });
  // After the verdict of a test is known, a later pass that did not answer
  // leaves the interpreter unusable: answered as a timeout whose frames
  // hold that test, the driver keeps them and loads the code afresh.
  const abandon = (): CallResult => {
    lane.discard();
    return { kind: 'timeout', cpuMs, idle: false, sleptMs };
  };
  for (const test of tests) {
    const interpreter = lane.interpreter;
    if (interpreter === null) return { kind: 'crashed', message: 'the interpreter was already disposed' };
    const first = await runPass(interpreter, state, test, 'counted', wallMs);
    const pass = first.pass;
    if (pass.kind === 'failed') return failedCall(pass.result, cpuMs, sleptMs);
    if (pass.kind === 'lost') {
      state.frames.push(frame(pass.out[0] ?? 'c', pass.wallMs, pass.out.slice(1)));
      return finished();
    }
    cpuMs += pass.cpuMs;
    sleptMs += pass.sleptMs;
    const plain = frame(pass.out[0] ?? 't', pass.wallMs, pass.out.slice(1));
    if (!pass.out.startsWith('r') || pass.figure === null || !first.exact) {
      state.frames.push(plain);
      continue;
    }
    const measure: TestMeasure = { cost: pass.figure, memory: 0, wallMs: [pass.wallMs], cpuMs: [pass.cpuMs] };
    let agreed = true;
    for (let r = 1; r <= repetitions && agreed; r++) {
      const traced = r === repetitions;
      const again = await runPass(interpreter, state, test, traced ? 'traced' : 'counted', traced ? wallMs * TRACED_STRETCH : wallMs);
      if (again.pass.kind !== 'ran') {
        state.frames.push(plain);
        return again.pass.kind === 'failed' && again.pass.result.kind === 'crashed' ? again.pass.result : abandon();
      }
      agreed = again.exact && again.pass.out === pass.out && again.pass.figure !== null;
      if (!agreed) break;
      if (traced) measure.memory = again.pass.figure ?? 0;
      else {
        agreed = again.pass.figure === pass.figure;
        measure.wallMs.push(again.pass.wallMs);
        measure.cpuMs.push(again.pass.cpuMs);
      }
    }
    state.frames.push(agreed ? measuredFrame(pass.wallMs, pass.out.slice(1), measure) : plain);
  }
  return finished();
}

function failedCall(result: Exclude<InterpreterResult, { kind: 'ok' }>, cpuMs: number, sleptMs: number): CallResult {
  switch (result.kind) {
    case 'timeout':
      return { kind: 'timeout', cpuMs: result.cpuMs, idle: false, sleptMs: result.sleptMs };
    case 'memory':
      return { kind: 'memory', cpuMs, sleptMs: sleptMs + (result.sleptMs ?? 0) };
    case 'crashed':
      return result;
  }
}
