/**
 * A measured run of the Python engine (CandidateJob.measure,
 * docs/METERING.md), on a lane of metered interpreters. The loading of the
 * code runs once from the booted state, counted and under tracemalloc in
 * the same pass, and the state right after it is kept. Every pass of every
 * test starts from that state, written back before it, and is counted and
 * traced too: `repetitions` passes, the first giving the verdict, all
 * giving the same figures. The metered module leaves tracemalloc's own
 * instructions uncounted (meter/tracemalloc.ts): a count is the
 * candidate's work, done with tracemalloc's records beside its blocks in
 * the allocator's heap.
 */
import type { CandidateJob, TestMeasure } from '../../sandbox-host/protocol.js';
import type { CallResult, LoadResult } from '../engine.js';
import { frame, measuredFrame } from '../frames.js';
import { splitFigure, type CallResult as InterpreterResult, type Interpreter, type MeasurePass } from './boot.js';
import { RESET_TIMEOUT_MS, type Lane } from './lane.js';
import { readPrepare } from './prepare-result.js';

/**
 * The wall-clock limit of a traced pass, as a multiple of the test's:
 * tracemalloc slows allocating code down. A first pass that answers past
 * the test's own limit is run again untraced for the verdict, so that a
 * measured run fails no test a normal run passes, nor the other way round.
 */
const TRACED_STRETCH = 2;

/** The state a lane's measured run keeps between the driver's calls. */
export interface MeasuredState {
  /** Frames of the tests finished in the current call (read after a timeout). */
  frames: string[];
  /** Nothing ran since the load: the first test needs no restore. */
  pristine: boolean;
  /** The state after loading is a traced load's: the tests can be measured. */
  traced: boolean;
}

export function newMeasuredState(): MeasuredState {
  return { frames: [], pristine: false, traced: false };
}

/** Loads the code, counted and traced; the outcome carries the load's measure when the pass answered within the limit. */
export async function measuredLoad(lane: Lane, state: MeasuredState, job: CandidateJob, wallMs: number): Promise<LoadResult> {
  state.pristine = false;
  state.traced = false;
  const { code, functionName, limits } = job;
  const load = async (pass: MeasurePass, timeoutMs: number): Promise<{ result: InterpreterResult; wall: number }> => {
    const interpreter = await lane.fresh();
    const start = performance.now();
    const result = await interpreter.prepare(code, functionName, limits.seed, limits.memoryMb, timeoutMs, pass);
    return { result, wall: performance.now() - start };
  };
  const traced = await load('both', wallMs * TRACED_STRETCH);
  if (traced.result.kind === 'ok' && traced.wall <= wallMs) {
    const split = splitFigure(traced.result.text);
    const result = readPrepare(split === null ? traced.result : { ...traced.result, text: split.rest });
    if (result.kind !== 'loaded') return result;
    state.pristine = true;
    state.traced = true;
    if (split?.figure == null || split.peak === null) return result;
    return { ...result, measure: { cost: split.figure, memory: split.peak, wallMs: [traced.wall], cpuMs: [traced.result.cpuMs] } };
  }
  // Past the limit under tracemalloc: the verdict is an untraced load's,
  // and its tests, from a state no traced load left, are not measured.
  if (traced.result.kind !== 'ok') lane.discard();
  const counted = await load('counted', wallMs);
  if (counted.result.kind !== 'ok') return readPrepare(counted.result);
  const split = splitFigure(counted.result.text);
  const result = readPrepare(split === null ? counted.result : { ...counted.result, text: split.rest });
  if (result.kind === 'loaded') state.pristine = true;
  return result;
}

/** One pass of one test, from the state after loading. */
type Pass =
  /** The call answered: its figure (null when none), its outcome as end_test writes it, and its times. */
  | { kind: 'ran'; figure: number | null; peak: number | null; out: string; wallMs: number; cpuMs: number; sleptMs: number }
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
  return {
    exact,
    pass: { kind: 'ran', figure: split.figure, peak: split.peak, out: split.rest, wallMs: wall, cpuMs: result.cpuMs, sleptMs: result.sleptMs ?? 0 },
  };
}

/**
 * Runs `tests` measured, one after another, each from the state after
 * loading. A test's outcome is its first pass's, as in a run that is not
 * measured (an untraced pass's when the traced one took longer than the
 * test's limit); it carries a measure only when every pass started from an
 * exact restore and answered the same, with the same count.
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
    const traced = await runPass(interpreter, state, test, 'both', wallMs * TRACED_STRETCH);
    let first = traced;
    if (traced.pass.kind === 'ran' && traced.pass.wallMs > wallMs) first = await runPass(interpreter, state, test, 'counted', wallMs);
    const pass = first.pass;
    if (pass.kind === 'failed') return failedCall(pass.result, cpuMs, sleptMs);
    if (pass.kind === 'lost') {
      state.frames.push(frame(pass.out[0] ?? 'c', pass.wallMs, pass.out.slice(1)));
      return finished();
    }
    cpuMs += pass.cpuMs;
    sleptMs += pass.sleptMs;
    const plain = frame(pass.out[0] ?? 't', pass.wallMs, pass.out.slice(1));
    const figures = traced.pass;
    if (figures.kind !== 'ran' || !pass.out.startsWith('r') || figures.figure === null || figures.peak === null) {
      state.frames.push(plain);
      continue;
    }
    const measure: TestMeasure = { cost: figures.figure, memory: figures.peak, wallMs: [figures.wallMs], cpuMs: [figures.cpuMs] };
    let agreed = state.traced && traced.exact && first.exact && figures.out === pass.out;
    for (let r = 1; r < repetitions && agreed; r++) {
      const again = await runPass(interpreter, state, test, 'both', wallMs * TRACED_STRETCH);
      if (again.pass.kind !== 'ran') {
        state.frames.push(plain);
        return again.pass.kind === 'failed' && again.pass.result.kind === 'crashed' ? again.pass.result : abandon();
      }
      agreed = again.exact && again.pass.out === pass.out && again.pass.figure === figures.figure && again.pass.peak === figures.peak;
      measure.wallMs.push(again.pass.wallMs);
      measure.cpuMs.push(again.pass.cpuMs);
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
