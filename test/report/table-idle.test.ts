import { afterEach, describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/report/reporter.js';
import { tableReporter } from '../../src/report/table-reporter.js';
import type { ReadRun } from '../../src/runner/read-run.js';
import { syntheticRun } from './synthetic-run.js';

const opened: ReadRun[] = [];
afterEach(() => {
  for (const r of opened.splice(0)) r.close();
});

/** A finished self-check of one graded problem and `idle` problems without an optimal_solution. */
function selfCheck(idle: number): RunOutcome {
  const read = syntheticRun([{ problem: 'graded', model: 'optimal_solution', tests: ['pass'] }], { mode: 'self-check' });
  opened.push(read);
  const { outcome } = read;
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
