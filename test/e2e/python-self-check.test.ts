/**
 * End-to-end: the built CLI self-checking Python problems, through the
 * worker pool, as a user runs it. The shared corpus sample is read in place
 * from ../shared/corpus-sample when it exists (it is not part of the
 * repository and CI may not have it).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { runCli, withoutProgress } from './run-cli.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CORPUS = resolve(ROOT, '..', 'shared', 'corpus-sample');
const haveCorpus = existsSync(CORPUS);
const RUN_MS = 180_000;

const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-e2e-py-'));

function find(card: Scorecard, problem: string, prompt: string | null = null): CandidateResult {
  const found = card.candidates.find((c) => c.problem_id === problem && c.prompt_id === prompt);
  if (found === undefined) throw new Error(`no candidate ${problem}/${prompt}`);
  return found;
}

/** Each test as "status" or "status: message", in order. */
function verdicts(candidate: CandidateResult): string[] {
  return candidate.tests.map((t) => (t.status === 'pass' || t.status === 'fail' ? t.status : `${t.status}: ${t.error}`));
}

async function selfCheck(problems: string, extra: string[] = []): Promise<{ code: number | null; card: Scorecard; stdout: string; stderr: string }> {
  const out = join(scratch(), 'card.json');
  const r = await runCli(['--problems', problems, '--out', out, ...extra]);
  if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
  return { code: r.code, card: JSON.parse(readFileSync(out, 'utf8')) as Scorecard, stdout: r.stdout, stderr: r.stderr };
}

describe('evalrun --problems on Python optimal solutions', () => {
  const run = selfCheck('test/fixtures/python-self-check', ['--timeout', '1000', '--memory', '128']);

  it(
    'exits 1 because some solutions fail, and reports every problem',
    async () => {
      const { code, card, stderr } = await run;
      expect(withoutProgress(stderr)).toBe('');
      expect(code).toBe(1);
      expect(card.summary).toMatchObject({
        problems: 8,
        candidates: 9,
        tests: 16,
        passed: 11,
        failed: 1,
        errored: 2,
        timed_out: 1,
        memory_exceeded: 1,
        invalid_problems: 0,
      });
    },
    RUN_MS,
  );

  it(
    'passes correct solutions: typed-string inputs, a class method, float tolerance, tuples and dicts',
    async () => {
      const { card } = await run;
      expect(find(card, 'py_sum_evens')).toMatchObject({ language: 'python', status: 'passed', passed: 3, total: 3, entry_point: 'name:sum_evens' });
      expect(find(card, 'py_sum_evens', 'generic')).toMatchObject({ status: 'passed', passed: 1, total: 1 });
      const stats = find(card, 'py_stats');
      expect(stats).toMatchObject({ status: 'passed', passed: 2, entry_point: 'method:Solution.stats' });
      // 0.1 + 0.2 is not 0.3 in binary; the default tolerance accepts it.
      // Several return values come back as the tuple Python returned, recorded as a tuple.
      expect((stats.tests[0]!.actual as { items: unknown[] }).items[0]).toBe(0.15000000000000002);
      // The candidate's 1.0 stays a float in the record.
      expect(stats.tests[1]!.actual).toEqual({ $evalrun: 'tuple', items: [2.5, { $evalrun: 'float', value: '1.0' }, 4.5, { x: 1 }] });
    },
    RUN_MS,
  );

  it(
    'gives every failure its exact verdict',
    async () => {
      const { card } = await run;
      expect(verdicts(find(card, 'py_wrong_answer'))).toEqual(['pass', 'fail']);
      expect(find(card, 'py_wrong_answer').tests[1]).toMatchObject({ expected: 16, actual: 15, error: 'expected 16, got 15' });
      expect(verdicts(find(card, 'py_exception'))).toEqual(['pass', 'error: ZeroDivisionError: division by zero']);
      expect(verdicts(find(card, 'py_timeout'))).toEqual(['pass', 'timeout: exceeded the time limit of 1000 ms', 'pass']);
      expect(verdicts(find(card, 'py_memory_bomb'))).toEqual(['memory: MemoryError: the candidate ran out of memory']);
      expect(verdicts(find(card, 'py_escape'))).toEqual(["error: ModuleNotFoundError: module 'js' is not available in the sandbox"]);
      for (const id of ['py_wrong_answer', 'py_exception', 'py_timeout', 'py_memory_bomb', 'py_escape']) {
        expect(find(card, id)).toMatchObject({ language: 'python', status: 'failed' });
      }
    },
    RUN_MS,
  );

  it(
    'runs a JavaScript solution in the same run',
    async () => {
      const { card } = await run;
      expect(find(card, 'js_alongside')).toMatchObject({ language: 'javascript', status: 'passed', passed: 1 });
    },
    RUN_MS,
  );
});

describe.skipIf(!haveCorpus)(`corpus sample self-check (${haveCorpus ? CORPUS : 'skipped: ../shared/corpus-sample is absent'})`, () => {
  it(
    'memory: all 20 optimal solutions pass their own suites',
    async () => {
      const { code, card, stdout } = await selfCheck(join(CORPUS, 'memory', 'problems'));
      expect(code, stdout).toBe(0);
      const problems = new Set(card.candidates.map((c) => c.problem_id));
      expect(problems.size).toBe(20);
      expect(readdirSync(join(CORPUS, 'memory', 'problems')).filter((f) => f.endsWith('.json'))).toHaveLength(20);
      const failing = card.candidates.filter((c) => c.status !== 'passed');
      expect(failing.map((c) => `${c.problem_id}/${c.prompt_id}: ${verdicts(c).join(', ')}`)).toEqual([]);
      expect(card.candidates.every((c) => c.language === 'python')).toBe(true);
      expect(card.summary.passed).toBe(card.summary.tests);
      expect(card.summary.tests).toBeGreaterThanOrEqual(20);
    },
    RUN_MS,
  );

  it(
    'basic: the problems carry no optimal_solution, so there is nothing to run and nothing fails',
    async () => {
      const { code, card, stdout } = await selfCheck(join(CORPUS, 'basic', 'problems'));
      expect(code).toBe(0);
      expect(card.summary).toMatchObject({ problems: 5, candidates: 0, invalid_problems: 0 });
      expect(stdout).toMatch(/no optimal_solution/);
    },
    RUN_MS,
  );

  it(
    'bugfixing: every optimal solution passes, except on one sample whose input is not a string',
    async () => {
      const { code, card } = await selfCheck(join(CORPUS, 'bugfixing', 'problems'));
      expect(card.summary.problems).toBe(5);
      expect(card.summary.invalid_problems).toBe(0);
      // problem_4's brief_prompt sample writes a = "'Hello', " (the quote
      // closes before the comma): as Python that is the tuple ('Hello',), so
      // `a + b` cannot give "Hello, World!" under any grader. The second
      // sample and the correctness suite pass.
      const failing = card.candidates.filter((c) => c.status !== 'passed');
      expect(failing.map((c) => `${c.problem_id}/${c.prompt_id}`)).toEqual(['problem_4/brief_prompt']);
      const sample = find(card, 'problem_4', 'brief_prompt');
      expect(verdicts(sample)).toEqual(['fail', 'pass']);
      // The record shows what the function got: b, a quoted str as the whole value, unquoted.
      expect(sample.tests[0]!.input).toEqual({ a: "'Hello', ", b: 'World!' });
      expect(find(card, 'problem_4')).toMatchObject({ status: 'passed', passed: 2, total: 2 });
      expect(card.candidates.filter((c) => c.prompt_id === null).every((c) => c.status === 'passed')).toBe(true);
      expect(code).toBe(1);
    },
    RUN_MS,
  );
});
