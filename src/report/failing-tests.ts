/**
 * The table's "failing tests" section: the first failing tests in the run's
 * plan order, however the candidates finish, with only those kept in memory.
 */
import { candidateRow, type CandidateRow } from './rows.js';
import type { CandidateResult, TestResult } from './scorecard.js';

/** How many failing tests are kept in memory for the table (in input order). */
export const FAILURES_KEPT = 100;

/** A test that did not pass, with its candidate's row. */
export interface FailureRow {
  candidate: CandidateRow;
  test: TestResult;
}

export class FailingTests {
  private readonly kept: Array<{ rank: number; row: FailureRow }> = [];
  private count = 0;

  /**
   * Notes a candidate's failing tests; `rank` is its place in the plan.
   * Only tests of candidates that ran count: a candidate that could not run
   * has one reason, shown in its own row.
   */
  note(rank: number, results: readonly CandidateResult[], rows: readonly CandidateRow[] = results.map(candidateRow)): void {
    const count = rows.reduce((n, r) => n + (r.ran ? r.total - r.passed : 0), 0);
    if (count === 0) return;
    this.count += count;
    const worst = this.kept[this.kept.length - 1];
    if (this.kept.length >= FAILURES_KEPT && worst !== undefined && worst.rank < rank) return;
    let taken = 0;
    results.forEach((result, i) => {
      const row = rows[i];
      if (row?.ran !== true) return;
      for (const test of result.tests) {
        if (taken >= FAILURES_KEPT) return;
        if (test.status === 'pass') continue;
        this.kept.push({ rank, row: { candidate: row, test } });
        taken++;
      }
    });
    // Stable sort keeps each candidate's tests in their own order.
    this.kept.sort((a, b) => a.rank - b.rank);
    this.kept.length = Math.min(this.kept.length, FAILURES_KEPT);
  }

  /** Whether a candidate with these rows has failing tests to note. */
  static any(rows: readonly CandidateRow[]): boolean {
    return rows.some((row) => row.ran && row.passed < row.total);
  }

  /** The first failing tests in plan order, and how many there are in all. */
  result(): { shown: FailureRow[]; total: number } {
    return { shown: this.kept.map((f) => f.row), total: this.count };
  }

  clear(): void {
    this.kept.length = 0;
    this.count = 0;
  }
}
