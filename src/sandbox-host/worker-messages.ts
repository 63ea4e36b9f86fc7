/**
 * The messages between the supervisor's pool and a sandbox worker, one JSON
 * document per line. Kept apart from the grade job's own types
 * (grade-protocol.ts), which the runner's grading code uses, because the
 * worker's other requests carry the runner's task types: this way the
 * imports between the two stay free of cycles.
 */
import type { CandidateAnswer, CandidateTask, LoadAnswer } from '../runner/worker-tasks.js';
import type { GradeJob, GradeReply } from './grade-protocol.js';

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
