/**
 * `--resume` over files changed since their candidates were graded: those
 * candidates are graded again, from the files as they are now, and the
 * others are kept as logged. The resumed scorecard then equals a clean run
 * over the changed files.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { doubleProblem, loggedKeys } from './batch-helpers.js';
import { runCli } from './run-cli.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-resume-changed-'));
const RIGHT = 'function double(n) { return n * 2; }';
const WRONG = 'function double(n) { return n * 2 + 1; }';
const ARGS = ['--concurrency', '2'];

/** The scorecard without what changes from run to run. */
function comparable(card: Scorecard): unknown {
  return JSON.parse(
    JSON.stringify(card, (key, value: unknown) => (['duration_ms', 'started_at', 'finished_at', 'run_id', 'concurrency'].includes(key) ? undefined : value)),
  );
}

const readCard = (file: string): Scorecard => JSON.parse(readFileSync(file, 'utf8')) as Scorecard;

/** Each candidate's status, by problem and model. */
function verdicts(card: Scorecard): Record<string, string> {
  return Object.fromEntries(card.candidates.map((c) => [`${c.problem_id}/${c.model_id}`, c.status]));
}

/** Files written now are changed after any part of a run that starts later, by more than the margin for the clock's tick. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 200));

describe('--resume over changed files', () => {
  it('a self-check grades again only the problem whose file changed, once', async () => {
    const root = scratch();
    const problems = join(root, 'problems');
    mkdirSync(problems);
    for (let p = 0; p < 3; p++) writeFileSync(join(problems, `d${p}.json`), doubleProblem(`d${p}`, p, RIGHT));
    const out = join(root, 'card.json');
    const log = `${out}l`;
    const first = await runCli(['--problems', problems, '--out', out, ...ARGS]);
    expect(first.code, first.stderr).toBe(0);
    expect(loggedKeys(log)).toHaveLength(3);

    await settle();
    writeFileSync(join(problems, 'd1.json'), doubleProblem('d1', 1, WRONG));
    await settle();
    const resumed = await runCli(['--resume', log]);
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain(`graded again, as these changed after their candidates were graded: ${join(problems, 'd1.json')}`);
    const keys = loggedKeys(log);
    expect(keys).toHaveLength(4);
    expect(keys[3]).toBe(keys.find((k) => k.includes('"d1"')));
    expect(verdicts(readCard(out))).toEqual({ 'd0/optimal_solution': 'passed', 'd1/optimal_solution': 'failed', 'd2/optimal_solution': 'passed' });

    const clean = join(root, 'clean.json');
    expect((await runCli(['--problems', problems, '--out', clean, ...ARGS])).code).toBe(1);
    expect(comparable(readCard(out))).toEqual(comparable(readCard(clean)));
    // The report read from the log alone takes the candidate's last line, and is the resumed run's scorecard (its id and options the log's).
    const report = await runCli(['report', log, '--format', 'json']);
    expect(JSON.parse(report.stdout)).toEqual(readCard(out));

    // Graded again after the change: a further resume keeps it.
    const again = await runCli(['--resume', log]);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).not.toContain('graded again');
    expect(loggedKeys(log)).toHaveLength(4);
  }, 60_000);

  it('grading submissions, a changed solution file and a changed problem file grade again their candidates alone', async () => {
    const root = scratch();
    const problems = join(root, 'problems');
    const solutions = join(root, 'sols');
    mkdirSync(problems);
    mkdirSync(solutions);
    for (let p = 0; p < 2; p++) writeFileSync(join(problems, `d${p}.json`), doubleProblem(`d${p}`, p, RIGHT));
    const submissions = (model: string, code: string): string =>
      ['d0', 'd1'].map((problem) => JSON.stringify({ problem_id: problem, model, completion: code })).join('\n') + '\n';
    for (const model of ['m0', 'm1', 'm2']) writeFileSync(join(solutions, `${model}.jsonl`), submissions(model, RIGHT));
    // A submission that is a file of its own.
    writeFileSync(join(solutions, 'd1.js'), RIGHT);
    const out = join(root, 'card.json');
    const log = `${out}l`;
    const first = await runCli(['--problems', problems, '--solutions', solutions, '--out', out, ...ARGS]);
    expect(first.code, first.stderr).toBe(0);
    const before = loggedKeys(log);
    expect(before).toHaveLength(7);

    await settle();
    writeFileSync(join(solutions, 'm1.jsonl'), submissions('m1', WRONG));
    writeFileSync(join(solutions, 'd1.js'), WRONG);
    // d0's second test now expects what the wrong code returns: m1 passes it, the others fail it.
    const d0 = JSON.parse(doubleProblem('d0', 0, RIGHT)) as { correctness_test_suite: Array<{ expected_output: number[] }> };
    d0.correctness_test_suite[1]!.expected_output = [2001];
    writeFileSync(join(problems, 'd0.json'), JSON.stringify(d0));
    await settle();

    const resumed = await runCli(['--resume', log]);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const file of [join(problems, 'd0.json'), join(solutions, 'm1.jsonl'), join(solutions, 'd1.js')]) expect(resumed.stderr).toContain(file);
    const graded = loggedKeys(log).slice(before.length);
    // d0 for every model, and m1's and d1.js's d1 (its model is its folder's name).
    expect(
      graded
        .map((k) => JSON.parse(k) as string[])
        .map(([problem, model]) => `${problem}/${model}`)
        .sort(),
    ).toEqual(['d0/m0', 'd0/m1', 'd0/m2', 'd1/m1', 'd1/sols'].sort());
    const clean = join(root, 'clean.json');
    expect((await runCli(['--problems', problems, '--solutions', solutions, '--out', clean, ...ARGS])).code).toBe(0);
    expect(comparable(readCard(out))).toEqual(comparable(readCard(clean)));
    expect(verdicts(readCard(out))).toMatchObject({ 'd0/m0': 'failed', 'd0/m1': 'failed', 'd1/m1': 'failed', 'd1/m2': 'passed', 'd1/sols': 'failed' });
  }, 60_000);
});
