import { describe, expect, it } from 'vitest';
import { failingCount } from '../../src/report/failing-tests.js';
import { Aggregator } from '../../src/report/aggregate.js';
import { RowStore } from '../../src/report/row-store.js';
import { Rng } from '../../bench/rng.js';
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

  it('keeps the same rows with room reserved before, between and beyond them, and reserving less than it holds changes nothing', () => {
    for (const reserved of [0, 1, 63, 64, 65, 300, 5000]) {
      const store = new RowStore();
      store.reserve(reserved);
      const kept: Array<{ handle: number; rows: CandidateRow[] }> = [];
      let next = 0;
      for (let c = 0; c < 300; c++) {
        if (c === 150) store.reserve(reserved);
        const rows = Array.from({ length: c % 4 }, () => row(next++));
        kept.push({ handle: store.addCandidate(rows), rows });
      }
      expect(store.rows).toBe(kept.reduce((n, { rows }) => n + Math.max(rows.length, 1), 0));
      for (const { handle, rows } of kept) expect(store.rowsOf(handle)).toEqual(rows);
    }
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

  it('counts the rows of candidates in the order given, as adding each row to the roll-ups and the summary would', () => {
    const rng = new Rng(3);
    for (let run = 0; run < 50; run++) {
      const store = new RowStore();
      const handles: number[] = [];
      const rows: CandidateRow[] = [];
      // Runs of one problem, model and prompt, as a plan lays out samples, broken where any of the three changes.
      let base = row(rng.int(0, 50));
      for (let c = 0; c < 200; c++) {
        if (rng.int(0, 3) === 0) base = { ...base, problem_id: rng.pick(['p0', 'p1', 'p2']) };
        if (rng.int(0, 3) === 0) base = { ...base, model_id: rng.pick(['a', 'b']) };
        if (rng.int(0, 3) === 0) base = { ...base, prompt_id: rng.pick([null, 'x', 'y']) };
        const candidate = Array.from({ length: rng.int(0, 2) }, () => {
          const total = rng.int(0, 3);
          return { ...base, passed: rng.int(0, 1) === 0 ? total : rng.int(0, total), total };
        });
        handles.push(store.addCandidate(candidate));
        rows.push(...candidate);
      }
      // Every other candidate counted, in another order than they were kept.
      const order = handles.filter((_, i) => i % 2 === 0).reverse();
      const counted = new Aggregator();
      const counts = store.countRows(Int32Array.from(order), order.length, counted);
      const one = new Aggregator();
      const expected = order.flatMap((handle) => store.rowsOf(handle));
      for (const r of expected) one.add(r);
      expect(counted.result({ ks: [1, 2] })).toEqual(one.result({ ks: [1, 2] }));
      expect(counts.candidates).toBe(expected.length);
      expect(counts.tests).toBe(expected.reduce((n, r) => n + r.total, 0));
      expect(counts.passed).toBe(expected.reduce((n, r) => n + r.passed, 0));
      expect(counts.byStatus).toEqual(STATUSES.map((status) => expected.filter((r) => r.status === status).length));
    }
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
