/**
 * createGrader, the grading service's engine as a library: problems given
 * as objects, workers kept warm between calls, refusals before anything
 * runs, stop on first failure; and `evaluate` with the same flag.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrader, evaluate, GradeRefused, GraderClosed, InvalidProblem, ProblemText, type GradedCandidate, type Grader } from '../../src/index.js';
import { childPids, SERVE_PROBLEMS } from './serve-helpers.js';

const add = JSON.parse(readFileSync(join(SERVE_PROBLEMS, 'add.json'), 'utf8')) as Record<string, unknown>;
const GOOD = 'function add(a, b) { return a + b; }';
const WRONG_ON_FIRST = 'function add(a, b) { return a > 1 ? a + b : 0; }';

describe('createGrader', () => {
  let grader: Grader;

  beforeAll(async () => {
    grader = await createGrader({ problems: [add], concurrency: 1, warmLanguages: ['javascript'] });
    await grader.ready();
  });

  afterAll(async () => {
    await grader?.close();
  });

  it('grades by id, keeps the same warm workers between calls, and tells each result as it comes', async () => {
    const before = childPids(process.pid);
    const heard: GradedCandidate[] = [];
    const first = await grader.grade('add', [{ id: 'a', code: GOOD }, { code: WRONG_ON_FIRST }], { onResult: (r) => heard.push(r) });
    expect(first.map((r) => [r.index, r.id, r.status, r.passed, r.total, r.score])).toEqual([
      [0, 'a', 'passed', 4, 4, 1],
      [1, null, 'failed', 3, 4, 0.75],
    ]);
    expect(heard.map((r) => r.index).sort()).toEqual([0, 1]);
    const second = await grader.grade('add', [{ code: `def add(a, b):\n    return a + b\n`, language: 'py' }]);
    expect(second[0]).toMatchObject({ language: 'python', status: 'passed' });
    expect(second[0]!.tests.map((t) => t.status)).toEqual(['pass', 'pass', 'pass', 'pass']);
    expect(before).toHaveLength(1);
    expect(childPids(process.pid)).toEqual(before);
    expect(grader.workerRestarts).toBe(0);
    expect(grader.queued).toBe(0);
  });

  it('grades problems given inline, as objects or text, checked as files are', async () => {
    const inline = { ...add, identifier: 'add_inline' };
    const [byObject] = await grader.grade(inline, [{ code: GOOD }]);
    expect(byObject).toMatchObject({ problem_id: 'add_inline', status: 'passed', total: 4 });
    const [byText] = await grader.grade(new ProblemText(JSON.stringify(inline)), [{ code: GOOD }]);
    expect(byText).toMatchObject({ problem_id: 'add_inline', status: 'passed' });

    const broken = { ...add, correctness_test_suite: [{ input: { a: 1 }, expected_output: [1] }] };
    const refusal = await grader.grade(broken, [{ code: GOOD }]).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(GradeRefused);
    expect((refusal as GradeRefused).reason).toBe('invalid-problem');
    expect((refusal as GradeRefused).errors).toEqual(['problem: $.correctness_test_suite[0].input: missing parameter "b"']);
  });

  it('refuses what cannot be graded before anything runs', async () => {
    const reasons = async (problem: string | Record<string, unknown>, candidates: unknown[], options = {}): Promise<string> => {
      const e = await grader.grade(problem, candidates as never, options).catch((error: unknown) => error);
      return e instanceof GradeRefused ? `${e.reason}: ${e.message}` : String(e);
    };
    expect(await reasons('nope', [{ code: GOOD }])).toBe('unknown-problem: unknown problem "nope"');
    expect(await reasons('add', [])).toMatch(/^no-candidates/);
    expect(await reasons('add', [{ code: GOOD, language: 'cobol' }])).toMatch(/^unsupported-language: candidates\[0\]\.language/);
    expect(await reasons('add', [{ code: 7 }])).toBe('invalid-candidate: candidates[0].code: expected a string');
    expect(await reasons('add', [{ code: GOOD, prompt_id: 'brief' }])).toBe(
      'unknown-prompt: candidates[0].prompt_id: problem "add" has no prompts, so no prompt "brief" (leave prompt_id out)',
    );
    expect(await reasons('add', [{ code: GOOD }], { timeoutMs: 0 })).toBe(
      'invalid-options: options.timeoutMs must be a whole number from 1 to 86400000, got 0',
    );
    expect(await reasons('add', [{ code: GOOD }], { memoryMb: 4096 })).toBe(
      'invalid-options: options.memoryMb must be a whole number from 1 to 3967, got 4096',
    );
  });

  it('stops at the first failure when asked: the rest are skipped and count in the total', async () => {
    const [stopped] = await grader.grade('add', [{ code: 'function add(a, b) { return a < 0 ? 99 : a + b; }' }], { stopOnFirstFailure: true });
    expect(stopped!.tests.map((t) => t.status)).toEqual(['pass', 'fail', 'skipped', 'skipped']);
    expect(stopped).toMatchObject({ status: 'failed', passed: 1, total: 4, score: 0.25 });
  });

  it('refuses a list with an invalid problem, naming it', async () => {
    const e = await createGrader({ problems: [add, { identifier: 'x' }], concurrency: 1 }).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(InvalidProblem);
    expect((e as InvalidProblem).errors[0]).toMatch(/^problems\[1\]: \$: missing required field/);
  });
});

describe('closing', () => {
  it('finishes what was admitted, then refuses new calls', async () => {
    const grader = await createGrader({ problems: [add], concurrency: 1, warmLanguages: [] });
    const pending = grader.grade('add', [{ code: GOOD }, { code: GOOD }]);
    await grader.close();
    expect((await pending).map((r) => r.status)).toEqual(['passed', 'passed']);
    await expect(grader.grade('add', [{ code: GOOD }])).rejects.toBeInstanceOf(GraderClosed);
  });
});

describe('evaluate({ stopOnFirstFailure })', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalrun-stop-'));
    mkdirSync(join(dir, 'solutions', 'm'), { recursive: true });
    writeFileSync(join(dir, 'solutions', 'm', 'add.js'), 'function add(a, b) { return a < 0 ? 99 : a + b; }\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the tests after the first failure as skipped', async () => {
    const card = await evaluate({
      problems: SERVE_PROBLEMS,
      solutions: join(dir, 'solutions'),
      out: join(dir, 'card.json'),
      concurrency: 1,
      stopOnFirstFailure: true,
    });
    const [result] = card.candidates;
    expect(result!.tests.map((t) => t.status)).toEqual(['pass', 'fail', 'skipped', 'skipped']);
    expect(card.summary).toMatchObject({ tests: 4, passed: 1, failed: 1, skipped: 2 });
    expect(card.options.stop_on_first_failure).toBe(true);
  });
});
