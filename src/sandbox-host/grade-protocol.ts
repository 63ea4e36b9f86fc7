import type { Equality, Tolerance } from '../values/compare.js';
import type { TypeNode } from '../values/type-node.js';
import type { CandidateAnswer, CandidateTask, LoadAnswer } from '../runner/worker-tasks.js';
import type { CandidateJob } from './protocol.js';

/**
 * A candidate sent to a sandbox worker process. The expected values go to
 * the worker (trusted host code), which compares there so that the work is
 * spread over every core; they never enter the isolate.
 */
export interface GradeJob extends CandidateJob {
  /**
   * The wire text of each test's expected value (`encodeWire`, no set tags).
   * Text, not values: a returned value whose wire text is the same passes
   * without being decoded or compared, and a string costs next to nothing
   * to send.
   */
  expected: string[];
  returnType: TypeNode;
  tolerance: Tolerance;
  /** How numbers meet: Python's `==` for Python candidates, strict with --strict-types, JavaScript's rules. */
  equality: Equality;
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
  | { status: 'pass'; actual?: string; durationMs: number }
  | { status: 'fail'; actual: string; reason: string; durationMs: number }
  | { status: 'error'; message: string; durationMs: number | null }
  | { status: 'timeout'; durationMs: number }
  | { status: 'memory'; message: string };

export type GradeReply =
  /** `durationMs`: from when the engine started the candidate (not when it was queued) to its last verdict. */
  | { kind: 'ran'; entryPoint: string; verdicts: Verdict[]; durationMs?: number }
  | { kind: 'load-error'; message: string };

/**
 * What a worker can be asked to do. `grade` runs code that is already
 * prepared; `load` and `candidate` hand a worker the rest of a run's work
 * for the files the supervisor leaves to it (reading and checking them,
 * preparing code, building the scorecard records). Their payloads are
 * defined by the runner (src/runner/worker-tasks.ts), which owns what they mean.
 */
export type WorkerRequest =
  | { kind: 'grade'; job: GradeJob }
  | { kind: 'load'; files: string[] }
  | { kind: 'candidate'; task: CandidateTask };

/** The answer to each kind of request. */
export interface WorkerAnswers {
  grade: GradeReply;
  /** One per file, in order. */
  load: LoadAnswer[];
  candidate: CandidateAnswer;
}

export type WorkerAnswer = WorkerAnswers[keyof WorkerAnswers];

export type ToWorker = { type: 'request'; id: number; request: WorkerRequest };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'answered'; id: number; answer: WorkerAnswer }
  | { type: 'failed'; id: number; message: string };
