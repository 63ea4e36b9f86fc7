/**
 * The one route every candidate takes from the plan: its job is built here
 * (grading/), sent to a sandbox worker through the pool (sent again after a
 * worker fault, grading/recovery.ts), and its results go to `record` the
 * moment they are back. The plan adds candidates as it knows them: a
 * self-check's as each problem file is read, otherwise once the run is
 * planned. What is in flight is bounded by tests, since each candidate
 * holds its problem until it is graded.
 */
import { isInvalidProblemFile, type InvalidProblemFile, type PreparedProblem } from '../problems/prepared.js';
import type { CandidateResult } from '../report/scorecard.js';
import { problemChangedMessage, type Candidate } from '../grading/candidate.js';
import { gradeCandidate, internalErrorResults, unavailableResults, type GradeOptions } from '../grading/grade.js';
import type { GradesJobs } from '../grading/recovery.js';

/**
 * Tests of the candidates in flight (their problems held until they are
 * graded): past this, the plan waits before adding more, so the
 * supervisor's memory stays bounded however large the run.
 */
export const IN_FLIGHT_TESTS = 20_000;

export interface ScheduleOptions {
  pool: GradesJobs & { close(): Promise<void> };
  grade: GradeOptions;
  /** Takes a graded candidate's results (writes them to the run log); what it throws ends the run. */
  record: (candidate: Candidate, results: CandidateResult[]) => void;
  /** True once the run is interrupted: nothing more is graded or recorded. */
  interrupted: () => boolean;
}

export class Schedule {
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly roomWaiters: Array<() => void> = [];
  private failure: { error: unknown } | null = null;

  constructor(private readonly options: ScheduleOptions) {}

  /** Grades a candidate against its problem, read already or being read. */
  add(candidate: Candidate, problem: PreparedProblem | Promise<PreparedProblem | InvalidProblemFile>): void {
    if (this.stopped()) return;
    const weight = Math.max(1, candidate.tests);
    this.inFlight += weight;
    const done = this.grade(candidate, problem)
      .then((results) => {
        if (results !== null && !this.stopped()) this.options.record(candidate, results);
      })
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.inFlight -= weight;
        this.running.delete(done);
        if (this.inFlight < IN_FLIGHT_TESTS || this.running.size === 0) for (const wake of this.roomWaiters.splice(0)) wake();
      });
    this.running.add(done);
  }

  /** Resolves when another candidate may be added. */
  room(): Promise<void> {
    if (this.inFlight < IN_FLIGHT_TESTS || this.running.size === 0 || this.stopped()) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Resolves once every candidate added so far is graded (or dropped by an interruption). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /**
   * The first failure to record a result ends the run: nothing after it
   * could be kept, and the workers are let go at once.
   */
  fail(error: unknown): void {
    if (this.failure !== null) return;
    this.failure = { error };
    void this.options.pool.close();
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  /** Throws what ended the run early, if anything did. */
  check(): void {
    if (this.failure !== null) throw this.failure.error;
  }

  private stopped(): boolean {
    return this.failure !== null || this.options.interrupted();
  }

  /** Null when the run was interrupted meanwhile: a candidate cut short keeps no results. */
  private async grade(
    candidate: Candidate,
    source: PreparedProblem | Promise<PreparedProblem | InvalidProblemFile>,
  ): Promise<CandidateResult[] | null> {
    const problem = await source;
    if (isInvalidProblemFile(problem)) return unavailableResults(candidate, problemChangedMessage(problem));
    try {
      return await gradeCandidate(this.options.pool, candidate, problem, this.options.grade);
    } catch (e) {
      if (this.stopped()) return null;
      return internalErrorResults(candidate, problem, e);
    }
  }
}
