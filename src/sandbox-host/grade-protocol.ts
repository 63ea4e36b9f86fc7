import type { Tolerance } from '../values/compare.js';
import type { TypeNode, Value } from '../values/type-node.js';
import type { CandidateJob } from './protocol.js';

/**
 * A candidate sent to a sandbox worker process. The expected values go to
 * the worker (trusted host code), which compares there so that the work is
 * spread over every core; they never enter the isolate.
 */
export interface GradeJob extends CandidateJob {
  expected: Value[];
  returnType: TypeNode;
  tolerance: Tolerance;
}

/** One test's verdict before it is placed in the scorecard. */
export type Verdict =
  | { status: 'pass'; actual: Value; durationMs: number }
  | { status: 'fail'; actual: Value; reason: string; durationMs: number }
  | { status: 'error'; message: string; durationMs: number | null }
  | { status: 'timeout'; durationMs: number }
  | { status: 'memory'; message: string };

export type GradeReply =
  | { kind: 'ran'; entryPoint: string; verdicts: Verdict[] }
  | { kind: 'load-error'; message: string };

export type ToWorker = { type: 'grade'; id: number; job: GradeJob };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'graded'; id: number; reply: GradeReply }
  | { type: 'failed'; id: number; message: string };
