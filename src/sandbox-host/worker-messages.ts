/**
 * The messages between the supervisor's pool and a sandbox worker, one JSON
 * document per line. The supervisor sends grade jobs; a worker answers each
 * with its reply, and, for a job sent one test at a time, says which test
 * it starts first (so that a test that kills its worker is known).
 */
import type { GradeJob, GradeReply } from './grade-protocol.js';

export type ToWorker = { type: 'request'; id: number; job: GradeJob };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'started'; id: number; test: number }
  | { type: 'answered'; id: number; reply: GradeReply }
  | { type: 'failed'; id: number; message: string };
