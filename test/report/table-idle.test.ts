import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/report/reporter.js';
import { tableReporter } from '../../src/report/table-reporter.js';
import { syntheticRuns, type SyntheticCandidate } from './synthetic-run.js';

const syntheticRun = syntheticRuns();

/** A finished self-check of one graded problem and `idle` problems without an optimal_solution. */
function selfCheck(idle: number): RunOutcome {
  const { outcome } = syntheticRun([{ problem: 'graded', model: 'optimal_solution', tests: ['pass'] }], { mode: 'self-check' });
  const extra = Array.from({ length: idle }, (_, i) => ({ problem_id: `idle_${i}`, file: `idle_${i}.json`, valid: true, errors: [], warnings: [] }));
  return { ...outcome, head: { ...outcome.head, problems: [...outcome.head.problems, ...extra] } };
}

async function table(outcome: RunOutcome, details: boolean): Promise<string> {
  let out = '';
  await tableReporter({ write: (t) => (out += t), details }).onRunEnd?.(outcome);
  return out;
}

describe('the table of a self-check with problems it had nothing to run for', () => {
  it('names a few of them, says how many more, and names every one with --details', async () => {
    const outcome = selfCheck(25);
    const short = await table(outcome, false);
    expect(short).toContain('Nothing to run for 25 problems (no optimal_solution): idle_0, idle_1,');
    expect(short).toContain('idle_9, and 15 more (--details names every one)');
    expect(short).not.toContain('idle_10');
    const full = await table(outcome, true);
    expect(full).toContain(`${Array.from({ length: 25 }, (_, i) => `idle_${i}`).join(', ')}\n`);
    expect(full).not.toContain('more (--details');
  });

  it('names them all when they are few', async () => {
    const out = await table(selfCheck(3), false);
    expect(out).toContain('Nothing to run for 3 problems (no optimal_solution): idle_0, idle_1, idle_2\n');
  });
});

describe('the table of a long self-check', () => {
  /** A self-check of `count` problems of which those at `failing` fail. */
  function longSelfCheck(count: number, failing: readonly number[]): RunOutcome {
    const candidates = Array.from({ length: count }, (_, i): SyntheticCandidate => ({
      problem: `p_${String(i).padStart(3, '0')}`,
      model: 'optimal_solution',
      tests: failing.includes(i) ? ['pass', 'fail'] : ['pass', 'pass'],
    }));
    return syntheticRun(candidates, { mode: 'self-check' }).outcome;
  }

  /** The problems of the candidates table's rows (the failing tests' table has a test where this one has a prompt). */
  const listed = (out: string): string[] => [...out.matchAll(/^│ (p_\d{3}) +│ optimal_solution +│ - +│/gm)].map((m) => m[1]!);

  it('lists every candidate up to the limit', async () => {
    let out = '';
    await tableReporter({ write: (t) => (out += t), details: false, maxCandidateRows: 5 }).onRunEnd?.(longSelfCheck(5, [2]));
    expect(new Set(listed(out))).toEqual(new Set(['p_000', 'p_001', 'p_002', 'p_003', 'p_004']));
    expect(out).not.toContain('not listed');
  });

  it('past the limit lists only those that did not pass, wherever they come, and counts the rest', async () => {
    let out = '';
    await tableReporter({ write: (t) => (out += t), details: false, maxCandidateRows: 5 }).onRunEnd?.(longSelfCheck(12, [1, 9]));
    expect(new Set(listed(out))).toEqual(new Set(['p_001', 'p_009']));
    expect(out).toContain('(10 passing candidates not listed; --details lists every one)');
    let full = '';
    await tableReporter({ write: (t) => (full += t), details: true, maxCandidateRows: 5 }).onRunEnd?.(longSelfCheck(12, [1, 9]));
    expect(new Set(listed(full)).size).toBe(12);
  });

  it('past the limit, with every candidate passing, lists none and reads no row', async () => {
    let out = '';
    const outcome = longSelfCheck(12, []);
    const unread: RunOutcome = {
      ...outcome,
      rows: outcome.rows,
      eachRow: () => {
        throw new Error('the rows were read');
      },
    };
    await tableReporter({ write: (t) => (out += t), details: false, maxCandidateRows: 5 }).onRunEnd?.(unread);
    expect(listed(out)).toEqual([]);
    expect(out).toContain('(12 passing candidates not listed; --details lists every one)');
    let full = '';
    await tableReporter({ write: (t) => (full += t), details: true, maxCandidateRows: 5 }).onRunEnd?.(longSelfCheck(12, []));
    expect(new Set(listed(full)).size).toBe(12);
  });
});
