/**
 * The grading service's limits per test (src/service/problem-limits.ts):
 * one measurement per problem shared by its calls, the limits from the
 * optimal solution's times, none for a problem without one or whose
 * optimal solution fails, and a measurement that got no answer (or threw)
 * made again by the next call.
 */
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/grading/candidate.js';
import type { CandidateResult } from '../../src/report/scorecard.js';
import { ProblemLimits } from '../../src/service/problem-limits.js';
import type { HeldProblem } from '../../src/service/problem-set.js';

const problem = (id: string, solutionLanguage: string | null = 'python'): HeldProblem => ({
  id,
  key: `inline:${id}`,
  text: '{}',
  tags: [],
  tests: 2,
  solutionLanguage,
  promptIds: [],
});

function result(status: 'passed' | 'failed', durations: number[]): CandidateResult {
  return {
    status,
    language: 'python',
    tests: durations.map((ms, index) => ({ index, status: status === 'passed' || index === 0 ? 'pass' : 'fail', duration_ms: ms, error: null })),
  } as unknown as CandidateResult;
}

const SETTINGS = { factor: 3, floorMs: 100, timeoutMs: 2000 };

describe('ProblemLimits', () => {
  it('measures a problem once for all its calls, and gives max(floor, ceil(factor x time)) per test', async () => {
    const graded: string[] = [];
    const limits = new ProblemLimits(SETTINGS, (p: HeldProblem, reference: Candidate) => {
      graded.push(`${p.id}:${reference.modelId}`);
      return Promise.resolve(result('passed', [10, 250.2]));
    });
    const [a, b] = await Promise.all([limits.of(problem('p')), limits.of(problem('p'))]);
    expect(a).toEqual({ language: 'python', testsMs: [100, 751] });
    expect(b).toBe(a);
    expect(await limits.of(problem('p'))).toBe(a);
    expect(graded).toEqual(['p:optimal_solution']);
  });

  it('gives no limits for a problem without an optimal solution, or whose optimal solution fails a test', async () => {
    const limits = new ProblemLimits(SETTINGS, () => Promise.resolve(result('failed', [10, 20])));
    expect(await limits.of(problem('none', null))).toBeUndefined();
    expect(await limits.of(problem('failing'))).toBeUndefined();
  });

  it('measures again on the next call when a measurement got no answer or threw', async () => {
    const answers: Array<() => Promise<CandidateResult | null>> = [
      () => Promise.resolve(null),
      () => Promise.reject(new Error('the workers were stopped')),
      () => Promise.resolve(result('passed', [40, 40])),
    ];
    const limits = new ProblemLimits(SETTINGS, () => answers.shift()!());
    expect(await limits.of(problem('p'))).toBeUndefined();
    expect(await limits.of(problem('p'))).toBeUndefined();
    expect(await limits.of(problem('p'))).toEqual({ language: 'python', testsMs: [120, 120] });
    expect(answers).toHaveLength(0);
  });
});
