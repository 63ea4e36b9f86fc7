/**
 * --timeout-factor through the real CLI: each test's limit comes from the
 * optimal solution's time on it, so a candidate that is correct but orders
 * of magnitude slower than the optimal solution times out where a plain
 * generous --timeout lets it pass, in Python and in JavaScript; the limits
 * are in the run log and the scorecard, a resumed run grades with the
 * limits its log recorded (also after `kill -9` in the middle of the run,
 * measuring nothing again and grading no candidate twice), and shards given one limits file (--test-limits)
 * grade under the same limits, which the merge carries.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, ProblemReport, Scorecard } from '../../src/report/scorecard.js';
import { createGrader, evaluate, type ProblemDocument } from '../../src/index.js';
import { duplicates, loggedKeys, logRecords, startCli, waitFor } from './batch-helpers.js';
import { runCli } from './run-cli.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-limits-'));

/** `ident(n) = n`, tested at n = 1 and n = 60: the slow candidates' work grows with n, the optimal solution's does not. */
function problem(id: string, optimal: string | null): object {
  return {
    identifier: id,
    description: 'n back.',
    function_prototype: { function_name: 'ident', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
    prompts: [],
    correctness_test_suite: [
      { input: { n: 1 }, expected_output: [1] },
      { input: { n: 60 }, expected_output: [60] },
    ],
    ...(optimal === null ? {} : { optimal_solution: optimal }),
  };
}

const JS_FAST = 'function ident(n) { return n; }';
const PY_FAST = 'def ident(n):\n    return n\n';
// Busy loops proportional to n: at n = 60, on the order of a second, against a millisecond or less for the optimal solution.
const JS_SLOW = 'function ident(n) { let x = 0; for (let i = 0; i < n * 10000000; i++) x += i % 3; return x >= 0 ? n : -1; }';
const PY_SLOW = 'def ident(n):\n    x = 0\n    for i in range(n * 100000):\n        x += i % 3\n    return n if x >= 0 else -1\n';

/** Four problems: one per language, one whose optimal solution is Python with JavaScript candidates, and one with no optimal solution. */
function folders(): { root: string; problems: string; solutions: string } {
  const root = scratch();
  const problems = join(root, 'problems');
  const solutions = join(root, 'solutions');
  mkdirSync(problems);
  const write = (id: string, optimal: string | null): void => writeFileSync(join(problems, `${id}.json`), JSON.stringify(problem(id, optimal)));
  write('ident_js', JS_FAST);
  write('ident_py', PY_FAST);
  write('ident_mixed', PY_FAST);
  write('no_optimal', null);
  const files: Record<string, Array<[string, string]>> = {
    fast: [
      ['ident_js.js', JS_FAST],
      ['ident_py.py', PY_FAST],
      ['no_optimal.js', JS_FAST],
    ],
    slow: [
      ['ident_js.js', JS_SLOW],
      ['ident_py.py', PY_SLOW],
      ['ident_mixed.js', JS_SLOW],
    ],
  };
  for (const [model, list] of Object.entries(files)) {
    mkdirSync(join(solutions, model), { recursive: true });
    for (const [file, code] of list) writeFileSync(join(solutions, model, file), code);
  }
  return { root, problems, solutions };
}

function one(card: Scorecard, model: string, problemId: string): CandidateResult {
  const found = card.candidates.filter((c) => c.model_id === model && c.problem_id === problemId);
  expect(found, `${model} ${problemId}`).toHaveLength(1);
  return found[0]!;
}

function problemOf(card: Scorecard, id: string): ProblemReport {
  return card.problems.find((p) => p.problem_id === id)!;
}

function logLines(log: string): Array<Record<string, unknown>> {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const readCard = (file: string): Scorecard => JSON.parse(readFileSync(file, 'utf8')) as Scorecard;

const GENEROUS = ['--timeout', '30000', '--no-progress', '--concurrency', '2'];
const FACTOR = ['--timeout-factor', '3', '--timeout-floor', '100'];

describe('--timeout-factor', () => {
  const dirs = folders();
  const plainOut = join(dirs.root, 'plain.json');
  const factorOut = join(dirs.root, 'factor.json');
  const plain = runCli(['--problems', dirs.problems, '--solutions', dirs.solutions, '--out', plainOut, ...GENEROUS]);
  const factor = plain.then(() => runCli(['--problems', dirs.problems, '--solutions', dirs.solutions, '--out', factorOut, ...GENEROUS, ...FACTOR]));

  it('a plain generous --timeout lets the slow candidates pass', async () => {
    const r = await plain;
    expect(r.code, r.stderr).toBe(0);
    const card = readCard(plainOut);
    for (const id of ['ident_js', 'ident_py', 'ident_mixed']) expect(one(card, 'slow', id).status).toBe('passed');
    // Without the factor, nothing of it is recorded.
    expect(card.problems.every((p) => p.test_limits === undefined)).toBe(true);
    expect(Object.keys(card.options).filter((k) => k.startsWith('timeout_') || k === 'test_limits')).toEqual(['timeout_ms']);
  });

  it('times out the slow candidates on the large test, in both languages, under limits from the optimal solution', async () => {
    const r = await factor;
    // A grading run fails only below --min-pass-rate.
    expect(r.code, r.stderr).toBe(0);
    const card = readCard(factorOut);
    expect(card.options).toMatchObject({ timeout_ms: 30000, timeout_factor: 3, timeout_floor_ms: 100 });
    for (const [id, language] of [
      ['ident_js', 'javascript'],
      ['ident_py', 'python'],
    ] as const) {
      const limits = problemOf(card, id).test_limits!;
      expect(limits).toMatchObject({ from: 'optimal_solution', language });
      expect(limits.tests_ms).toHaveLength(2);
      for (const ms of limits.tests_ms!) expect(ms).toBeGreaterThanOrEqual(100);
      // Far below what the slow candidate needs: 3 x a fast identity function, or the floor.
      for (const ms of limits.tests_ms!) expect(ms).toBeLessThan(10_000);
      const slow = one(card, 'slow', id);
      expect(slow.status).toBe('failed');
      const large = slow.tests[1]!;
      expect(large.status).toBe('timeout');
      expect(large.duration_ms).toBe(limits.tests_ms![1]);
      expect(large.error).toBe(`exceeded the time limit of ${limits.tests_ms![1]} ms`);
      expect(one(card, 'fast', id).status).toBe('passed');
    }
  });

  it('keeps --timeout for a problem without an optimal solution, says why, and for a candidate in another language than the optimal solution', async () => {
    const r = await factor;
    const card = readCard(factorOut);
    expect(problemOf(card, 'no_optimal').test_limits).toEqual({ from: 'timeout', timeout_ms: 30000, reason: 'the problem has no optimal_solution' });
    expect(r.stderr).toContain('problem no_optimal: every test keeps the --timeout of 30000 ms: the problem has no optimal_solution');
    expect(one(card, 'fast', 'no_optimal').status).toBe('passed');
    // The optimal solution is Python: its times say nothing of JavaScript's, so the JavaScript candidate has 30 s per test.
    expect(problemOf(card, 'ident_mixed').test_limits).toMatchObject({ from: 'optimal_solution', language: 'python' });
    expect(one(card, 'slow', 'ident_mixed').status).toBe('passed');
  });

  it("records each problem's limits in the run log once, before its first candidate", async () => {
    await factor;
    const lines = logLines(`${factorOut}l`);
    const limits = lines.filter((l) => l.type === 'limits');
    expect(limits.map((l) => l.problem_id).sort()).toEqual(['ident_js', 'ident_mixed', 'ident_py', 'no_optimal']);
    const firstCandidate = lines.findIndex((l) => l.type === 'candidate');
    expect(lines.findLastIndex((l) => l.type === 'limits')).toBeLessThan(firstCandidate);
    const card = readCard(factorOut);
    for (const line of limits) {
      const { type: _type, problem_id: id, ...report } = line;
      expect(problemOf(card, id as string).test_limits).toEqual(report);
    }
  });

  it('--resume grades the rest under the limits its log recorded, without measuring them again', async () => {
    await factor;
    // An interrupted run: its header, limits and plan lines, and its first candidate; the JavaScript problem's
    // recorded limits are made generous, which only the log can tell the resumed run.
    const log = join(scratch(), 'interrupted.jsonl');
    const lines = logLines(`${factorOut}l`);
    const firstCandidate = lines.findIndex((l) => l.type === 'candidate');
    const kept = lines.slice(0, firstCandidate + 1).map((l) => (l.type === 'limits' && l.problem_id === 'ident_js' ? { ...l, tests_ms: [20_000, 20_000] } : l));
    const keptKey = lines[firstCandidate]!.key;
    writeFileSync(log, kept.map((l) => `${JSON.stringify(l)}\n`).join(''));

    const r = await runCli(['--resume', log, '--no-progress', '--concurrency', '2']);
    expect(r.code, r.stderr).toBe(0);
    const after = logLines(log);
    // No limits measured or written again.
    expect(after.filter((l) => l.type === 'limits')).toHaveLength(4);
    expect(after.filter((l) => l.type === 'candidate' && l.key === keptKey)).toHaveLength(1);
    const card = readCard(log.replace(/\.jsonl$/, '.json'));
    expect(card.complete).toBe(true);
    expect(problemOf(card, 'ident_js').test_limits?.tests_ms).toEqual([20_000, 20_000]);
    // Under the recorded 20 s the slow JavaScript candidate passes; measured again it would have timed out.
    expect(one(card, 'slow', 'ident_js').status).toBe('passed');
    expect(one(card, 'slow', 'ident_py').status).toBe('failed');
  });

  it('shards given one limits file grade under it, record it, and the merge carries it without a warning', async () => {
    await factor;
    const dir = scratch();
    const limitsFile = `${factorOut}l`;
    const shards = [1, 2].map((i) =>
      runCli([
        '--problems',
        dirs.problems,
        '--solutions',
        dirs.solutions,
        ...GENEROUS,
        ...FACTOR,
        '--test-limits',
        limitsFile,
        '--shard',
        `${i}/2`,
        '--out',
        join(dir, `shard-${i}.json`),
      ]),
    );
    for (const r of await Promise.all(shards)) expect(r.code, r.stderr).toBe(0);
    const expected = readCard(factorOut).problems;
    for (const i of [1, 2]) {
      const lines = logLines(join(dir, `shard-${i}.jsonl`)).filter((l) => l.type === 'limits');
      // Every problem of the run, taken from the file, none measured.
      expect(lines.map((l) => l.problem_id).sort()).toEqual(['ident_js', 'ident_mixed', 'ident_py', 'no_optimal']);
      expect(lines.every((l) => l.taken_from === limitsFile)).toBe(true);
    }
    const out = join(dir, 'merged.json');
    const merged = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'shard-2.jsonl'), '--out', out]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).not.toContain('different test limits');
    const card = readCard(out);
    for (const p of expected) {
      expect(problemOf(card, p.problem_id!).test_limits).toEqual({ ...p.test_limits, taken_from: limitsFile });
    }
    expect(one(card, 'slow', 'ident_js').tests[1]!.status).toBe('timeout');
    expect(one(card, 'slow', 'ident_py').tests[1]!.status).toBe('timeout');
  });
});

describe('--timeout-factor, kill -9 and --resume', () => {
  it('after kill -9 mid-run, --resume grades the rest under the limits the log holds: none measured or logged again, no candidate twice', async () => {
    // One JavaScript problem and twelve slow candidates, each timed out on its large test under the measured limits:
    // a run with one worker takes a few seconds, long enough to be killed in the middle.
    const root = scratch();
    const problems = join(root, 'problems');
    const solutions = join(root, 'solutions');
    mkdirSync(problems);
    writeFileSync(join(problems, 'ident_js.json'), JSON.stringify(problem('ident_js', JS_FAST)));
    const models = Array.from({ length: 12 }, (_, i) => `slow${String(i).padStart(2, '0')}`);
    for (const model of models) {
      mkdirSync(join(solutions, model), { recursive: true });
      writeFileSync(join(solutions, model, 'ident_js.js'), JS_SLOW);
    }
    const out = join(root, 'card.json');
    const log = `${out}l`;
    const run = startCli([
      '--problems',
      problems,
      '--solutions',
      solutions,
      '--out',
      out,
      '--timeout',
      '30000',
      '--no-progress',
      '--concurrency',
      '1',
      ...FACTOR,
    ]);
    const candidates = (): number => logRecords(log).filter((l) => l.type === 'candidate').length;
    const midway = await waitFor(() => candidates() >= 3, { timeoutMs: 60_000, everyMs: 10, stop: run.exited });
    run.child.kill('SIGKILL');
    await run.exited;
    expect(midway, `the run ended before three candidates were logged: ${run.stderr()}`).toBe(true);
    const before = logRecords(log);
    const limitsBefore = before.filter((l) => l.type === 'limits');
    expect(limitsBefore).toHaveLength(1);
    expect(candidates()).toBeLessThan(models.length);
    expect(existsSync(out)).toBe(false);

    const resumed = await runCli(['--resume', log, '--no-progress', '--concurrency', '1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = logRecords(log);
    // The limits were measured once, before the kill, and the resumed run used them as logged.
    expect(after.filter((l) => l.type === 'limits')).toEqual(limitsBefore);
    expect(duplicates(loggedKeys(log))).toEqual([]);
    expect(candidates()).toBe(models.length);
    const card = readCard(out);
    expect(card.complete).toBe(true);
    const { type: _type, problem_id: _id, ...logged } = limitsBefore[0]!;
    expect(problemOf(card, 'ident_js').test_limits).toEqual(logged);
    const limitMs = problemOf(card, 'ident_js').test_limits!.tests_ms![1];
    // Every slow candidate, graded before the kill or after it, timed out on its large test at the same limit.
    for (const model of models) {
      const large = one(card, model, 'ident_js').tests[1]!;
      expect(large.status, model).toBe('timeout');
      expect(large.duration_ms, model).toBe(limitMs);
    }
  });
});

describe('--timeout-factor on the command line', () => {
  const dirs = folders();

  it('is refused in a self-check, whose candidate is the optimal solution itself', async () => {
    const r = await runCli(['--problems', dirs.problems, '--timeout-factor', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--timeout-factor applies when grading submissions');
  });

  it('--timeout-floor without --timeout-factor is refused, naming both', async () => {
    const r = await runCli(['--problems', dirs.problems, '--solutions', dirs.solutions, '--timeout-floor', '50']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--timeout-floor applies with --timeout-factor');
  });

  it('refuses a factor that is not a positive number', async () => {
    for (const bad of ['0', '-2', 'abc']) {
      const r = await runCli(['--problems', dirs.problems, '--solutions', dirs.solutions, '--timeout-factor', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain(bad === 'abc' ? '--timeout-factor must be a number, got "abc"' : '--timeout-factor must be a positive number');
    }
  });
});

describe('evaluate({ timeoutFactor })', () => {
  it('grades under limits from the optimal solution, as the CLI does', async () => {
    const dirs = folders();
    const card = await evaluate({
      problems: dirs.problems,
      solutions: dirs.solutions,
      timeoutMs: 30_000,
      timeoutFactor: 3,
      timeoutFloorMs: 100,
      concurrency: 2,
      filters: { problems: ['ident_py'] },
      out: join(dirs.root, 'library.json'),
    });
    expect(card.options).toMatchObject({ timeout_factor: 3, timeout_floor_ms: 100 });
    expect(problemOf(card, 'ident_py').test_limits).toMatchObject({ from: 'optimal_solution', language: 'python' });
    expect(one(card, 'slow', 'ident_py').tests[1]!.status).toBe('timeout');
    expect(one(card, 'fast', 'ident_py').status).toBe('passed');
  });

  it('refuses what the CLI refuses, before anything runs', async () => {
    const dirs = folders();
    await expect(evaluate({ problems: dirs.problems, timeoutFactor: 3 })).rejects.toThrow(/`timeoutFactor` applies when grading submissions/);
    await expect(evaluate({ problems: dirs.problems, solutions: dirs.solutions, timeoutFloorMs: 50 })).rejects.toThrow(
      /`timeoutFloorMs` applies with `timeoutFactor`/,
    );
    await expect(evaluate({ problems: dirs.problems, solutions: dirs.solutions, timeoutFactor: -1 })).rejects.toThrow(/positive number/);
    await expect(evaluate({ problems: dirs.problems, solutions: dirs.solutions, testLimits: join(dirs.root, 'missing.jsonl') })).rejects.toThrow(
      /`testLimits`: .* is not a file/,
    );
  });
});

describe('createGrader({ timeoutFactor }) and evalrun serve --timeout-factor', () => {
  const problems = [problem('ident_py', PY_FAST) as ProblemDocument];

  it('grades every call under limits from the optimal solution, measured on the first call', async () => {
    const grader = await createGrader({ problems, concurrency: 1, timeoutMs: 30_000, timeoutFactor: 3, timeoutFloorMs: 100 });
    try {
      const [slow, fast] = await grader.grade('ident_py', [
        { id: 'slow', code: PY_SLOW },
        { id: 'fast', code: PY_FAST },
      ]);
      expect(slow!.status).toBe('failed');
      expect(slow!.tests[1]!.status).toBe('timeout');
      expect(slow!.tests[1]!.duration_ms).toBeLessThan(10_000);
      expect(fast!.status).toBe('passed');
      // A later call runs under the same limits.
      const [again] = await grader.grade('ident_py', [{ id: 'slow', code: PY_SLOW }]);
      expect(again!.tests[1]!.status).toBe('timeout');
      expect(again!.tests[1]!.duration_ms).toBe(slow!.tests[1]!.duration_ms);
    } finally {
      await grader.close();
    }
  });

  it('without a factor, the same grader lets the slow candidate pass under a generous timeout', async () => {
    const grader = await createGrader({ problems, concurrency: 1, timeoutMs: 30_000 });
    try {
      const [slow] = await grader.grade('ident_py', [{ id: 'slow', code: PY_SLOW }]);
      expect(slow!.status).toBe('passed');
    } finally {
      await grader.close();
    }
  });

  it('refuses a floor without a factor, and a factor that is not positive', async () => {
    await expect(createGrader({ problems, concurrency: 1, timeoutFloorMs: 50 })).rejects.toThrow(/`timeoutFloorMs` applies with `timeoutFactor`/);
    await expect(createGrader({ problems, concurrency: 1, timeoutFactor: 0 })).rejects.toThrow(/`timeoutFactor` must be a positive number/);
    const dirs = folders();
    const r = await runCli(['serve', '--problems', dirs.problems, '--timeout-floor', '50']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--timeout-floor applies with --timeout-factor');
  });
});
