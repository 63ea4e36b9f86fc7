/**
 * End-to-end: the built CLI (bin/evalrun.js) on real folders, as a user runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { runCli, withoutProgress } from './run-cli.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-e2e-'));

function find(card: Scorecard, problem: string, prompt: string | null = null): CandidateResult {
  const found = card.candidates.find((c) => c.problem_id === problem && c.prompt_id === prompt);
  if (found === undefined) throw new Error(`no candidate ${problem}/${prompt}`);
  return found;
}

describe('evalrun --problems (self-check) on a clean folder', () => {
  it('passes, prints a table and writes the JSON scorecard', async () => {
    const out = join(scratch(), 'card.json');
    const r = await runCli(['--problems', 'test/fixtures/cli-pass', '--out', out]);
    expect(withoutProgress(r.stderr)).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/problem\s*│\s*model\s*│\s*prompt\s*│\s*passed\s*│\s*time\s*│\s*status/);
    expect(r.stdout).toContain('optimal_solution');
    expect(r.stdout).toContain(`Scorecard written to ${out}`);
    expect(r.stdout).toMatch(/3 problems \| 6 candidates \| 10 tests: 10 passed, 0 failed/);

    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.summary).toEqual({
      problems: 3,
      candidates: 6,
      tests: 10,
      passed: 10,
      failed: 0,
      errored: 0,
      timed_out: 0,
      memory_exceeded: 0,
      skipped: 0,
      invalid_problems: 0,
      pass_rate: 1,
    });
    expect(card.mode).toBe('self-check');
    expect(card.complete).toBe(true);
    const add = find(card, 'add');
    expect(add).toMatchObject({ model_id: 'optimal_solution', passed: 3, total: 3, score: 1, status: 'passed' });
    expect(add.entry_point).toBe('declaration:add');
    expect(add.tests[2]).toMatchObject({ index: 2, status: 'pass', expected: 42, actual: 42, error: null });
    // The file writes these ints as strings: the record shows what the candidate got.
    expect(add.tests[2]!.input).toEqual({ a: 40, b: 2 });
    expect(find(card, 'add', 'generic')).toMatchObject({ passed: 1, total: 1 });
    expect(find(card, 'divmod_pair')).toMatchObject({ passed: 2, total: 2, entry_point: 'declaration:divmod' });
    expect(find(card, 'divmod_pair').tests[0]!.actual).toEqual([3, 1]);
    expect(find(card, 'mean')).toMatchObject({ passed: 2, entry_point: 'module.exports.mean' });
    expect(card.problems.every((p) => p.valid)).toBe(true);
  });

  it('--json prints only the document on stdout', async () => {
    const out = join(scratch(), 'card.json');
    const r = await runCli(['--problems', 'test/fixtures/cli-pass', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const card = JSON.parse(r.stdout) as Scorecard;
    expect(card.summary.passed).toBe(10);
    expect(r.stderr).toContain(`Scorecard written to ${out}`);
  });

  it('survives its output being cut short (| head) and still writes the scorecard', () => {
    const out = join(scratch(), 'card.json');
    const bin = join(process.cwd(), 'bin', 'evalrun.js');
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" --problems test/fixtures/cli-pass --out "${out}" | head -c 10; exit \${PIPESTATUS:-0}`], {
      encoding: 'utf8',
    });
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.summary.passed).toBe(10);
  });

  it('writes results/<UTC timestamp>.json when --out is not given', async () => {
    const cwd = scratch();
    const r = await runCli(['--problems', join(process.cwd(), 'test/fixtures/cli-pass')], { cwd });
    expect(r.code).toBe(0);
    const files = readdirSync(join(cwd, 'results')).sort();
    // The scorecard and, beside it, the run log that results were streamed to.
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.json$/);
    expect(files[1]).toBe(`${files[0]}l`);
    expect(r.stdout).toContain(`Scorecard written to results/${files[0]}`);
  });
});

describe('evalrun --problems on a folder of broken files and hostile solutions', () => {
  const out = join(scratch(), 'card.json');
  const run = runCli(['--problems', 'test/fixtures/cli-mixed', '--out', out, '--timeout', '3000', '--memory', '64']);

  it('exits 1 and still reports everything', async () => {
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Invalid problem files \(3\)/);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.summary.invalid_problems).toBe(3);
    expect(card.problems).toHaveLength(10);
  });

  it('names the file, the JSON path and what was expected', async () => {
    await run;
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    const errors = card.problems.flatMap((p) => p.errors);
    expect(errors).toContain('test/fixtures/cli-mixed/bad-type.json: $.function_prototype.parameters[1].type: expected string, got number');
    expect(errors.find((e) => e.startsWith('test/fixtures/cli-mixed/not-json.json: not valid JSON'))).toMatch(/line \d+, column \d+/);
    const dup = errors.find((e) => e.includes('duplicate identifier'));
    expect(dup).toContain('test/fixtures/cli-mixed/dup-b.json');
    expect(dup).toContain('test/fixtures/cli-mixed/dup-a.json');
  });

  it('grades only the first of two files with one identifier, and lists each candidate once', async () => {
    await run;
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    const same = card.candidates.filter((c) => c.problem_id === 'same_id');
    expect(same.length).toBeGreaterThan(0);
    expect(same.every((c) => c.source.startsWith('test/fixtures/cli-mixed/dup-a.json'))).toBe(true);
    const keys = card.candidates.map((c) => JSON.stringify([c.problem_id, c.prompt_id, c.source]));
    expect(new Set(keys).size).toBe(keys.length);
    // Every candidate of the scorecard was written to the run log once, as it finished.
    const logged = readFileSync(`${out}l`, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"type":"candidate"'))
      .map((line) => (JSON.parse(line) as { key: string }).key);
    const sources = new Set(card.candidates.map((c) => c.source));
    const loggedForCard = logged.filter((key) => sources.has((JSON.parse(key) as string[])[4]!));
    expect(new Set(loggedForCard).size).toBe(loggedForCard.length);
    expect(new Set(loggedForCard)).toEqual(new Set(logged.filter((key) => !key.includes('dup-b.json'))));
  });

  it('gives every test exactly one verdict', async () => {
    await run;
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(find(card, 'still_runs')).toMatchObject({ passed: 2, total: 2, status: 'passed' });
    expect(find(card, 'wrong_answer').tests.map((t) => t.status)).toEqual(['pass', 'fail']);
    expect(find(card, 'wrong_answer').tests[1]).toMatchObject({ expected: 7, actual: 6 });
    // A wrong sample is reported against its prompt.
    expect(find(card, 'wrong_answer', 'ok')).toMatchObject({ passed: 1, total: 1 });
    expect(find(card, 'wrong_answer', 'bad_sample')).toMatchObject({ passed: 0, total: 1, status: 'failed' });
    expect(find(card, 'hangs').tests.map((t) => t.status)).toEqual(['pass', 'timeout']);
    expect(find(card, 'memory_hog').tests.map((t) => t.status)).toEqual(['memory']);
    const syntax = find(card, 'syntax_error');
    expect(syntax.status).toBe('load-error');
    expect(syntax.error).toMatch(/does not compile/);
    expect(syntax.tests.map((t) => t.status)).toEqual(['error', 'error']);
    expect(find(card, 'no_entry_point')).toMatchObject({ status: 'load-error' });
    expect(find(card, 'no_entry_point').error).toMatch(/no function named "f"/);
    const s = card.summary;
    expect(s.passed + s.failed + s.errored + s.timed_out + s.memory_exceeded).toBe(s.tests);
    expect(s).toMatchObject({ timed_out: 1, memory_exceeded: 1 });
  });

  it('shows failing tests with input, expected and actual', async () => {
    const r = await run;
    expect(r.stdout).toMatch(/Failing tests/);
    expect(r.stdout).toMatch(/wrong_answer.*correctness#1.*\{"n": ?3\}.*7.*6/);
  });
});

describe('usage errors', () => {
  it('an unknown flag exits 2 with one line and no stack', async () => {
    const r = await runCli(['--problems', 'test/fixtures/cli-pass', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^evalrun: Unknown argument: frobnicate \(see evalrun --help\)\n$/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a missing folder exits 2', async () => {
    const r = await runCli(['--problems', 'no/such/folder']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('evalrun: --problems no/such/folder: no such folder\n');
  });

  it('an --out path that cannot be written exits 2 before any work, naming the path', async () => {
    for (const out of ['/dev/null/card.json', scratch()]) {
      const r = await runCli(['--problems', 'test/fixtures/cli-pass', '--out', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr, out).toMatch(new RegExp(`^evalrun: --out ${out.replace(/[/.]/g, '\\$&')}: cannot write there \\(.+\\)\n$`));
    }
  });

  it('a missing or non-folder --solutions exits 2', async () => {
    for (const [dir, why] of [
      ['no/such/solutions', 'no such folder'],
      ['README.md', 'not a folder'],
    ]) {
      const r = await runCli(['--problems', 'test/fixtures/cli-pass', '--solutions', dir!]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`evalrun: --solutions ${dir}: ${why}\n`);
    }
  });

  it('no --problems exits 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing required option --problems/);
  });

  it('a bad number exits 2', async () => {
    const r = await runCli(['--problems', 'test/fixtures/cli-pass', '--timeout', '-5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--timeout must be a whole number of ms from 1 to 86400000, got -5/);
  });

  it('--version and --help', async () => {
    const v = await runCli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = await runCli(['--help']);
    expect(h.code).toBe(0);
    for (const flag of ['--problems', '--solutions', '--concurrency', '--memory', '--timeout', '--float-tolerance', '--out', '--json']) {
      expect(h.stdout).toContain(flag);
    }
  });
});
