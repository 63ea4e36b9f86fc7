/**
 * The table's "failing tests" section: the first failing tests in the run's
 * plan order, however the candidates finish, with only those kept in memory.
 */
import type { CandidateRow } from './rows.js';
import type { CandidateResult, TestResult } from './scorecard.js';

/** How many failing tests are kept in memory for the table (in input order). */
export const FAILURES_KEPT = 100;

/** A test that did not pass, with its candidate's row. */
export interface FailureRow {
  candidate: CandidateRow;
  test: TestResult;
}

/**
 * Keeps the candidates with failing tests that come first in the plan, by
 * their line in the run log (its slot) and rows only: their tests are read
 * back from the log when the table asks, so that no test record is held in
 * memory while the run goes.
 */
export class FailingTests {
  /** Candidates with failing tests, lowest ranks first; each has at least one, so FAILURES_KEPT of them are enough. */
  private readonly kept: Array<{ rank: number; slot: number; rows: readonly CandidateRow[] }> = [];
  private count = 0;

  /**
   * Notes a candidate's failing tests; `rank` is its place in the plan.
   * Only tests of candidates that ran count: a candidate that could not run
   * has one reason, shown in its own row.
   */
  note(rank: number, slot: number, rows: readonly CandidateRow[]): void {
    this.noteCounted(rank, slot, failingCount(rows), () => rows);
  }

  /**
   * The same, for a candidate whose failing tests were counted already
   * (`failingCount`): its rows are asked for only if it is kept.
   */
  noteCounted(rank: number, slot: number, count: number, rows: () => readonly CandidateRow[]): void {
    if (count === 0) return;
    this.count += count;
    const worst = this.kept[this.kept.length - 1];
    if (this.kept.length >= FAILURES_KEPT && worst !== undefined && worst.rank < rank) return;
    let at = this.kept.length;
    while (at > 0 && this.kept[at - 1]!.rank > rank) at--;
    this.kept.splice(at, 0, { rank, slot, rows: rows() });
    this.kept.length = Math.min(this.kept.length, FAILURES_KEPT);
  }

  /** The first failing tests in plan order, their records read with `resultsOf`, and how many there are in all. */
  result(resultsOf: (slot: number) => readonly CandidateResult[]): { shown: FailureRow[]; total: number } {
    const shown: FailureRow[] = [];
    for (const { slot, rows } of this.kept) {
      const results = resultsOf(slot);
      results.forEach((result, i) => {
        const row = rows[i];
        if (row?.ran !== true) return;
        for (const test of result.tests) {
          if (shown.length >= FAILURES_KEPT) return;
          if (test.status !== 'pass' && test.status !== 'skipped') shown.push({ candidate: row, test });
        }
      });
      if (shown.length >= FAILURES_KEPT) break;
    }
    return { shown, total: this.count };
  }

  clear(): void {
    this.kept.length = 0;
    this.count = 0;
  }
}

/** The failing tests of a candidate with these rows: in the rows of the suites that ran, the tests that neither passed nor were skipped. */
export function failingCount(rows: readonly Pick<CandidateRow, 'ran' | 'total' | 'passed' | 'counts'>[]): number {
  let count = 0;
  for (const r of rows) if (r.ran) count += r.total - r.passed - r.counts.skipped;
  return count;
}
