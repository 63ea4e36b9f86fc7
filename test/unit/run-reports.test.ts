/**
 * How a run tells its reporters of each graded candidate (runner/reports.ts):
 * after the run starts, in the order they were graded, every candidate
 * counted, and its rows made only when some reporter hears rows.
 */
import { describe, expect, it } from 'vitest';
import { combineReporters, type Reporter, type RunStartInfo } from '../../src/report/reporter.js';
import type { CandidateRow } from '../../src/report/rows.js';
import { Reports } from '../../src/runner/reports.js';

const START: RunStartInfo = { mode: 'grade', problems: 1, invalidProblems: 0, candidates: 3, resumed: 0, logFile: 'x.jsonl' };
const row = { problem_id: 'p', passed: 1, total: 2 } as CandidateRow;

/** A reporter that writes down what it hears, in order. */
function listener(heard: string[], rows: boolean): Reporter {
  return {
    onRunStart: () => void heard.push('start'),
    onCandidateCounted: (tests, passed) => void heard.push(`counted ${passed}/${tests}`),
    // A hook that answers with a promise, as a reporter that writes may.
    ...(rows ? { onCandidateResult: (r: readonly CandidateRow[]) => Promise.resolve(void heard.push(`rows ${r.length}`)) } : {}),
  };
}

describe('a run telling its reporters', () => {
  it('counts every candidate after the start and never makes rows when no reporter hears them', async () => {
    const heard: string[] = [];
    const reports = new Reports(combineReporters([listener(heard, false)]));
    let made = 0;
    const rows = (): CandidateRow[] => {
      made++;
      return [row];
    };
    reports.graded(2, 1, rows);
    reports.plan(START);
    reports.graded(2, 1, rows);
    reports.graded(5, 5, rows);
    await reports.idle();
    expect(heard).toEqual(['start', 'counted 1/2', 'counted 5/5']);
    expect(made).toBe(0);
  });

  it('tells a reporter that hears rows each candidate after its count, and the others their counts', async () => {
    const heard: string[] = [];
    const counted: string[] = [];
    const reports = new Reports(combineReporters([listener(heard, true), listener(counted, false)]));
    reports.plan(START);
    reports.graded(2, 1, () => [row]);
    reports.graded(4, 0, () => [row, row]);
    await reports.idle();
    expect(heard).toEqual(['start', 'counted 1/2', 'rows 1', 'counted 0/4', 'rows 2']);
    expect(counted).toEqual(['start', 'counted 1/2', 'counted 0/4']);
  });
});
