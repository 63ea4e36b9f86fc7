import { describe, expect, it } from 'vitest';
import type { PreparedProblem } from '../../src/problems/prepared.js';
import { candidateKey, summarizeProblem, type PlannedCandidate } from '../../src/runner/candidate.js';
import { EarlyGrades } from '../../src/runner/early-grades.js';
import type { GradedCandidate } from '../../src/runner/results-store.js';

function problem(id: string, optimal: string | undefined, tags: string[] = []): PreparedProblem {
  return {
    file: `${id}.json`,
    problem: { identifier: id, optimal_solution: optimal, tags } as unknown as PreparedProblem['problem'],
    id,
    functionName: 'f',
    parameterNames: [],
    parameterTypes: [],
    returnType: { kind: 'none' },
    correctness: { kind: 'correctness', promptId: null, tests: [] },
    samples: [],
    warnings: [],
  };
}

const graded = (id: string): GradedCandidate => ({
  texts: [`{"problem_id":"${id}"}`],
  rows: [
    {
      problem_id: id,
      model_id: 'optimal_solution',
      prompt_id: null,
      sample_id: null,
      language: 'javascript',
      status: 'passed',
      error: null,
      entry_point: 'declaration:f',
      passed: 1,
      total: 1,
      duration_ms: 0,
      ran: true,
      counts: { fail: 0, error: 0, timeout: 0, memory: 0 },
    },
  ],
  failures: [],
});
const take = (early: EarlyGrades, p: PreparedProblem): void => early.take(p, summarizeProblem(p));
const keyOf = (id: string): string =>
  candidateKey({ problemId: id, modelId: 'optimal_solution', promptId: null, sampleId: null, source: `${id}.json#optimal_solution` });

describe('EarlyGrades', () => {
  it('grades each selected problem with an optimal_solution once, and records the result before handing out its rows', async () => {
    const recorded: string[] = [];
    const graders: string[] = [];
    const early = new EarlyGrades({
      selected: (p) => !p.tags.includes('skip'),
      grade: (planned: PlannedCandidate) => {
        graders.push(planned.problemId);
        return Promise.resolve(graded(planned.problemId));
      },
      record: (key) => recorded.push(key),
    });
    take(early, problem('a', 'function f() {}'));
    take(early, problem('b', undefined));
    take(early, problem('c', 'function f() {}', ['skip']));
    expect(graders).toEqual(['a']);
    expect(early.has(keyOf('a'))).toBe(true);
    expect(early.has(keyOf('b'))).toBe(false);
    expect(await early.get(keyOf('a'))).toEqual(graded('a').rows);
    expect(recorded).toEqual([keyOf('a')]);
    expect(() => early.check()).not.toThrow();
  });

  it('records nothing once stopped, and nothing for a run interrupted before the result', async () => {
    const recorded: string[] = [];
    let finish: (g: GradedCandidate | null) => void = () => undefined;
    const early = new EarlyGrades({
      selected: () => true,
      grade: () => new Promise((resolve) => (finish = resolve)),
      record: (key) => recorded.push(key),
    });
    take(early, problem('late', 'function f() {}'));
    early.stop();
    finish(graded('late'));
    expect(await early.get(keyOf('late'))).toBeNull();

    const interrupted = new EarlyGrades({ selected: () => true, grade: () => Promise.resolve(null), record: (key) => recorded.push(key) });
    take(interrupted, problem('cut', 'function f() {}'));
    expect(await interrupted.get(keyOf('cut'))).toBeNull();
    expect(recorded).toEqual([]);
  });

  it('keeps a failure to grade or record for the run to report, without an unhandled rejection', async () => {
    const early = new EarlyGrades({
      selected: () => true,
      grade: (planned) => Promise.resolve(graded(planned.problemId)),
      record: () => {
        throw new Error('disk full');
      },
    });
    take(early, problem('x', 'function f() {}'));
    expect(await early.get(keyOf('x'))).toBeNull();
    expect(() => early.check()).toThrow('disk full');
  });
});
