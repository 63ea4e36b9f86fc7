// What a call hands the grader and gets back, and why it may be refused:
// the contract a library caller and the HTTP routes share.

import type { CandidateEfficiency } from '../report/efficiency.js';
import type { CandidateResult } from '../report/scorecard.js';
import type { GradingOptions } from './grader-options.js';

/** One candidate: its code, and optionally an id (given back with its result), the language it is in (detected otherwise) and the prompt it answers. */
export interface CandidateInput {
  id?: string | null;
  code: string;
  language?: string | null;
  /**
   * The `prompt_id` of the problem's prompt the code answers, as a
   * submission's prompt id: a genericized prompt's `function` is then the
   * function called, and a completion that is a function's body alone is
   * joined to that prompt's code. Unnamed, the code is taken as an answer
   * to any of the prompts, as a submission that names none.
   */
  prompt_id?: string | null;
}

/** Options of one call. */
export interface GradeCallOptions extends GradingOptions {
  /** Aborting drops the call's candidates still waiting for a worker; the call rejects with `GradeCancelled`. */
  signal?: AbortSignal;
  /** Hears each candidate's result as soon as it is graded, in the order they finish. */
  onResult?: (result: GradedCandidate) => void;
}

/**
 * One candidate's result: the scorecard's record of it (the same fields,
 * status words and value records), with its place in the call and its id
 * in place of where it came from.
 */
export type GradedCandidate = Pick<
  CandidateResult,
  | 'problem_id'
  | 'prompt_id'
  | 'language'
  | 'status'
  | 'error'
  | 'entry_point'
  | 'passed'
  | 'total'
  | 'score'
  | 'duration_ms'
  | 'measure'
  | 'measure_error'
  | 'tests'
> & {
  /** Its position in the call's candidates. */
  index: number;
  id: string | null;
  /** Only with `grade` performance or memory: its scores against the problem's optimal solution, graded in the same call. */
  efficiency?: CallEfficiency;
};

/** A candidate's efficiency scores in a call: the scorecard's per-candidate scores, without its place in a run. */
export type CallEfficiency = Omit<CandidateEfficiency, 'index' | 'problem_id' | 'model_id'>;

/** Why a call was refused before anything ran: what the service answers with a 4xx. */
export type RefusalReason =
  | 'unknown-problem'
  | 'invalid-problem'
  | 'no-candidates'
  | 'too-many-candidates'
  | 'invalid-candidate'
  | 'unsupported-language'
  | 'unknown-prompt'
  | 'invalid-options';

/** A call that cannot be graded as asked; `message` is one line. */
export class GradeRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    /** Every reason, for an invalid problem. */
    readonly errors: readonly string[] = [message],
  ) {
    super(message);
    this.name = 'GradeRefused';
  }
}

/** More candidates are waiting than the grader admits: try again later. */
export class QueueFull extends Error {
  constructor(
    readonly queued: number,
    readonly maxQueue: number,
    /** A hint for when to try again. */
    readonly retryAfterSeconds: number,
  ) {
    super(`the queue is full (${queued} candidates waiting, at most ${maxQueue})`);
    this.name = 'QueueFull';
  }
}

/** The grader is closing or closed. */
export class GraderClosed extends Error {
  constructor() {
    super('the grader is closing');
    this.name = 'GraderClosed';
  }
}

/** The call's signal was aborted before every candidate was graded. */
export class GradeCancelled extends Error {
  constructor() {
    super('the grading call was cancelled');
    this.name = 'AbortError';
  }
}

/** A call admitted: its results, in the candidates' order, once all are graded. */
export interface GradeCall {
  readonly results: Promise<GradedCandidate[]>;
}

/** What `GET /v1/problems` and `grader.problems()` list. */
export interface ProblemListing {
  problems: Array<{ id: string; tests: number; tags: string[] }>;
  invalid: Array<{ file: string; id: string | null; errors: string[] }>;
}
