/**
 * The control loop every engine shares: how a candidate's tests go into a
 * sandbox and how the run recovers when a limit interrupts it. Languages
 * differ only in their `Session` (engine.ts).
 *
 * - All the tests go into the sandbox in one call; the loop falls back to
 *   smaller calls only to say which test hit a limit.
 * - A call interrupted at its time limit: the tests it finished are read
 *   back, and the one that was running gets `timeout` only if it had the
 *   call to itself from the start and the timeout was the candidate's (see
 *   `ownTimeout`). Otherwise it runs again as the first test of a new call;
 *   when the time went to other processes, alone, in a fresh sandbox (what
 *   its interrupted run left there, a half-built structure or a pending
 *   promise chain, must not count against it), with a stretched wall clock.
 * - The sandbox ran out of heap: which test of a batch did it is unknown,
 *   so the rest are replayed one per call in fresh sandboxes.
 * - Anything that ends the candidate early fills the tests left.
 * - With a limit per test (`limits.testTimeoutsMs`), each call runs one
 *   test under that test's limit, so that a slow test cannot spend the
 *   budget of a fast one; loading keeps `limits.timeoutMs`.
 */
import type { CandidateJob, CandidateOutcome, StopAfter, TestMeasure, TestOutcome } from '../sandbox-host/protocol.js';
import type { Session } from './engine.js';
import { parseFrames } from './frames.js';

/**
 * A timeout is the candidate's only when its call kept this process's CPU
 * busy for at least this share of the limit. isolated-vm's limit is
 * wall-clock time, and a machine with no core to spare (or a process
 * stopped for a while) lets the wall clock run out while the candidate
 * hardly ran: such a test runs again, at most OVERLOAD_RETRIES times per
 * candidate, after which the limit stands.
 */
const CPU_SHARE_FOR_TIMEOUT = 0.75;

/**
 * The time a load or call used of its limit: CPU, plus time the candidate
 * chose to sleep (a sleeping candidate leaves the CPU idle, like a busy
 * machine does, but the time is its own).
 */
function usedMs(result: { cpuMs: number; sleptMs?: number }): number {
  return result.cpuMs + (result.sleptMs ?? 0);
}
const OVERLOAD_RETRIES = 2;
/**
 * A test run again after a timeout that was not its own runs alone, with
 * this many times the wall-clock limit, so that it gets its CPU on a busy
 * machine. If it uses more CPU than the limit it gets `timeout`, however
 * the call ends: on a machine with a core to spare the limit would have
 * stopped it first.
 */
const WALL_STRETCH = 4;

export const MEMORY_MESSAGE = 'exceeded the memory limit';

/**
 * Runs every test of `job` through `session`; one outcome per test, in
 * order. With `stop`, each call runs one test (in the same loaded sandbox,
 * as a batch would), and the run ends after the first test that `stop`
 * says to stop at: the outcomes end with that test.
 */
export async function runBatches(session: Session, job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome> {
  const n = job.tests.length;
  /** Outcomes already shown to `stop`. */
  let asked = 0;
  let hasStopped = false;
  /** Whether `stop` said to stop: the outcomes are cut after that test. */
  const stopped = (outcomes: TestOutcome[]): boolean => {
    if (stop === undefined || hasStopped) return hasStopped;
    for (; asked < outcomes.length; asked++) {
      if (stop(asked, outcomes[asked]!)) {
        outcomes.length = asked + 1;
        hasStopped = true;
        return true;
      }
    }
    return false;
  };
  const loadLimitMs = job.limits.timeoutMs;
  const perTest = job.limits.testTimeoutsMs;
  /** The wall-clock limit of the test at `index` (a call runs one test whenever the limits differ per test). */
  const limitOf = (index: number): number => perTest?.[index] ?? loadLimitMs;
  const timedOutAt = (index: number): TestOutcome => ({ kind: 'timeout', durationMs: limitOf(index) });
  /** Code whose loading ran out of time: every test gets the loading's limit, which is what stopped it. */
  const loadTimedOut: TestOutcome = { kind: 'timeout', durationMs: loadLimitMs };
  /** The job as a call of the test at `index` sees it: the engines read a call's limit (CPU clocks, budgets) from `limits.timeoutMs`. */
  const jobAt = (index: number): CandidateJob => (perTest === undefined ? job : { ...job, limits: { ...job.limits, timeoutMs: limitOf(index) } });
  const outcomes: TestOutcome[] = [];
  let entryPoint = '';
  /** A measured run's figures for the last load that ran to the end. */
  let loadMeasure: TestMeasure | undefined;
  /** After a memory error in a batch: every later call runs one test. */
  let oneAtATime = false;
  /** The top-level code has run to the end once (so a later load is a reload). */
  let loaded = false;
  let retries = 0;
  /** A memory error in a sandbox earlier candidates used has been given a fresh sandbox. */
  let retriedAlone = false;
  /** After a timeout that was the machine's: the next load or call runs alone, with a stretched wall clock. */
  let stretched = false;
  /** Whether an interrupted call was the candidate's: it used its share of CPU (or slept), it sat idle, or the retries are spent. */
  const ownTimeout = (used: number, idle: boolean, limitMs: number): boolean => {
    if (idle || used >= limitMs * CPU_SHARE_FOR_TIMEOUT || retries >= OVERLOAD_RETRIES) return true;
    retries++;
    stretched = true;
    return false;
  };

  // A candidate with no test is still loaded, so that code that cannot run says so.
  while ((outcomes.length < n || !loaded) && !stopped(outcomes)) {
    const stretchLoad = stretched && !loaded;
    if (stretchLoad) stretched = false;
    const load = await session.load(job, stretchLoad ? loadLimitMs * WALL_STRETCH : loadLimitMs);
    if (load.kind === 'timeout') {
      session.discard();
      if (ownTimeout(usedMs(load), false, loadLimitMs)) {
        fill(outcomes, n, loadTimedOut);
        break;
      }
      continue;
    }
    if (load.kind === 'load-error') {
      if (outcomes.length === 0) {
        session.end();
        return { kind: 'load-error', message: load.message };
      }
      fill(outcomes, n, { kind: 'threw', message: load.message, durationMs: 0 });
      break;
    }
    if (load.kind === 'failed') {
      if (load.lost) session.discard();
      fill(outcomes, n, load.outcome);
      break;
    }
    if (stretchLoad && usedMs(load) > loadLimitMs) {
      // More CPU (and sleep) than the limit is the candidate's timeout, however long the wall clock allowed.
      session.discard();
      fill(outcomes, n, loadTimedOut);
      break;
    }
    loaded = true;
    if (load.entryPoint !== '') entryPoint = load.entryPoint;
    if (load.measure !== undefined) loadMeasure = load.measure;

    let usable = true;
    while (usable && outcomes.length < n && !stopped(outcomes)) {
      const from = outcomes.length;
      const alone = stretched;
      stretched = false;
      const single = oneAtATime || alone || stop !== undefined || perTest !== undefined;
      const slice = single ? job.tests.slice(from, from + 1) : job.tests.slice(from);
      const limitMs = limitOf(from);
      const call = await session.call(jobAt(from), slice, alone ? limitMs * WALL_STRETCH : limitMs);
      if (alone && call.kind !== 'crashed' && usedMs(call) > limitMs) {
        // More CPU (and sleep) than the limit is the candidate's timeout, however long the wall clock allowed and however the call ended.
        outcomes.push(timedOutAt(from));
        session.discard();
        usable = false;
        continue;
      }
      switch (call.kind) {
        case 'finished': {
          const parsed = parseFrames(call.text, (payload) => session.describeCrash(payload));
          if (parsed.kind === 'missing-entry') {
            session.end();
            return { kind: 'load-error', message: parsed.message };
          }
          if (parsed.kind === 'malformed') {
            fill(outcomes, n, { kind: 'threw', message: 'the sandbox returned malformed results', durationMs: 0 });
            session.discard();
            usable = false;
            break;
          }
          if (parsed.entryPoint !== '') entryPoint = parsed.entryPoint;
          const taken = append(outcomes, parsed.tests, slice.length);
          if (parsed.lost && taken === parsed.tests.length) {
            session.discard();
            usable = false;
          } else if (taken === 0) {
            // Not one test answered: only a broken harness does that, and asking again would never end.
            fill(outcomes, n, { kind: 'threw', message: 'the sandbox returned no result', durationMs: 0 });
            session.discard();
            usable = false;
          }
          break;
        }
        case 'timeout': {
          const text = session.progress();
          const parsed = text === null ? null : parseFrames(text, (payload) => session.describeCrash(payload));
          let done = 0;
          if (parsed?.kind === 'tests') {
            if (parsed.entryPoint !== '') entryPoint = parsed.entryPoint;
            // A test whose frame says the sandbox failed did not finish.
            done = append(outcomes, parsed.lost ? parsed.tests.slice(0, -1) : parsed.tests, slice.length);
          }
          // The test that was running when time ran out had the whole budget
          // only if it was the first of this call.
          if (done === 0 && ownTimeout(usedMs(call), call.idle, limitMs)) outcomes.push(timedOutAt(from));
          // A test run again because of the machine runs in a fresh sandbox.
          if (stretched || call.idle || parsed?.kind !== 'tests' || parsed.lost || !session.survivesTimeout) {
            session.discard();
            usable = false;
          }
          break;
        }
        case 'memory':
          session.discard();
          usable = false;
          // Once, the test goes again in a sandbox of its own: the same code gets the same verdict whatever ran before it.
          if (call.shared === true && !retriedAlone) {
            retriedAlone = true;
            oneAtATime = true;
            break;
          }
          if (slice.length === 1) outcomes.push({ kind: 'memory', message: MEMORY_MESSAGE });
          oneAtATime = true;
          break;
        case 'crashed':
          session.discard();
          usable = false;
          outcomes.push({ kind: 'threw', message: `sandbox failure: ${call.message}`, durationMs: 0 });
          break;
      }
    }
    if (n === 0) break;
  }

  stopped(outcomes);
  session.end();
  return loadMeasure === undefined ? { kind: 'ran', tests: outcomes, entryPoint } : { kind: 'ran', tests: outcomes, entryPoint, load: loadMeasure };
}

/** Appends at most `max` of `tests` (no spread: 100k+ tests overflow the stack); how many it took. */
function append(outcomes: TestOutcome[], tests: readonly TestOutcome[], max: number): number {
  const count = Math.min(tests.length, max);
  for (let i = 0; i < count; i++) outcomes.push(tests[i]!);
  return count;
}

function fill(outcomes: TestOutcome[], n: number, outcome: TestOutcome): void {
  while (outcomes.length < n) outcomes.push(outcome);
}
