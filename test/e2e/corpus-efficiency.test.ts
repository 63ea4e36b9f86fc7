/**
 * The efficiency graders against the reference framework's way of timing,
 * on a problem of the shared corpus sample (`../shared/corpus-sample`, read
 * in place, never copied): a slow and a fast solution of the same problem
 * must come out in the order the reference's performance grader would put
 * them, which times each solution's calls in CPython with process CPU time.
 *
 * The problem is `memory/unique_paths`, whose shipped optimal_solution is
 * the plain recursion (exponential in m + n); the fast solution is the
 * closed form. CPython, timed as the reference does (process CPU time over
 * repetitions until the total is long enough to read), says which is
 * faster; evalrun's counted cost must say the same, and its performance
 * score must put the slow one below the fast one against either as the
 * optimal solution.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const CORPUS = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus-sample');
const PROBLEM = join(CORPUS, 'memory', 'problems', 'unique_paths.json');

const SLOW = [
  'def unique_paths(m: int, n: int) -> int:',
  '    if m == 1 or n == 1:',
  '        return 1',
  '    return unique_paths(m - 1, n) + unique_paths(m, n - 1)',
  '',
].join('\n');
const FAST = ['import math', '', 'def unique_paths(m: int, n: int) -> int:', '    return math.comb(m + n - 2, m - 1)', ''].join('\n');

/** Each solution's CPU time over the corpus tests' inputs, as the reference's performance grader measures it: in CPython, repeated until the total can be read. */
function referenceSeconds(inputs: ReadonlyArray<[number, number]>): { slow: number; fast: number } {
  const script = [
    'import json, sys, time',
    'inputs = json.loads(sys.argv[1])',
    'def timed(source):',
    '    space = {}',
    '    exec(source, space)',
    '    f = space["unique_paths"]',
    '    repeats, total = 1, 0.0',
    '    while total < 0.2:',
    '        start = time.process_time()',
    '        for _ in range(repeats):',
    '            for m, n in inputs:',
    '                f(m, n)',
    '        total = time.process_time() - start',
    '        repeats *= 2',
    '    return total / (repeats // 2)',
    'print(json.dumps({"slow": timed(sys.argv[2]), "fast": timed(sys.argv[3])}))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, JSON.stringify(inputs), SLOW, FAST], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { slow: number; fast: number };
}

interface MeasuredCandidate {
  model_id: string;
  status: string;
  measure: { cost: number } | null;
}

interface EfficiencyCard {
  candidates: MeasuredCandidate[];
  efficiency: { candidates: Array<{ index: number; performance: number | null }> };
}

/** Grades both solutions with --grade performance against the problem as shipped, or with `optimal` as its optimal_solution. */
async function grade(optimal: string | null): Promise<{ cost: Record<string, number>; performance: Record<string, number | null> }> {
  const root = mkdtempSync(join(tmpdir(), 'evalrun-corpus-efficiency-'));
  const problems = join(root, 'problems');
  mkdirSync(problems);
  if (optimal === null) cpSync(PROBLEM, join(problems, 'unique_paths.json'));
  else {
    const problem = JSON.parse(readFileSync(PROBLEM, 'utf8')) as Record<string, unknown>;
    writeFileSync(join(problems, 'unique_paths.json'), JSON.stringify({ ...problem, optimal_solution: optimal }));
  }
  for (const [model, code] of [
    ['slow', SLOW],
    ['fast', FAST],
  ] as const) {
    mkdirSync(join(root, 'solutions', model), { recursive: true });
    writeFileSync(join(root, 'solutions', model, 'unique_paths.py'), code);
  }
  const out = join(root, 'card.json');
  const r = await runCli(['--problems', problems, '--solutions', join(root, 'solutions'), '--grade', 'performance', '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  const card = JSON.parse(readFileSync(out, 'utf8')) as EfficiencyCard;
  const cost: Record<string, number> = {};
  const performance: Record<string, number | null> = {};
  card.candidates.forEach((c, index) => {
    expect(c.status).toBe('passed');
    if (c.model_id === 'optimal_solution') return;
    cost[c.model_id] = c.measure!.cost;
    performance[c.model_id] = card.efficiency.candidates.find((e) => e.index === index)?.performance ?? null;
  });
  return { cost, performance };
}

describe.skipIf(!existsSync(PROBLEM))('efficiency on the corpus sample, against the reference’s timing', () => {
  it('ranks the slow and the fast solution of unique_paths as CPython’s CPU time does', async () => {
    const problem = JSON.parse(readFileSync(PROBLEM, 'utf8')) as { correctness_test_suite: Array<{ input: { m: string; n: string } }> };
    const inputs = problem.correctness_test_suite.map((t): [number, number] => [Number(t.input.m), Number(t.input.n)]);
    const reference = referenceSeconds(inputs);
    expect(reference.slow).toBeGreaterThan(reference.fast);

    // As shipped, the optimal solution is the recursion: both score 1 (none is slower than it), and the counts rank them.
    const shipped = await grade(null);
    expect(shipped.cost.slow).toBeGreaterThan(shipped.cost.fast!);
    expect(shipped.performance).toEqual({ slow: 1, fast: 1 });

    // Against the closed form as the optimal solution, the recursion scores below 1 and the closed form 1.
    const againstFast = await grade(FAST);
    expect(againstFast.performance.fast).toBe(1);
    expect(againstFast.performance.slow).toBeLessThan(1);
    // The same counts whichever solution is the reference: a count belongs to the candidate alone.
    expect(againstFast.cost).toEqual(shipped.cost);
  }, 120_000);
});
