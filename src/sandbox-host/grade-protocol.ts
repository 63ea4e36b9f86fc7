import type { Language } from '../engines/languages.js';
import type { Equality, Tolerance } from '../values/compare.js';
import type { TypeNode } from '../values/type-node.js';
import type { CandidateJob, TestMeasure } from './protocol.js';

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
