/**
 * Reports through the real CLI: --reporter writes each format beside the
 * scorecard or where it is told, `evalrun report` renders any run from its
 * log (an interrupted one too) without grading anything, `evalrun diff`
 * compares two runs, and progress shows on a terminal and stays out of the
 * way elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDiff } from '../../src/report/run-diff.js';
import type { Scorecard } from '../../src/report/scorecard.js';
import { doubleProblem } from './double-problem.js';
import { runCli, runCommand } from './run-cli.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'evalrun.js');
const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-reports-'));

/** Two problems, two models; `variant` changes which model gets what right. */
function gradingSet(variant: 'a' | 'b'): { problems: string; solutions: string } {
  const root = scratch();
  const problems = join(root, 'problems');
  mkdirSync(problems);
  writeFileSync(join(problems, 'double.json'), JSON.stringify(doubleProblem('double', ['arithmetic'])));
  writeFileSync(join(problems, 'twice.json'), JSON.stringify(doubleProblem('twice', ['arithmetic', 'easy'])));
  const solutions = join(root, 'solutions');
  const right = 'function double(n) { return 2 * n; }';
  const wrongOnTwo = 'function double(n) { return n === 2 ? 5 : 2 * n; }';
  const files: Record<string, string> =
    variant === 'a'
      ? { 'm1/double.js': right, 'm1/twice.js': right, 'm2/double.js': wrongOnTwo, 'm2/twice.js': 'function double(n) { throw new Error("no"); }' }
      : { 'm1/double.js': wrongOnTwo, 'm1/twice.js': right, 'm2/double.js': right, 'm2/twice.js': 'function double(n) { throw new Error("no"); }' };
  for (const [file, code] of Object.entries(files)) {
    mkdirSync(join(solutions, file, '..'), { recursive: true });
    writeFileSync(join(solutions, file), code);
  }
  return { problems, solutions };
}

describe('--reporter', () => {
  it('writes junit, markdown and html beside the scorecard, or to the file given, and the table only when asked', async () => {
    const dir = scratch();
    const set = gradingSet('a');
    const out = join(dir, 'run.json');
    const junitFile = join(dir, 'elsewhere', 'ci.xml');
    const r = await runCli([
      '--problems',
      set.problems,
      '--solutions',
      set.solutions,
      '--out',
      out,
      '--reporter',
      `junit=${junitFile}`,
      '--reporter',
      'markdown',
      '--reporter',
      'html',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(junitFile)).toBe(true);
    expect(existsSync(join(dir, 'run.md'))).toBe(true);
    expect(existsSync(join(dir, 'run.html'))).toBe(true);
    expect(existsSync(join(dir, 'run.xml'))).toBe(false);
    // No table: it was not chosen.
    expect(r.stdout).not.toContain('pass rate');
    expect(r.stdout).toContain(`Report written to ${junitFile}`);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.summary).toMatchObject({ candidates: 4, tests: 12, passed: 8 });
    expect(readFileSync(junitFile, 'utf8')).toContain('<testsuite name="m2/double" tests="3" failures="1" errors="0"');
  });

  it('rejects an unknown format and two reports on stdout with a usage error', async () => {
    const set = gradingSet('a');
    const unknown = await runCli(['--problems', set.problems, '--reporter', 'tap']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown reporter "tap"');
    const both = await runCli(['--problems', set.problems, '--reporter', 'table', '--reporter', 'json']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('only one of table and json can print on stdout');
    const withJson = await runCli(['--problems', set.problems, '--json', '--reporter', 'table']);
    expect(withJson.code).toBe(2);
    expect(withJson.stderr).toContain('only one of table and json can print on stdout');
  });
});

describe('evalrun report', () => {
  it('renders a finished run from its log as the run itself did, by run id or path, without grading', async () => {
    const dir = scratch();
    const set = gradingSet('a');
    const out = join(dir, 'run.json');
    const r = await runCli(['--problems', set.problems, '--solutions', set.solutions, '--out', out, '--reporter', 'table', '--reporter', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    // The problems are gone: a report that graded anything again would fail.
    rmSync(join(set.problems, '..'), { recursive: true });
    const md = await runCli(['report', join(dir, 'run.jsonl'), '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toBe(readFileSync(join(dir, 'run.md'), 'utf8'));
    const json = await runCli(['report', 'run', '--format', 'json'], { cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(readFileSync(out, 'utf8')));
    const table = await runCli(['report', join(dir, 'run.json'), '--format', 'table']);
    expect(table.stdout).toContain('4 candidates | 12 tests: 8 passed, 1 failed, 3 errors');
    const html = join(dir, 'report.html');
    const written = await runCli(['report', join(dir, 'run.jsonl'), '--format', 'html', '--out', html]);
    expect(written.code, written.stderr).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('<div class="value" id="count-candidates">4</div>');
  });

  it('lists in Markdown the candidates whose tests never ran, which no failing test names', async () => {
    const set = gradingSet('a');
    mkdirSync(join(set.solutions, 'm3'));
    writeFileSync(join(set.solutions, 'm3', 'double.js'), 'function double(n) {');
    const dir = scratch();
    const r = await runCli(['--problems', set.problems, '--solutions', set.solutions, '--out', join(dir, 'run.json'), '--reporter', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'run.md'), 'utf8')).toMatch(
      /### Candidates that did not run \(1\)\n\n- <code>double<\/code> <code>m3<\/code>: load-error: <code>does not compile: /,
    );
  });

  it('renders an interrupted run, marked incomplete, from what its log holds', async () => {
    const dir = scratch();
    const set = gradingSet('a');
    const out = join(dir, 'run.json');
    expect((await runCli(['--problems', set.problems, '--solutions', set.solutions, '--out', out, '--concurrency', '1'])).code).toBe(0);
    // As a kill -9 leaves it: two candidates logged, no end line, the last line cut short.
    const lines = readFileSync(`${out}l`, 'utf8').split('\n');
    const kept = [
      ...lines.filter((l) => l.startsWith('{"type":"run"') || l.startsWith('{"type":"plan"')),
      ...lines.filter((l) => l.startsWith('{"type":"candidate"')).slice(0, 2),
    ];
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, `${kept.join('\n')}\n{"type":"candidate","key":"[\\"x`);
    const r = await runCli(['report', cut, '--format', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^INCOMPLETE: 2 problems \| 2 candidates \| 6 tests/m);
    const md = await runCli(['report', cut, '--format', 'markdown']);
    expect(md.stdout).toContain('(incomplete run)');
    // The log was only read.
    expect(readFileSync(cut, 'utf8').endsWith('"key":"[\\"x')).toBe(true);
  });

  it('says which run log it could not find, with exit code 2', async () => {
    const r = await runCli(['report', 'no-such-run', '--format', 'markdown'], { cwd: scratch() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no-such-run: no run log');
    const bad = await runCli(['report', 'x', '--format', 'pdf']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--format must be one of table, json, junit, markdown, html');
  });
});

describe('evalrun diff', () => {
  it('lists the changed verdicts, new failures first, and the pass rate per model, as a table and as JSON', async () => {
    const dir = scratch();
    const a = gradingSet('a');
    const b = gradingSet('b');
    expect((await runCli(['--problems', a.problems, '--solutions', a.solutions, '--out', join(dir, 'a.json')])).code).toBe(0);
    expect(
      (
        await runCli([
          '--problems',
          b.problems,
          '--solutions',
          b.solutions,
          '--out',
          join(dir, 'b.json'),
          '--reporter',
          'html',
          '--baseline',
          join(dir, 'a.jsonl'),
        ])
      ).code,
    ).toBe(0);
    const json = await runCli(['diff', join(dir, 'a.jsonl'), join(dir, 'b.jsonl'), '--json']);
    expect(json.code, json.stderr).toBe(0);
    const diff = JSON.parse(json.stdout) as RunDiff;
    expect(diff.changes.map((c) => [c.kind, c.model_id, c.problem_id])).toEqual([
      ['new-failure', 'm1', 'double'],
      ['fixed', 'm2', 'double'],
    ]);
    expect(diff.changes[0]!.tests).toMatchObject([{ index: 2, before: 'pass', after: 'fail', expected: 4, actual: 5 }]);
    expect(diff.models.map((m) => [m.model_id, m.pass_rate.before, m.pass_rate.after])).toEqual([
      ['m1', 1, 5 / 6],
      ['m2', 2 / 6, 3 / 6],
    ]);
    expect(diff.counts.unchanged).toBe(2);
    const table = await runCli(['diff', join(dir, 'a.jsonl'), join(dir, 'b.jsonl')]);
    expect(table.stdout).toContain('1 new failure, 0 changed, 1 fixed');
    expect(table.stdout.search(/│ new-failure\s+│ double/)).toBeLessThan(table.stdout.search(/│ fixed\s+│ double/));
    expect(table.stdout).toMatch(/m1\s+│ 2\/2\s+│ 100\.0%\s+│ 83\.3%\s+│ -16\.7 pt/);
    // The HTML report of run B compared with run A shows the same.
    const html = readFileSync(join(dir, 'b.html'), 'utf8');
    expect(html).toContain('<span class="pill bad">1 new failure</span>');
    expect(html).toContain('<span class="pill good">1 fixed</span>');
  });
});

const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

/** Runs the CLI with stdout and stderr on a pseudo-terminal (util-linux `script`), as a user at a terminal would. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv = {}) {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const withoutCi = { ...process.env, ...env };
  if (!('CI' in env)) delete withoutCi.CI;
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const r = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], { encoding: 'utf8', env: withoutCi, cwd: join(import.meta.dirname, '..', '..') });
    if (r.error) reject(r.error);
    else resolve({ code: r.status, output: r.stdout });
  });
}

/** A self-check that takes a few seconds: every other candidate spins until its time limit. */
function slowSet(count: number): string {
  const dir = join(scratch(), 'problems');
  mkdirSync(dir);
  for (let i = 0; i < count; i++) writeFileSync(join(dir, `p${i}.json`), JSON.stringify(doubleProblem(`p${i}`, [], i % 2 === 0)));
  return dir;
}

describe.skipIf(!HAS_SCRIPT)('progress (on a pseudo-terminal with util-linux script)', () => {
  it('draws one line in place on a terminal and clears it before the table', async () => {
    const problems = slowSet(6);
    const r = await onTerminal(['--problems', problems, '--out', join(scratch(), 'r.json'), '--concurrency', '1', '--timeout', '300']);
    expect(r.code).toBe(1);
    const redraws = r.output.split('\r\x1b[2K');
    expect(redraws.length).toBeGreaterThan(2);
    // eslint-disable-next-line no-control-regex -- the terminal's erase-line escape is what the progress line writes
    expect(r.output).toMatch(/\r\x1b\[2K\d+\/6 candidates · \d+\/\d+ tests passed · \d+ failing tests · \d+ s elapsed/);
    // The last redraw is the clearing one: the table starts on a clean line.
    expect(redraws[redraws.length - 1]).toMatch(/^problem\s|^┌/);
  });

  it('stays off with --no-progress, and under CI prints plain lines only', async () => {
    const problems = slowSet(4);
    const off = await onTerminal(['--problems', problems, '--out', join(scratch(), 'r.json'), '--concurrency', '1', '--timeout', '300', '--no-progress']);
    expect(off.output).not.toContain('\x1b[2K');
    expect(off.output).not.toContain('candidates ·');
    const ci = await onTerminal(['--problems', problems, '--out', join(scratch(), 'r.json'), '--concurrency', '1', '--timeout', '300'], { CI: 'true' });
    expect(ci.output).not.toContain('\x1b[2K');
  });
});
if (!HAS_SCRIPT) console.warn('progress on a terminal not tested: util-linux `script` is not installed');

describe('progress without a terminal', () => {
  it('prints nothing with --json on stdout, and a plain line every ten seconds otherwise', async () => {
    const problems = slowSet(2);
    const json = await runCli(['--problems', problems, '--out', join(scratch(), 'r.json'), '--concurrency', '1', '--timeout', '300', '--json']);
    expect(json.stderr).not.toContain('candidates ·');
    JSON.parse(json.stdout);
    // Eight spinning candidates of three tests at 500 ms each take over ten seconds with one worker.
    const slow = join(scratch(), 'problems');
    mkdirSync(slow);
    for (let i = 0; i < 8; i++) writeFileSync(join(slow, `s${i}.json`), JSON.stringify(doubleProblem(`s${i}`, [], true)));
    const started = Date.now();
    const plain = await runCommand(process.execPath, [BIN, '--problems', slow, '--out', join(scratch(), 'r.json'), '--concurrency', '1', '--timeout', '500']);
    const seconds = (Date.now() - started) / 1000;
    const lines = plain.stderr.split('\n').filter((l) => l.startsWith('evalrun: ') && l.includes('candidates ·'));
    expect(plain.stderr).not.toContain('\r');
    expect(lines.length).toBeGreaterThanOrEqual(Math.floor(seconds / 10) - 1);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(seconds / 10));
    if (seconds > 11) expect(lines[0]).toMatch(/^evalrun: \d+\/8 candidates · 0\/\d+ tests passed · \d+ failing tests · 1\d s elapsed/);
  }, 120_000);
});
