import type { Language } from '../engines/languages.js';
import type { Equality, Tolerance } from '../values/compare.js';
import type { TypeNode } from '../values/type-node.js';
import type { CandidateJob } from './protocol.js';

/**
 * A candidate sent to a sandbox worker process. The expected values go to
 * the worker (trusted host code), which compares there so that the work is
 * spread over every core; they never enter the isolate.
 */
export interface GradeJob extends CandidateJob {
  language: Language;
  /**
   * The wire text of each test's expected value (`encodeWire`, no set tags).
   * Text, not values: a returned value whose wire text is the same passes
   * without being decoded or compared, and a string costs next to nothing
   * to send.
   */
  expected: string[];
  returnType: TypeNode;
  tolerance: Tolerance;
  /** How numbers meet: the rule the language's descriptor names (Python's `==`, strict with --strict-types, JavaScript's rules). */
  equality: Equality;
  /**
   * Set when the job comes again after its worker died of running out of
   * memory, or failed on every attempt (grading/recovery.ts): each test then
   * runs alone, as a job of its own would, and the worker says which test it
   * starts before running it. `settled`: [test index, verdict] of the tests
   * found to kill their worker; they are not run again.
   */
  oneByOne?: { settled: Array<[number, Verdict]> };
  /**
   * Stop at the first test that does not pass: the engine runs the tests
   * one call at a time and is told after each whether to go on; the tests
   * after that one are `skipped`, never run.
   */
  stopOnFirstFailure?: boolean;
  /**
   * A measured run (--grade performance, memory): the engine loads the code
   * (measuring that too), keeps the state right after loading, and runs each
   * test from that state, restored before every test, so that nothing one
   * test leaves behind (a warm cache, memoized answers) lowers the next
   * one's figures. Each test is run `repetitions` times for its times; its
   * cost and memory are the same on every repetition. A passing test's
   * verdict then carries its `measure`, and the reply the loading's.
   */
  measure?: { repetitions: number };
}

/**
 * What a measured run found for one test (or for loading the code).
 * `cost`: the work done, counted by the engine, the same on every machine
 * and every run (docs/METERING.md says what each engine counts); `memory`:
 * the peak of traced allocations in bytes, above what was allocated when the
 * test started; `wallMs` and `cpuMs`: each repetition's times.
 */
export interface TestMeasure {
  cost: number;
  memory: number;
  wallMs: number[];
  cpuMs: number[];
}

/**
 * One test's verdict before it is placed in the scorecard. `actual` is the
 * wire text of the value the candidate returned (capped, see
 * values/bounded.ts): text as it came out of the isolate, so it is not
 * encoded again to cross to the supervisor, and it keeps non-finite floats,
 * which a worker's JSON messages could not.
 */
export type Verdict =
  /**
   * `actual` is left out when the candidate returned exactly the expected
   * value (the same wire text): the supervisor, which holds that value,
   * records it. Most passing tests take this path, so no value is decoded,
   * sent back and read again.
   */
  | { status: 'pass'; actual?: string; durationMs: number; measure?: TestMeasure }
  | { status: 'fail'; actual: string; reason: string; durationMs: number }
  | { status: 'error'; message: string; durationMs: number | null }
  | { status: 'timeout'; durationMs: number }
  | { status: 'memory'; message: string }
  /** Not run: an earlier test did not pass and the job stops at the first failure. */
  | { status: 'skipped' };

export type GradeReply =
  /** `durationMs`: from when the engine started the candidate (not when it was queued) to its last verdict. */
  | {
      kind: 'ran';
      entryPoint: string;
      verdicts: Verdict[];
      durationMs?: number;
      /** A measured run's figures for loading the code (its module-level work). */
      load?: TestMeasure;
    }
  | { kind: 'load-error'; message: string };
