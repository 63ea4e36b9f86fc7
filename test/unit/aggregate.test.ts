import { describe, expect, it } from 'vitest';
import { Aggregator, candidatePasses, type AggregatableResult, type AggregateOptions, type Aggregates } from '../../src/report/aggregate.js';
import { passAtKTableOf } from '../../src/report/pass-at-k.js';
import type { CandidateResult } from '../../src/report/scorecard.js';
import { Rng } from '../../bench/rng.js';

/** The roll-ups of `candidates`, added in order. */
function aggregateResults(candidates: readonly AggregatableResult[], options?: AggregateOptions): Aggregates {
  const aggregator = new Aggregator();
  for (const c of candidates) aggregator.add(c);
  return aggregator.result(options);
}

/** A generator of whole numbers below `n`, the same for the same seed. */
function seeded(seed: number): (n: number) => number {
  const rng = new Rng(seed);
  return (n) => rng.int(0, n - 1);
}

function result(problem_id: string, model_id: string, prompt_id: string | null, passed: number, total: number): AggregatableResult {
  return { problem_id, model_id, prompt_id, passed, total };
}

// Two models, two problems, two prompts; gpt-4 has 3 samples per task.
const RESULTS: AggregatableResult[] = [
  // gpt-4 / add / brief: 1 of 3 samples passes every test
  result('add', 'gpt-4', 'brief', 2, 2),
  result('add', 'gpt-4', 'brief', 1, 2),
  result('add', 'gpt-4', 'brief', 0, 2),
  // gpt-4 / add / detailed: all 3 pass
  result('add', 'gpt-4', 'detailed', 2, 2),
  result('add', 'gpt-4', 'detailed', 2, 2),
  result('add', 'gpt-4', 'detailed', 2, 2),
  // gpt-4 / mul / brief: none passes
  result('mul', 'gpt-4', 'brief', 1, 4),
  result('mul', 'gpt-4', 'brief', 0, 4),
  result('mul', 'gpt-4', 'brief', 3, 4),
  // claude: one sample per task
  result('mul', 'claude', 'brief', 4, 4),
  result('add', 'claude', 'brief', 0, 0), // no tests: never counts as solving
  // the problem's own optimal solution, without a prompt
  result('mul', 'optimal', null, 4, 4),
];

const TAGS = new Map<string, readonly string[]>([
  ['add', ['Arithmetic', 'Easy', 'Easy']],
  ['mul', ['Arithmetic', 'Medium']],
]);

describe('aggregateResults', () => {
  const agg = aggregateResults(RESULTS, { tagsByProblem: TAGS, ks: [1, 3] });

  it('rolls up by model, sorted by id', () => {
    expect(agg.models).toEqual([
      { model_id: 'claude', candidates: 2, tests: 4, passed: 4, problems: 2, problems_solved: 1, pass_rate: 1 },
      { model_id: 'gpt-4', candidates: 9, tests: 24, passed: 13, problems: 2, problems_solved: 1, pass_rate: 13 / 24 },
      { model_id: 'optimal', candidates: 1, tests: 4, passed: 4, problems: 1, problems_solved: 1, pass_rate: 1 },
    ]);
  });

  it('rolls up by prompt, with the null prompt first', () => {
    expect(agg.prompts).toEqual([
      { prompt_id: null, candidates: 1, tests: 4, passed: 4, problems: 1, problems_solved: 1, pass_rate: 1 },
      { prompt_id: 'brief', candidates: 8, tests: 22, passed: 11, problems: 2, problems_solved: 2, pass_rate: 11 / 22 },
      { prompt_id: 'detailed', candidates: 3, tests: 6, passed: 6, problems: 1, problems_solved: 1, pass_rate: 1 },
    ]);
  });

  it('rolls up by tag, counting a candidate once per tag of its problem', () => {
    expect(agg.tags).toEqual([
      { tag: 'Arithmetic', candidates: 12, tests: 32, passed: 21, problems: 2, problems_solved: 2, pass_rate: 21 / 32 },
      { tag: 'Easy', candidates: 7, tests: 12, passed: 9, problems: 1, problems_solved: 1, pass_rate: 9 / 12 },
      { tag: 'Medium', candidates: 5, tests: 20, passed: 12, problems: 1, problems_solved: 1, pass_rate: 12 / 20 },
    ]);
  });

  it('computes pass@k per model over (problem, prompt) tasks', () => {
    const gpt4 = agg.pass_at_k.find((r) => r.model_id === 'gpt-4');
    // tasks: add/brief n=3 c=1, add/detailed n=3 c=3, mul/brief n=3 c=0
    expect(gpt4).toMatchObject({ tasks: 3, min_samples: 3, max_samples: 3 });
    expect(gpt4?.values['pass@1']).toBeCloseTo((1 / 3 + 1 + 0) / 3, 15);
    expect(gpt4?.values['pass@3']).toBeCloseTo((1 + 1 + 0) / 3, 15);
    const claude = agg.pass_at_k.find((r) => r.model_id === 'claude');
    // Its sample of `add` has no tests to run: that task is no task, neither solved nor failed.
    expect(claude).toEqual({ model_id: 'claude', tasks: 1, min_samples: 1, max_samples: 1, values: { 'pass@1': 1, 'pass@3': null } });
    expect(agg.pass_at_k.map((r) => r.model_id)).toEqual(['claude', 'gpt-4', 'optimal']);
  });

  it('is deterministic whatever order the candidates come in', () => {
    const reversed = aggregateResults([...RESULTS].reverse(), { tagsByProblem: TAGS, ks: [3, 1] });
    expect(reversed).toEqual(agg);
  });

  it('defaults to pass@1 and no tags', () => {
    const plain = aggregateResults(RESULTS);
    expect(plain.tags).toEqual([]);
    expect(Object.keys(plain.pass_at_k[0]?.values ?? {})).toEqual(['pass@1']);
  });

  it('knows which problems have candidates', () => {
    const aggregator = new Aggregator();
    for (const c of RESULTS) aggregator.add(c);
    expect(aggregator.has('add')).toBe(true);
    expect(aggregator.has('mul')).toBe(true);
    expect(aggregator.has('div')).toBe(false);
  });

  it('keeps every group of a problem with many prompts and models, however its groups are stored', () => {
    const candidates = Array.from({ length: 600 }, (_, i) => result(`p${i % 3}`, `m${i % 5}`, `q${i % 40}`, i % 2, 1));
    const agg = aggregateResults(candidates, { ks: [1] });
    expect(agg.prompts).toHaveLength(40);
    expect(agg.prompts.reduce((n, p) => n + p.candidates, 0)).toBe(600);
    expect(agg.pass_at_k.reduce((n, m) => n + m.tasks, 0)).toBe(new Set(candidates.map((c) => `${c.problem_id}/${c.model_id}/${c.prompt_id}`)).size);
  });

  it('gives empty rows for no candidates', () => {
    expect(aggregateResults([])).toEqual({ models: [], prompts: [], tags: [], pass_at_k: [] });
  });

  it('accepts whole CandidateResult objects from a scorecard', () => {
    const full: CandidateResult = {
      problem_id: 'add',
      model_id: 'm',
      prompt_id: 'p',
      sample_id: null,
      language: 'python',
      source: 'x.json',
      raw_code: 'def add(a, b): return a + b',
      code: 'def add(a, b): return a + b',
      status: 'passed',
      error: null,
      entry_point: 'add',
      passed: 1,
      total: 1,
      score: 1,
      duration_ms: 3,
      tests: [],
    };
    expect(aggregateResults([full]).models[0]).toMatchObject({ model_id: 'm', problems_solved: 1 });
  });
});

describe('aggregateResults against a plain reference', () => {
  /**
   * The definitions of aggregate.ts worked out the plain way, a list per
   * row: each row's candidates filtered out of all of them, its problems
   * as a set. pass@k sums a model's tasks in the order its first candidate
   * of each problem comes, then the first of each prompt.
   */
  function reference(candidates: readonly AggregatableResult[], tags: ReadonlyMap<string, readonly string[]>, ks: readonly number[]): unknown {
    const row = (of: AggregatableResult[]) => {
      const tests = of.reduce((n, c) => n + c.total, 0);
      const passed = of.reduce((n, c) => n + c.passed, 0);
      return {
        candidates: of.length,
        tests,
        passed,
        problems: new Set(of.map((c) => c.problem_id)).size,
        problems_solved: new Set(of.filter(candidatePasses).map((c) => c.problem_id)).size,
        pass_rate: tests === 0 ? 0 : passed / tests,
      };
    };
    const sorted = <T extends string | null>(values: Iterable<T>): T[] =>
      [...new Set(values)].sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
    const models = sorted(candidates.map((c) => c.model_id));
    return {
      models: models.map((m) => ({ model_id: m, ...row(candidates.filter((c) => c.model_id === m)) })),
      prompts: sorted(candidates.map((c) => c.prompt_id)).map((p) => ({ prompt_id: p, ...row(candidates.filter((c) => c.prompt_id === p)) })),
      tags: sorted(candidates.flatMap((c) => tags.get(c.problem_id) ?? [])).map((t) => ({
        tag: t,
        ...row(candidates.filter((c) => (tags.get(c.problem_id) ?? []).includes(t))),
      })),
      pass_at_k: models.map((m) => {
        const mine = candidates.filter((c) => c.model_id === m);
        const groups: Array<{ n: number; c: number }> = [];
        for (const problem of new Set(mine.map((c) => c.problem_id))) {
          const ofProblem = mine.filter((c) => c.problem_id === problem);
          for (const prompt of new Set(ofProblem.map((c) => c.prompt_id))) {
            const task = ofProblem.filter((c) => c.prompt_id === prompt);
            // A task with no tests is no task.
            if (task.some((c) => c.total > 0)) groups.push({ n: task.length, c: task.filter(candidatePasses).length });
          }
        }
        return {
          model_id: m,
          tasks: groups.length,
          min_samples: groups.length === 0 ? 0 : Math.min(...groups.map((g) => g.n)),
          max_samples: Math.max(0, ...groups.map((g) => g.n)),
          values: passAtKTableOf(
            groups.map((_, i) => i),
            groups.map((g) => g.n),
            groups.map((g) => g.c),
            ks,
          ),
        };
      }),
    };
  }

  it("sums a model's pass@k in the order of its own candidates, not of the problems' first candidates", () => {
    // Model a's tasks pass 3, 2 and 1 in 10; summed p3, p2, p1 they give 0.6, and p1, p2, p3 (the order model b sees them first) 0.6000000000000001.
    const samples = (problem: string, passing: number) => Array.from({ length: 10 }, (_, i) => result(problem, 'a', null, i < passing ? 1 : 0, 1));
    const candidates = [
      result('p1', 'b', null, 1, 1),
      result('p2', 'b', null, 1, 1),
      result('p3', 'b', null, 1, 1),
      ...samples('p3', 3),
      ...samples('p2', 2),
      ...samples('p1', 1),
    ];
    const a = aggregateResults(candidates, { ks: [1] }).pass_at_k.find((r) => r.model_id === 'a');
    expect(a?.values['pass@1']).toBe((0.3 + 0.2 + 0.1) / 3);
    expect(aggregateResults(candidates, { ks: [1] })).toEqual(reference(candidates, new Map(), [1]));
  });

  it("sums a model's tasks of one problem together, in the order their own first candidates come", () => {
    const samples = (problem: string, prompt: string, passing: number) =>
      Array.from({ length: 10 }, (_, i) => result(problem, 'a', prompt, i < passing ? 1 : 0, 1));
    // p2/x comes first, then p1/x, then p2/y: p2's tasks are summed before p1's, x before y (0.2, 0.3, 0.1), not in the
    // order each task's first candidate comes (0.2, 0.1, 0.3), which gives another last bit.
    const candidates = [...samples('p2', 'x', 2), ...samples('p1', 'x', 1), ...samples('p2', 'y', 3)];
    const a = aggregateResults(candidates, { ks: [1] }).pass_at_k[0];
    expect(a?.values['pass@1']).toBe((0.2 + 0.3 + 0.1) / 3);
    expect((0.2 + 0.3 + 0.1) / 3).not.toBe((0.2 + 0.1 + 0.3) / 3);
    expect(aggregateResults(candidates, { ks: [1] })).toEqual(reference(candidates, new Map(), [1]));
  });

  it('gives the same rows, to the last bit, on generated runs in any order', () => {
    const next = seeded(7);
    for (let run = 0; run < 200; run++) {
      // Many problems and uneven samples, so that summing pass@k in another order would change its last bits.
      const candidates = Array.from({ length: next(400) }, () => {
        const total = next(3);
        return result(`p${next(40)}`, ['a', 'b', 'optimal'][next(3)]!, [null, 'x', 'y'][next(3)]!, Math.min(total, next(4)), total);
      });
      const tags = new Map(Array.from({ length: 40 }, (_, i) => [`p${i}`, ['t1', 't2', 't1', 't3'].slice(next(3), next(5))] as const));
      expect(aggregateResults(candidates, { tagsByProblem: tags, ks: [1, 2, 5] })).toEqual(reference(candidates, tags, [1, 2, 5]));
    }
  });

  it('gives the same rows when candidates come in runs of one problem, model and prompt, as a plan lays out samples', () => {
    const next = seeded(11);
    for (let run = 0; run < 200; run++) {
      const candidates: AggregatableResult[] = [];
      while (candidates.length < 300) {
        // A problem's runs of samples, each of one model and prompt (a run may be one candidate), then another problem's.
        const problem = `p${next(30)}`;
        for (let runs = next(3); runs >= 0; runs--) {
          const model = ['a', 'b'][next(2)]!;
          const prompt = [null, 'x'][next(2)]!;
          for (let i = next(12); i >= 0; i--) {
            const total = next(4);
            candidates.push(result(problem, model, prompt, next(2) === 0 ? total : Math.min(total, next(4)), total));
          }
        }
      }
      const tags = new Map(Array.from({ length: 30 }, (_, i) => [`p${i}`, ['t1', 't2', 't3'].slice(next(3))] as const));
      const expected = reference(candidates, tags, [1, 3, 10]);
      expect(aggregateResults(candidates, { tagsByProblem: tags, ks: [1, 3, 10] })).toEqual(expected);
      // The same candidates handed over a run at a time (addRun), cut wherever the problem, model or prompt changes, and
      // sometimes within a run: a run cut in two is still the same candidates.
      const byRuns = new Aggregator();
      for (let from = 0; from < candidates.length;) {
        const first = candidates[from]!;
        let to = from + 1;
        const same = (c: AggregatableResult) => c.problem_id === first.problem_id && c.model_id === first.model_id && c.prompt_id === first.prompt_id;
        while (to < candidates.length && same(candidates[to]!) && next(6) !== 0) to++;
        const run = candidates.slice(from, to);
        const sum = (of: (c: AggregatableResult) => number) => run.reduce((n, c) => n + of(c), 0);
        byRuns.addRun(
          first.problem_id,
          first.model_id,
          first.prompt_id,
          run.length,
          run.filter(candidatePasses).length,
          sum((c) => c.total),
          sum((c) => c.passed),
        );
        from = to;
      }
      expect(byRuns.result({ tagsByProblem: tags, ks: [1, 3, 10] })).toEqual(expected);
    }
  });
});

describe('candidatePasses', () => {
  it('needs at least one test and every test passed', () => {
    expect(candidatePasses({ passed: 3, total: 3 })).toBe(true);
    expect(candidatePasses({ passed: 2, total: 3 })).toBe(false);
    expect(candidatePasses({ passed: 0, total: 0 })).toBe(false);
  });
});
