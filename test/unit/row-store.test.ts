import { describe, expect, it } from 'vitest';
import { failingCount } from '../../src/report/failing-tests.js';
import { RowStore } from '../../src/report/row-store.js';
import type { CandidateRow } from '../../src/report/rows.js';
import type { CandidateStatus } from '../../src/report/scorecard.js';

const STATUSES: CandidateStatus[] = ['passed', 'failed', 'load-error', 'unsupported', 'no-tests'];

/** A row whose every field depends on `i`, with nulls, non-ASCII text, fractions and counts as large as 32 bits hold among them. */
function row(i: number): CandidateRow {
  const status = STATUSES[i % STATUSES.length]!;
  const r: CandidateRow = {
    problem_id: `p${i % 7}`,
    model_id: i % 3 === 0 ? 'optimal_solution' : `模型-${i % 4}`,
    prompt_id: i % 2 === 0 ? null : `prompt ${i % 5}`,
    sample_id: i % 4 === 0 ? null : String(i),
    language: i % 2 === 0 ? 'python' : 'javascript',
    status,
    error: status === 'load-error' ? `SyntaxError at line ${i}` : null,
    entry_point: i % 6 === 0 ? null : `name:f${i % 3}`,
    passed: i % 11,
    total: (i % 11) + (i % 3),
    duration_ms: i * 1.5,
    counts: { fail: i % 2, error: i % 3, timeout: i % 5, memory: i % 7, skipped: 2 ** 31 - 1 - i },
    ran: status === 'passed' || status === 'failed',
  };
  if (i % 9 === 0) r.efficiency = { suite: 'performance', reference: i % 2 === 0, cost: i % 4 === 0 ? null : i / 3, memory: 1024 * i, error: null };
  return r;
}

describe('the row store', () => {
  it('gives back every candidate’s rows equal to what was kept, across growth, for 0 to 3 rows a candidate', () => {
    const store = new RowStore();
    const kept: Array<{ handle: number; rows: CandidateRow[] }> = [];
    let next = 0;
    for (let c = 0; c < 500; c++) {
      const rows = Array.from({ length: c % 4 }, () => row(next++));
      kept.push({ handle: store.addCandidate(rows), rows });
    }
    for (const { handle, rows } of kept) expect(store.rowsOf(handle)).toEqual(rows);
  });

  it('counts a candidate’s failing tests from its columns as the table counts them from its rows', () => {
    const store = new RowStore();
    const counted: Array<[number, number]> = [];
    let next = 0;
    for (let c = 0; c < 300; c++) {
      const rows = Array.from({ length: c % 4 }, () => {
        const r = row(next++);
        return { ...r, counts: { ...r.counts, skipped: next % 3 } };
      });
      counted.push([store.failingCount(store.addCandidate(rows)), failingCount(rows)]);
    }
    expect(counted.map(([fromStore]) => fromStore)).toEqual(counted.map(([fromRows]) => fromRows));
    expect(counted.filter(([n]) => n > 0).length).toBeGreaterThan(50);
    expect(counted.filter(([n]) => n === 0).length).toBeGreaterThan(50);
  });

  it('gives new objects each time, so that a caller cannot change what is kept', () => {
    const store = new RowStore();
    const handle = store.addCandidate([row(1)]);
    store.rowsOf(handle)[0]!.counts.fail = 99;
    expect(store.rowsOf(handle)).toEqual([row(1)]);
  });

  it('refuses a count that 32 bits do not hold rather than keep another', () => {
    const store = new RowStore();
    for (const counts of [
      { ...row(1).counts, skipped: 2 ** 31 },
      { ...row(1).counts, fail: 0.5 },
    ]) {
      expect(() => store.addCandidate([{ ...row(1), counts }])).toThrow(/not a 32-bit whole number/);
    }
  });

  it('refuses a status it does not know rather than keep another', () => {
    expect(() => new RowStore().addCandidate([{ ...row(0), status: 'maybe' as CandidateStatus }])).toThrow(/unknown status/);
  });
});
