/**
 * --grade correctness,performance,memory through the real CLI, createGrader
 * and evaluate: the option's plumbing (recorded in the run log, kept by
 * --resume and `evalrun report`), the optimal solution graded beside the
 * submissions, the JavaScript engine's figures and the scores they give
 * (a loop to n below the closed form), and the n/a path with reasons.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGrader, evaluate } from '../../src/index.js';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';
import { post, SERVE_PROBLEMS, startServer } from './serve-helpers.js';

const SUM = {
  identifier: 'sum_to',
  description: 'The sum of 1..n.',
  tags: ['arithmetic'],
  function_prototype: { function_name: 'sumTo', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
  prompts: [{ prompt_id: 'brief', prompt: 'Sum 1..n.', sample_inputs_outputs: [{ input: { n: 2 }, expected_output: [3] }] }],
  correctness_test_suite: [
    { input: { n: 1 }, expected_output: [1] },
    { input: { n: 10 }, expected_output: [55] },
    { input: { n: 100 }, expected_output: [5050] },
  ],
  optimal_solution: 'function sumTo(n) {\n  return (n * (n + 1)) / 2;\n}',
};

/** A problems folder and a solutions folder: a fast, a slow, a wrong model and one that escapes the meter. */
function folders(): { root: string; problems: string; solutions: string } {
  const root = mkdtempSync(join(tmpdir(), 'evalrun-efficiency-'));
  const problems = join(root, 'problems');
  const solutions = join(root, 'solutions');
  mkdirSync(problems);
  writeFileSync(join(problems, 'sum_to.json'), JSON.stringify(SUM));
  for (const [model, code] of <Array<[string, string]>>[
    ['fast', 'function sumTo(n) { return (n * (n + 1)) / 2; }'],
    ['slow', 'function sumTo(n) { let s = 0; for (let i = 1; i <= n; i++) s += i; return s; }'],
    ['wrong', 'function sumTo(n) { return n; }'],
    // Passes, but takes a name of the meter's, so its measured run cannot load it.
    ['escapes', 'var __evalrun_x; function sumTo(n) { let s = 0; for (let i = 1; i <= n; i++) s += i; return s; }'],
  ]) {
    mkdirSync(join(solutions, model), { recursive: true });
    writeFileSync(join(solutions, model, 'sum_to.js'), code);
  }
  return { root, problems, solutions };
}

function one(card: Scorecard, model: string): CandidateResult {
  const found = card.candidates.filter((c) => c.model_id === model);
  expect(found, model).toHaveLength(1);
  return found[0]!;
}

/** A passing candidate's figures, whole: its cost is its loading's and its tests', each test timed `--repetitions` times. */
function expectMeasured(c: CandidateResult): void {
  expect(c.measure, c.model_id).not.toBeNull();
  expect(c.measure_error).toBeNull();
  expect(Number.isInteger(c.measure!.cost)).toBe(true);
  expect(c.measure!.cost).toBe(c.measure!.load_cost + c.tests.reduce((n, t) => n + t.measure!.cost, 0));
  expect(c.tests.every((t) => t.measure !== undefined && t.measure.wall_ms.length === 3)).toBe(true);
}

describe('--grade on the CLI', () => {
  const dirs = folders();
  const out = join(dirs.root, 'results', 'card.json');
  const run = runCli([
    '--problems',
    dirs.problems,
    '--solutions',
    dirs.solutions,
    '--grade',
    'correctness,performance,memory',
    '--out',
    out,
    '--no-progress',
  ]).then((r) => ({ ...r, card: JSON.parse(readFileSync(out, 'utf8')) as Scorecard }));

  it('records the graders in the options, and grades the optimal solution beside the submissions on their tests', async () => {
    const { code, card, stderr } = await run;
    expect(code, stderr).toBe(0);
    expect(card.options).toMatchObject({ grade: ['correctness', 'performance', 'memory'], repetitions: 3 });
    const header = JSON.parse(readFileSync(`${out}l`, 'utf8').split('\n')[0]!) as { options: Record<string, unknown> };
    expect(header.options.grade).toEqual(['correctness', 'performance', 'memory']);
    const optimal = one(card, 'optimal_solution');
    expect(optimal.source).toMatch(/sum_to\.json#optimal_solution$/);
    // The correctness suite only: the submissions' tests, not the prompt's samples.
    expect(optimal.tests.map((t) => t.suite)).toEqual(['correctness', 'correctness', 'correctness']);
    expect(card.models.map((m) => m.model_id)).toEqual(['escapes', 'fast', 'optimal_solution', 'slow', 'wrong']);
  });

  it('measures only candidates that passed every test, and says why a candidate has no score', async () => {
    const { card } = await run;
    const wrong = one(card, 'wrong');
    expect(wrong).toMatchObject({ status: 'failed', measure: null, measure_error: 'did not pass every test' });
    for (const model of ['fast', 'slow', 'optimal_solution']) expectMeasured(one(card, model));
    const efficiency = card.efficiency!;
    expect(efficiency.graders).toEqual(['performance', 'memory']);
    const scoreOf = (model: string): NonNullable<Scorecard['efficiency']>['candidates'][number] =>
      efficiency.candidates[card.candidates.findIndex((c) => c.model_id === model)]!;
    expect(scoreOf('wrong')).toMatchObject({ performance: null, memory: null, reason: 'not all tests passed' });
    // The optimal solution is the closed form: the same code scores 1, the loop that counts to n less.
    expect(scoreOf('fast')).toMatchObject({ performance: 1, reason: null });
    expect(scoreOf('optimal_solution')).toMatchObject({ performance: 1, memory: 1, reason: null });
    expect(one(card, 'slow').measure!.cost).toBeGreaterThan(one(card, 'fast').measure!.cost);
    expect(scoreOf('slow').performance).toBeLessThan(1);
    expect(scoreOf('slow').performance).toBeGreaterThan(0);
    // Escaping the meter is no way out of a score: it passed, so it counts, as the worst.
    expect(one(card, 'escapes')).toMatchObject({ status: 'passed', measure: null });
    expect(one(card, 'escapes').measure_error).toMatch(/^the measured run disagreed with the first: the code did not load/);
    expect(scoreOf('escapes')).toMatchObject({ performance: 0, memory: 0, cost: null });
    expect(scoreOf('escapes').reason).toMatch(/^scored 0, passed but not measured: the measured run disagreed/);
    expect(efficiency.models.find((m) => m.model_id === 'escapes')).toMatchObject({ performance: { mean: 0, scored: 1 } });
    expect(efficiency.models.map((m) => [m.model_id, m.candidates])).toEqual([
      ['escapes', 1],
      ['fast', 1],
      ['optimal_solution', 1],
      ['slow', 1],
      ['wrong', 1],
    ]);
  });

  it('shows the graders as columns of the model table', async () => {
    const { stdout } = await run;
    expect(stdout).toMatch(/pass rate\s*│\s*performance\s*│\s*memory/);
    expect(stdout).toMatch(/n\/a: .*not all tests passed/);
  });

  it('renders the same scores again from the run log alone, and --resume keeps the graders', async () => {
    const { card } = await run;
    const again = await runCli(['report', `${out}l`, '--format', 'json']);
    expect(again.code, again.stderr).toBe(0);
    const reported = JSON.parse(again.stdout) as Scorecard;
    expect(reported.efficiency).toEqual(card.efficiency);
    const refused = await runCli(['--resume', `${out}l`, '--grade', 'memory']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--resume takes --grade from the run log');
    const resumed = await runCli(['--resume', `${out}l`, '--json', '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const card2 = JSON.parse(resumed.stdout) as Scorecard;
    expect(card2.options.grade).toEqual(['correctness', 'performance', 'memory']);
    expect(card2.efficiency).toEqual(card.efficiency);
  });
});

describe('--grade in shards', () => {
  it('plans the same candidates, and the merged scorecard has the one run’s scores', async () => {
    const dirs = folders();
    const args = ['--problems', dirs.problems, '--solutions', dirs.solutions, '--grade', 'performance', '--no-progress'];
    const whole = join(dirs.root, 'whole.json');
    expect((await runCli([...args, '--out', whole])).code).toBe(0);
    for (const i of [1, 2]) expect((await runCli([...args, '--shard', `${i}/2`, '--out', join(dirs.root, `shard${i}.json`)])).code).toBe(0);
    const merged = join(dirs.root, 'merged.json');
    const merge = await runCli(['merge', join(dirs.root, 'shard1.jsonl'), join(dirs.root, 'shard2.jsonl'), '--out', merged]);
    expect(merge.code, merge.stderr).toBe(0);
    const [a, b] = [whole, merged].map((f) => JSON.parse(readFileSync(f, 'utf8')) as Scorecard);
    expect(b!.options.grade).toEqual(['correctness', 'performance']);
    expect(b!.candidates.map((c) => c.model_id)).toEqual(a!.candidates.map((c) => c.model_id));
    expect(b!.efficiency).toEqual(a!.efficiency);
    expect(a!.efficiency!.graders).toEqual(['performance']);
    // The shard without the problem's optimal solution says where it is, rather than that there is none.
    const parts = [1, 2].map((i) => JSON.parse(readFileSync(join(dirs.root, `shard${i}.json`), 'utf8')) as Scorecard);
    const withoutReference = parts.find((p) => !p.candidates.some((c) => c.model_id === 'optimal_solution'))!;
    expect(withoutReference.candidates.length).toBeGreaterThan(0);
    const inShard = 'no optimal solution graded in this shard (merge the shards to score it)';
    const reasons = withoutReference.efficiency!.candidates.map((c) => c.reason);
    expect(reasons).toContain(inShard);
    for (const reason of reasons) expect([inShard, 'not all tests passed']).toContain(reason?.startsWith('not measured: ') ? inShard : reason);
  });
});

describe('without --grade', () => {
  it('measures nothing, plans no optimal solution beside the submissions, and records no graders', async () => {
    const dirs = folders();
    const out = join(dirs.root, 'card.json');
    const { code } = await runCli(['--problems', dirs.problems, '--solutions', dirs.solutions, '--out', out, '--no-progress']);
    expect(code).toBe(0);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect('grade' in card.options).toBe(false);
    expect('efficiency' in card).toBe(false);
    expect(card.candidates.map((c) => c.model_id).sort()).toEqual(['escapes', 'fast', 'slow', 'wrong']);
    expect(card.candidates.some((c) => 'measure' in c || c.tests.some((t) => 'measure' in t))).toBe(false);
  });

  it('refuses an unknown grader name with a usage error', async () => {
    const { code, stderr } = await runCli(['--problems', 'x', '--grade', 'correctness,speed']);
    expect(code).toBe(2);
    expect(stderr).toContain('--grade: unknown grader "speed"; the graders are correctness, performance, memory');
  });
});

describe('the library', () => {
  it('evaluate takes grade, and a self-check scores each optimal solution against itself', async () => {
    const dirs = folders();
    const card = await evaluate({ problems: dirs.problems, grade: ['memory'], out: join(dirs.root, 'self.json'), concurrency: 1 });
    expect(card.options.grade).toEqual(['correctness', 'memory']);
    // A self-check's optimal solution runs its correctness suite and its samples: a record per suite, each its own reference.
    expect(card.candidates.map((c) => c.tests[0]!.suite)).toEqual(['correctness', 'sample:brief']);
    const scored = card.efficiency!.candidates;
    for (const [i, c] of card.candidates.entries()) {
      expect(c.measure).not.toBeNull();
      expect(scored[i]!.memory).toBe(1);
      expect('performance' in scored[i]!).toBe(false);
    }
    await expect(evaluate({ problems: dirs.problems, grade: 'speed' })).rejects.toThrow(/evaluate: `grade`: unknown grader "speed"/);
  });

  it('createGrader grades the optimal solution in the call and scores each candidate against it', async () => {
    const grader = await createGrader({ problems: [SUM], concurrency: 1, warmLanguages: ['javascript'] });
    try {
      const plain = await grader.grade('sum_to', [{ code: 'function sumTo(n) { return (n * (n + 1)) / 2; }' }]);
      expect('measure' in plain[0]!).toBe(false);
      expect('efficiency' in plain[0]!).toBe(false);
      const results = await grader.grade(
        'sum_to',
        [
          { id: 'ok', code: 'function sumTo(n) { let s = 0; for (let i = 1; i <= n; i++) s += i; return s; }' },
          { id: 'bad', code: 'function sumTo(n) { return n; }' },
        ],
        { grade: 'performance,memory' },
      );
      expect(results.map((r) => r.id)).toEqual(['ok', 'bad']);
      expect(results[1]).toMatchObject({
        status: 'failed',
        measure: null,
        measure_error: 'did not pass every test',
        efficiency: { reason: 'not all tests passed' },
      });
      const ok = results[0]!;
      expect(ok.measure).not.toBeNull();
      // A loop to n against the closed form.
      expect(ok.efficiency).toMatchObject({ reason: null });
      expect(ok.efficiency!.performance).toBeLessThan(1);
      await expect(grader.grade('sum_to', [{ code: 'x' }], { grade: ['speed'] })).rejects.toThrow(/options\.grade unknown grader "speed"/);
    } finally {
      await grader.close();
    }
  });
});

describe('evalrun serve', () => {
  it('takes grade and repetitions in a request’s options, and refuses an unknown grader', async () => {
    const server = await startServer(['--problems', SERVE_PROBLEMS, '--concurrency', '1', '--warm', 'javascript']);
    try {
      const url = `${server.url}/v1/grade`;
      const candidates = [{ id: 'a', code: 'function add(a, b) { return a + b; }' }];
      const plain = await post(url, { problem_id: 'add', candidates });
      expect(plain.status).toBe(200);
      expect('efficiency' in plain.body.results[0]!).toBe(false);
      const graded = await post(url, { problem_id: 'add', candidates, options: { grade: ['performance', 'memory'], repetitions: 2 } });
      expect(graded.status).toBe(200);
      const result = graded.body.results[0] as unknown as Record<string, unknown>;
      expect(Object.keys(result)).toEqual(expect.arrayContaining(['measure', 'measure_error', 'efficiency']));
      // The figures and scores come before the tests, as in the scorecard's records.
      expect(Object.keys(result).indexOf('efficiency')).toBeLessThan(Object.keys(result).indexOf('tests'));
      expect(result.measure).not.toBeNull();
      expect(result.efficiency).toMatchObject({ reason: null, performance: 1, memory: 1 });
      const refused = await post(url, { problem_id: 'add', candidates, options: { grade: 'speed' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain('options.grade unknown grader "speed"');
    } finally {
      await server.stop();
    }
  });
});
