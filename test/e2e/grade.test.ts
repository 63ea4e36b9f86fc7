/**
 * End-to-end grading of submissions: `evalrun --problems DIR --solutions DIR`
 * on a folder that mixes every layout, wrapping, entry-point rule and
 * language evalrun accepts.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';

const PROBLEMS = 'test/fixtures/grade/problems';
const SOLUTIONS = 'test/fixtures/grade/solutions';
const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-grade-'));

function grade(extra: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string; card: Scorecard }> {
  const out = join(scratch(), 'card.json');
  return runCli(['--problems', PROBLEMS, '--solutions', SOLUTIONS, '--out', out, ...extra]).then((r) => ({
    ...r,
    card: JSON.parse(readFileSync(out, 'utf8')) as Scorecard,
  }));
}

function candidate(card: Scorecard, model: string, problem: string, sample: string | null = null): CandidateResult {
  const found = card.candidates.filter((c) => c.model_id === model && c.problem_id === problem && c.sample_id === sample);
  if (found.length !== 1) throw new Error(`expected one candidate ${model}/${problem}/${sample}, found ${found.length}`);
  return found[0]!;
}

describe('grading a mixed solutions folder', () => {
  const run = grade(['--pass-at', '1,2,10']);

  it('exits 0 whatever the scores, and shows roll-ups rather than every candidate', async () => {
    const { code, stdout, card } = await run;
    expect(code).toBe(0);
    expect(card.mode).toBe('grade');
    expect(stdout).toMatch(/model\s*│\s*candidates\s*│\s*tests passed\s*│\s*problems solved\s*│\s*pass rate/);
    expect(stdout).toMatch(/prompt\s*│\s*candidates/);
    expect(stdout).toMatch(/tag\s*│\s*candidates/);
    expect(stdout).toMatch(/pass@k/);
    // The per-candidate table is behind --details.
    expect(stdout).not.toMatch(/problem\s*│\s*model\s*│\s*prompt/);
  });

  it('reads the reference layout, source files, files at the top and JSON Lines', async () => {
    const { card } = await run;
    const ids = card.candidates.map((c) => `${c.model_id}/${c.problem_id}/${c.prompt_id ?? '-'}/${c.sample_id ?? '-'}`);
    expect(ids.sort()).toEqual(
      [
        'class-model/add/-/-',
        // An empty source file: an answer with no code.
        'empty-model/add/-/-',
        'esm-model/add/-/-',
        'esm-model/sort_list/-/-',
        'py-model/add/brief/-',
        'py-model/sort_list/brief/-',
        'ref-model/add/brief/-',
        'ref-model/add/generic/-',
        'sampler/add/brief/0',
        'sampler/add/brief/1',
        'sampler/add/brief/2',
        'sampler/add/brief/3',
        'sampler/add/brief/4',
        // A file at the top of --solutions belongs to a model named after the folder.
        'solutions/sort_list/-/-',
        'src-model/add/-/-',
        'src-model/count_after_push/-/-',
        'src-model/sort_list/-/-',
        'ts-model/add/-/-',
        'ts-model/sort_list/-/-',
      ].sort(),
    );
  });

  it('reports what it skipped, with file (and line) and reason', async () => {
    const { card, stdout } = await run;
    const skipped = card.skipped_submissions.map((s) => `${s.source}: ${s.reason}`);
    expect(skipped).toHaveLength(2);
    expect(candidate(card, 'empty-model', 'add')).toMatchObject({ status: 'load-error', error: 'the submission holds no code' });
    expect(skipped.find((s) => s.startsWith(`${SOLUTIONS}/sampler.jsonl:4: `))).toMatch(/invalid JSON/);
    expect(skipped.find((s) => s.startsWith(`${SOLUTIONS}/src-model/no_such_problem.js: `))).toMatch(/unknown problem/);
    expect(stdout).toMatch(/Skipped submissions \(2\)/);
  });

  it('unwraps fences (the last block wins) and keeps both the raw text and the code that ran', async () => {
    const { card } = await run;
    const brief = card.candidates.find((c) => c.model_id === 'ref-model' && c.prompt_id === 'brief')!;
    expect(brief).toMatchObject({ passed: 3, total: 3, entry_point: 'declaration:add' });
    expect(brief.raw_code).toContain('On reflection');
    expect(brief.code).toBe('function add(a, b) {\n  return a + b;\n}');
  });

  it('records which rule chose the entry point', async () => {
    const { card } = await run;
    expect(candidate(card, 'src-model', 'add').entry_point).toBe('module.exports.add');
    expect(candidate(card, 'esm-model', 'add').entry_point).toBe('declaration:add');
    expect(candidate(card, 'esm-model', 'sort_list').entry_point).toBe('default export');
    expect(candidate(card, 'class-model', 'add').entry_point).toBe('static method Solution.add');
    // genericize: true showed the model `function(a, b)`, so it named the function itself.
    const generic = card.candidates.find((c) => c.model_id === 'ref-model' && c.prompt_id === 'generic')!;
    expect(generic).toMatchObject({ passed: 3, total: 3, entry_point: 'last top-level function:sumOfTwo' });
    for (const c of card.candidates.filter((c) => c.status === 'passed' || c.status === 'failed')) {
      expect(c.entry_point, `${c.source}`).not.toBeNull();
    }
  });

  it('strips TypeScript types (type errors are not failures) and reports TypeScript syntax errors', async () => {
    const { card } = await run;
    expect(candidate(card, 'ts-model', 'sort_list')).toMatchObject({ language: 'typescript', status: 'passed', passed: 2 });
    const broken = candidate(card, 'ts-model', 'add');
    expect(broken).toMatchObject({ language: 'typescript', status: 'load-error', passed: 0, total: 3 });
    expect(broken.error).toMatch(/line 2, column \d+/);
    expect(broken.tests.map((t) => t.status)).toEqual(['error', 'error', 'error']);
  });

  it('recognises Python, fenced or bare, and runs it as Python', async () => {
    const { card } = await run;
    expect(candidate(card, 'py-model', 'add')).toMatchObject({ language: 'python', status: 'passed', passed: 3 });
    expect(candidate(card, 'py-model', 'sort_list')).toMatchObject({ language: 'python', status: 'passed', passed: 2 });
  });

  it('gives every test its own copy of the inputs', async () => {
    const { card } = await run;
    const mutator = candidate(card, 'src-model', 'count_after_push');
    expect(mutator.tests.map((t) => [t.status, t.actual])).toEqual([
      ['pass', 3],
      ['pass', 3],
      ['pass', 3],
    ]);
    for (const t of mutator.tests) expect(t.input).toEqual({ xs: [1, 2] });
  });

  it('grades wrong answers as failures with expected and actual', async () => {
    const { card } = await run;
    const wrong = candidate(card, 'src-model', 'sort_list');
    expect(wrong.tests.map((t) => t.status)).toEqual(['pass', 'fail']);
    expect(wrong.tests[1]).toMatchObject({ expected: [-1, 9, 10], actual: [-1, 10, 9] });
  });

  it('rolls up per model, prompt and tag', async () => {
    const { card } = await run;
    expect(card.models.find((m) => m.model_id === 'ts-model')).toEqual({
      model_id: 'ts-model',
      candidates: 2,
      tests: 5,
      passed: 2,
      problems: 2,
      problems_solved: 1,
      pass_rate: 0.4,
    });
    expect(card.models.find((m) => m.model_id === 'sampler')).toMatchObject({ candidates: 5, tests: 15, passed: 7, problems_solved: 1 });
    expect(card.prompts.map((p) => p.prompt_id)).toEqual([null, 'brief', 'generic']);
    expect(card.tags.map((t) => t.tag)).toEqual(['arithmetic', 'lists', 'sorting']);
    expect(card.tags.find((t) => t.tag === 'sorting')).toMatchObject({ candidates: 5, tests: 10, passed: 9 });
  });

  it('computes pass@k with the unbiased estimator, and does not guess k > n', async () => {
    const { card } = await run;
    // sampler: n = 5 samples of add/brief, c = 2 correct (samples 0 and 2).
    // pass@1 = c/n = 0.4; pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7; pass@10: n < 10.
    const sampler = card.pass_at_k.find((r) => r.model_id === 'sampler')!;
    expect(sampler).toMatchObject({ tasks: 1, min_samples: 5, max_samples: 5 });
    expect(sampler.values['pass@1']).toBe(0.4);
    expect(sampler.values['pass@2']).toBeCloseTo(0.7, 12);
    expect(sampler.values['pass@10']).toBeNull();
    const ts = card.pass_at_k.find((r) => r.model_id === 'ts-model')!;
    expect(ts.values).toEqual({ 'pass@1': 0.5, 'pass@2': null, 'pass@10': null });
  });

  it('lists every candidate and failing test with --details', async () => {
    const { stdout } = await grade(['--details']);
    expect(stdout).toMatch(/problem\s*│\s*model\s*│\s*prompt\s*│\s*sample\s*│\s*passed/);
    expect(stdout).toMatch(/Failing tests \(\d+\)/);
  });
});

describe('filters', () => {
  const models = (card: Scorecard): string[] => [...new Set(card.candidates.map((c) => c.model_id))].sort();
  const problems = (card: Scorecard): string[] => [...new Set(card.candidates.map((c) => c.problem_id))].sort();

  it('--problem selects problems by glob', async () => {
    const { card } = await grade(['--problem', 'sort_*']);
    expect(problems(card)).toEqual(['sort_list']);
    expect(card.summary.problems).toBe(1);
  });

  it('--tag selects problems by tag, --model selects models by glob, and they combine', async () => {
    const byTag = await grade(['--tag', 'arithmetic']);
    expect(problems(byTag.card)).toEqual(['add']);
    const byModel = await grade(['--model', 'src-*', '--model', 'esm-model']);
    expect(models(byModel.card)).toEqual(['esm-model', 'src-model']);
    const both = await grade(['--tag', 'lists', '--model', 'src-*']);
    expect(both.card.candidates.map((c) => c.problem_id).sort()).toEqual(['count_after_push', 'sort_list']);
    expect(models(both.card)).toEqual(['src-model']);
  });

  it('a filter that selects nothing still completes', async () => {
    const { code, card } = await grade(['--model', 'nobody']);
    expect(code).toBe(0);
    expect(card.candidates).toEqual([]);
    expect(card.summary.tests).toBe(0);
  });
});

describe('exit codes when grading', () => {
  it('--min-pass-rate missed exits 1, met exits 0', async () => {
    const missed = await grade(['--min-pass-rate', '0.9']);
    expect(missed.code).toBe(1);
    expect(missed.stderr).toMatch(/pass rate \d+(\.\d+)?% is below --min-pass-rate 90%/);
    const met = await grade(['--min-pass-rate', '50%']);
    expect(met.code).toBe(0);
  });

  it('usage errors exit 2: a missing solutions folder, a bad rate, a bad k', async () => {
    for (const args of [
      ['--solutions', 'test/fixtures/nope'],
      ['--solutions', SOLUTIONS, '--min-pass-rate', '2'],
      ['--solutions', SOLUTIONS, '--pass-at', '0'],
      ['--min-pass-rate', '0.5'],
    ]) {
      const r = await runCli(['--problems', PROBLEMS, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});

describe('a submission naming a prompt its problem does not have', () => {
  it('is skipped with the prompts the problem has, in every layout, and the others are graded', async () => {
    const root = scratch();
    const solutions = join(root, 'solutions');
    mkdirSync(join(solutions, 'm', 'add'), { recursive: true });
    writeFileSync(join(solutions, 'm', 'add', 'brief.js'), 'function add(a, b) { return a + b; }\n');
    // A typo in a file name, and a JSON Lines prompt id with another spelling: a generic body would run under the wrong head.
    writeFileSync(join(solutions, 'm', 'add', 'Brief.js'), 'function add(a, b) { return a + b; }\n');
    writeFileSync(
      join(solutions, 'lines.jsonl'),
      [
        { task_id: 'add', model: 'm', prompt_id: 'generic', completion: 'function function_(a, b) { return a + b; }' },
        { task_id: 'add', model: 'm', prompt_id: 'Generic', completion: '  return a + b;' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const out = join(root, 'card.json');
    const r = await runCli(['--problems', PROBLEMS, '--solutions', solutions, '--out', out, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.candidates.map((c) => `${c.model_id}/${c.prompt_id}`).sort()).toEqual(['m/brief', 'm/generic']);
    expect(card.skipped_submissions.map((s) => `${s.source.replace(`${solutions}/`, '')}: ${s.reason}`).sort()).toEqual([
      'lines.jsonl:2: unknown prompt "Generic": problem "add" has no prompt with this id (its prompts: "brief", "generic")',
      'm/add/Brief.js: unknown prompt "Brief": problem "add" has no prompt with this id (its prompts: "brief", "generic")',
    ]);
  });
});
