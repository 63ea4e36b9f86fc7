import { describe, expect, it } from 'vitest';
import { diffRuns } from '../../src/report/run-diff.js';
import { syntheticRuns, type SyntheticCandidate } from './synthetic-run.js';

const syntheticRun = syntheticRuns();

function run(candidates: SyntheticCandidate[]) {
  return syntheticRun(candidates, { passAtK: [1, 2] }).outcome;
}

describe('diffRuns', () => {
  it('lists changed candidates and tests, new failures first, and the change of pass rate and pass@k per model', () => {
    const before = run([
      { problem: 'a', model: 'm', sample: '0', tests: ['pass', 'pass'] },
      { problem: 'a', model: 'm', sample: '1', tests: ['fail', 'pass'] },
      { problem: 'b', model: 'm', sample: '0', tests: ['fail', 'pass'] },
      { problem: 'b', model: 'm', sample: '1', tests: ['pass', 'pass'] },
      { problem: 'c', model: 'm', sample: '0', tests: ['pass'] },
      { problem: 'gone', model: 'm', tests: ['pass'] },
    ]);
    const after = run([
      { problem: 'a', model: 'm', sample: '0', tests: ['pass', 'fail'] },
      { problem: 'a', model: 'm', sample: '1', tests: ['pass', 'pass'] },
      { problem: 'b', model: 'm', sample: '0', tests: ['timeout', 'pass'] },
      { problem: 'b', model: 'm', sample: '1', tests: ['pass', 'pass'] },
      { problem: 'c', model: 'm', sample: '0', tests: ['pass'] },
      { problem: 'new', model: 'm', tests: ['fail'] },
    ]);
    const diff = diffRuns(before, after);
    expect(diff.changes.map((c) => [c.kind, c.problem_id, c.sample_id])).toEqual([
      ['new-failure', 'a', '0'],
      ['changed', 'b', '0'],
      ['fixed', 'a', '1'],
      ['added', 'new', null],
      ['removed', 'gone', null],
    ]);
    expect(diff.changes[0]!.tests).toEqual([
      { suite: 'correctness', index: 1, before: 'pass', after: 'fail', input: { n: 1 }, expected: 2, actual: 3, error: 'expected 2, got 3' },
    ]);
    expect(diff.changes[1]!.tests.map((t) => [t.before, t.after])).toEqual([['fail', 'timeout']]);
    expect(diff.counts).toEqual({ 'new-failure': 1, changed: 1, fixed: 1, added: 1, removed: 1, unchanged: 2 });
    const m = diff.models[0]!;
    expect(m.model_id).toBe('m');
    expect(m.pass_rate.before).toBeCloseTo(8 / 10);
    expect(m.pass_rate.after).toBeCloseTo(7 / 10);
    expect(m.pass_rate.change).toBeCloseTo(-1 / 10);
    // pass@2 cannot be computed while one task has a single sample.
    expect(m.pass_at_k['pass@2']).toEqual({ before: null, after: null, change: null });
    // pass@1 per task (a, b, c, and gone or new): mean of 0.5, 0.5, 1, 1 before and of 0.5, 0.5, 1, 0 after.
    expect(m.pass_at_k['pass@1']).toEqual({ before: 0.75, after: 0.5, change: -0.25 });
  });

  it('finds nothing to report between a run and itself', () => {
    const candidates: SyntheticCandidate[] = [{ problem: 'a', tests: ['pass', 'fail'] }];
    const diff = diffRuns(run(candidates), run(candidates));
    expect(diff.changes).toEqual([]);
    expect(diff.counts.unchanged).toBe(1);
    expect(diff.models[0]!.pass_rate.change).toBe(0);
  });
});
