/**
 * A self-check's candidates are known as soon as a problem is read: each
 * problem's optimal_solution. So they are graded at once, while the other
 * files are still being read, instead of after the last one. Each result
 * goes to the run log the moment it is ready, like any other; the reporters
 * hear of it once the run is planned. A problem that turns out to be a
 * duplicate is left out of the plan, and so out of the scorecard.
 */
import type { PreparedProblem } from '../problems/prepared.js';
import { candidateKey, selfCheckPlans, type PlannedCandidate, type ProblemSummary } from './candidate.js';
import type { CandidateRowWithCounts, GradedCandidate } from './results-store.js';

export interface EarlyGradesOptions {
  /** Whether the run's filters keep this problem. */
  selected: (problem: ProblemSummary) => boolean;
  /** Grades a candidate; null when the run was interrupted first. */
  grade: (planned: PlannedCandidate, problem: PreparedProblem) => Promise<GradedCandidate | null>;
  /** Writes a result to the run log. */
  record: (key: string, graded: GradedCandidate) => void;
}

export class EarlyGrades {
  private readonly byKey = new Map<string, Promise<CandidateRowWithCounts[] | null>>();
  private recording = true;
  private failure: { error: unknown } | null = null;

  constructor(private readonly options: EarlyGradesOptions) {}

  /** Starts grading the candidates of a problem just read (`summary` is its summary). */
  take(problem: PreparedProblem, summary: ProblemSummary): void {
    if (!this.options.selected(summary)) return;
    for (const planned of selfCheckPlans([summary])) {
      const key = candidateKey(planned);
      // Only the rows are kept for the reporters: the results themselves are in the log.
      const graded = this.options.grade(planned, problem).then((result) => {
        if (result === null || !this.recording) return null;
        this.options.record(key, result);
        return result.rows;
      });
      // Nothing may reject unheard (a duplicate's result is never awaited): the run fails with it instead.
      this.byKey.set(
        key,
        graded.catch((error: unknown) => {
          this.failure ??= { error };
          return null;
        }),
      );
    }
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /**
   * Settles once the candidate's result is in the log, with its rows for the
   * reporters; null when it was not recorded (the run was interrupted first).
   */
  get(key: string): Promise<CandidateRowWithCounts[] | null> | undefined {
    return this.byKey.get(key);
  }

  /** Throws what went wrong while grading or recording, if anything did. */
  check(): void {
    if (this.failure !== null) throw this.failure.error;
  }

  /** Results that arrive from now on are dropped: the run log is closed. */
  stop(): void {
    this.recording = false;
  }
}
