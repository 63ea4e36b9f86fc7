// How long the pool lets an item run before it takes its worker to be stuck;
// the route, recovery and the grading service reckon with the same ceilings.

import type { CandidateJob, SandboxLimits } from '../sandbox-host/protocol.js';
import { knownTests, type WorkItem } from './messages.js';

/**
 * Ceiling of reading a file. Reading never runs candidate code, so it is
 * only there for a worker whose machinery stops answering.
 */
const READ_CEILING_MS = 60_000;

/** A measured run's request (`CandidateJob.measure`), or none. */
export type Measure = CandidateJob['measure'];

/**
 * The wall-clock ceiling of an item, from the tests it runs (one, for an
 * item run one test at a time); a file read has its own, and a self-check,
 * once its worker reports the tests of the problem it read, that plus the
 * ceiling of that many. `measure` is the run's measured request for the
 * items that build their job in the worker (`grade`, `self-check`); a
 * built job carries its own.
 */
export function ceilingOf(item: WorkItem, limits: SandboxLimits, reportedTests = 0, measure?: Measure): number {
  const tests = knownTests(item);
  if (tests !== null) {
    const oneByOne = (item.kind === 'grade' || item.kind === 'job') && item.oneByOne !== undefined;
    if (item.kind === 'job') return ceilingForTests(oneByOne ? 1 : tests, item.job.limits, item.job.measure);
    // A candidate of a problem with a limit per test (--timeout-factor) carries them.
    const own = item.kind === 'grade' && item.limits !== undefined ? { ...limits, testTimeoutsMs: item.limits.testsMs } : limits;
    return ceilingForTests(oneByOne ? 1 : tests, own, measure);
  }
  if (item.kind === 'self-check' && reportedTests > 0) return READ_CEILING_MS + ceilingForTests(reportedTests, limits, measure);
  return READ_CEILING_MS;
}

/**
 * The ceiling of a candidate with this many tests under these limits: every
 * test may use its whole time limit twice (a timed-out batch of tests is
 * replayed from the interrupted test), plus the loading's, plus start-up.
 * A measured run runs each test (and the loading) `passesOf(measure)`
 * times' worth of its limit. With a limit per test, the `tests` largest of
 * them count (one test at a time: the largest), and tests past those the
 * limits name count `timeoutMs` each.
 */
export function ceilingForTests(tests: number, limits: SandboxLimits, measure?: Measure): number {
  return (testsMs(tests, limits) + limits.timeoutMs + 250) * passesOf(measure) * 2 + 10_000;
}

/** The time `tests` tests may take at most, a margin for each included. */
function testsMs(tests: number, limits: SandboxLimits): number {
  const perTest = limits.testTimeoutsMs;
  if (perTest === undefined) return tests * (limits.timeoutMs + 250);
  const largest = [...perTest].sort((a, b) => b - a).slice(0, tests);
  return largest.reduce((sum, ms) => sum + ms, 0) + (tests - largest.length) * limits.timeoutMs + tests * 250;
}

/**
 * How many test limits one test of a measured run may take: the Python
 * engine's passes run under tracemalloc with twice the limit each, and a
 * first pass past the limit is run again untraced for the verdict
 * (src/engines/python/measured.ts); the JavaScript engine runs each
 * repetition in a context of its own, the code loaded again, which this
 * bound covers too. 1 for a run that is not measured.
 */
export function passesOf(measure: Measure): number {
  if (measure === undefined) return 1;
  const repetitions = Math.max(1, Math.floor(measure.repetitions));
  return 2 * repetitions + 1;
}
