// How long the pool lets an item run before it takes its worker to be stuck;
// the route, recovery and the grading service reckon with the same ceilings.

import type { SandboxLimits } from '../sandbox-host/protocol.js';
import { knownTests, type WorkItem } from './messages.js';

/**
 * Ceiling of reading a file. Reading never runs candidate code, so it is
 * only there for a worker whose machinery stops answering.
 */
const READ_CEILING_MS = 60_000;

/**
 * The wall-clock ceiling of an item, from the tests it runs (one, for an
 * item run one test at a time); a file read has its own, and a self-check,
 * once its worker reports the tests of the problem it read, that plus the
 * ceiling of that many.
 */
export function ceilingOf(item: WorkItem, limits: SandboxLimits, reportedTests = 0): number {
  const tests = knownTests(item);
  if (tests !== null) {
    const oneByOne = (item.kind === 'grade' || item.kind === 'job') && item.oneByOne !== undefined;
    return ceilingForTests(oneByOne ? 1 : tests, item.kind === 'job' ? item.job.limits : limits);
  }
  if (item.kind === 'self-check' && reportedTests > 0) return READ_CEILING_MS + ceilingForTests(reportedTests, limits);
  return READ_CEILING_MS;
}

/**
 * The ceiling of a candidate with this many tests under these limits: every
 * test may use its whole time limit twice (a timed-out batch of tests is
 * replayed from the interrupted test), plus start-up.
 */
export function ceilingForTests(tests: number, limits: SandboxLimits): number {
  return (tests + 1) * (limits.timeoutMs + 250) * 2 + 10_000;
}
