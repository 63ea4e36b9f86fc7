/**
 * What measuring costs (issue 28, point 8): the same grading run through the
 * real CLI with `--grade correctness` and with `--grade
 * correctness,performance,memory`, side by side.
 *
 *   npm run build && node --no-node-snapshot dist/bench/efficiency-cost.js [OPTIONS]
 *
 * Two sets, each graded both ways, the two ways alternating (which goes
 * first turns every round), medians of R rounds:
 *
 *   small     MBPP-like Python problems x 10 samples x 3 tests (bench/share-sets.ts),
 *             a quarter of the samples wrong, as a pass@k run has them
 *   compute   a few compute-bound Python problems (loops over a few hundred
 *             thousand numbers), each with its optimal solution as the only sample
 *
 * The cost of a run is the CPU time of its whole process tree (the CLI and
 * its sandbox workers), read from getrusage of a python3 wrapper that
 * waits for the CLI; wall time is printed beside it. The ratio is measured
 * over measured: what `--grade performance,memory` costs against
 * correctness alone. The budget for the small set is 3.
 *
 * Options:
 *   --rounds R        rounds (default 3)
 *   --problems N      problems of the small set (default 100: 1,000 candidates)
 *   --concurrency C   passed to the CLI (default: the machine's cores)
 *   --keep            keep the generated sets and scorecards
 *
 * Exit code 0 when every run finished with the expected verdicts and the
 * small set's ratio is within the budget, 1 otherwise.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { writePassAtKSet } from './share-sets.js';
import { positiveCount } from './flags.js';

const BUDGET = 3;
const MEASURED = 'correctness,performance,memory';

interface Options {
  rounds: number;
  problems: number;
  concurrency: number;
  keep: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { rounds: 3, problems: 100, concurrency: availableParallelism(), keep: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--rounds') options.rounds = positiveCount(flag, argv[++i]);
    else if (flag === '--problems') options.problems = positiveCount(flag, argv[++i]);
    else if (flag === '--concurrency') options.concurrency = positiveCount(flag, argv[++i]);
    else if (flag === '--keep') options.keep = true;
    else throw new Error(`unknown option ${flag} (see the comment at the top of bench/efficiency-cost.ts)`);
  }
  return options;
}

/** Compute-bound problems: each one's optimal solution is its only sample, so every candidate passes and is measured. */
const COMPUTE: ReadonlyArray<{ id: string; fn: string; code: string; n: number }> = [
  { id: 'sum_squares', fn: 'sum_squares', code: 'def sum_squares(n):\n    return sum(i * i for i in range(n))\n', n: 300000 },
  {
    id: 'count_primes',
    fn: 'count_primes',
    code: [
      'def count_primes(n):',
      '    sieve = bytearray([1]) * n',
      '    sieve[0:2] = b"\\x00\\x00"',
      '    for i in range(2, int(n ** 0.5) + 1):',
      '        if sieve[i]:',
      '            sieve[i * i :: i] = bytearray(len(range(i * i, n, i)))',
      '    return sum(sieve)',
      '',
    ].join('\n'),
    n: 300000,
  },
  {
    id: 'collatz_steps',
    fn: 'collatz_steps',
    code: [
      'def collatz_steps(n):',
      '    total = 0',
      '    for start in range(1, n):',
      '        x = start',
      '        while x != 1:',
      '            x = x // 2 if x % 2 == 0 else 3 * x + 1',
      '            total += 1',
      '    return total',
      '',
    ].join('\n'),
    n: 3000,
  },
];

function writeComputeSet(dir: string): number {
  const problems = join(dir, 'problems');
  const solutions = join(dir, 'solutions', 'model');
  mkdirSync(problems, { recursive: true });
  mkdirSync(solutions, { recursive: true });
  for (const p of COMPUTE) {
    // The expected value comes from CPython, so a slow loop's answer is checked as well as timed.
    const run = spawnSync('python3', ['-c', `${p.code}\nprint(${p.fn}(${p.n}))`], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`python3 could not run ${p.id}: ${run.stderr}`);
    const expected = Number(run.stdout.trim());
    const document = {
      identifier: p.id,
      description: `Compute-bound ${p.id} for the efficiency bench.`,
      prompts: [{ prompt_id: 'base', prompt: `Write ${p.fn}.`, genericize: false, sample_inputs_outputs: [] }],
      function_prototype: { function_name: p.fn, parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
      correctness_test_suite: [{ input: { n: p.n }, expected_output: [expected] }],
      optimal_solution: p.code,
      tags: ['bench', 'compute'],
    };
    writeFileSync(join(problems, `${p.id}.json`), JSON.stringify(document));
    writeFileSync(join(solutions, `${p.id}.py`), p.code);
  }
  return COMPUTE.length;
}

/** One CLI run: the CPU of its whole tree (the wrapper's reaped children) and its wall time. */
function runCli(
  args: readonly string[],
  card: string,
): { cpuMs: number; wallMs: number; card: { summary: { candidates: number; passed: number; tests: number } } } {
  const wrapper = [
    'import resource, subprocess, sys, time',
    't = time.monotonic()',
    'code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode',
    'wall = time.monotonic() - t',
    'r = resource.getrusage(resource.RUSAGE_CHILDREN)',
    'print(code, (r.ru_utime + r.ru_stime) * 1000, wall * 1000)',
  ].join('\n');
  const cli = join(packageRoot(), 'bin', 'evalrun.js');
  const run = spawnSync('python3', ['-c', wrapper, process.execPath, cli, ...args, '--out', card], { encoding: 'utf8' });
  const [code, cpu, wall] = run.stdout.trim().split(' ').map(Number);
  if (run.status !== 0 || code === undefined || code > 1) throw new Error(`the CLI failed (${String(code)}): ${run.stderr}`);
  const parsed = JSON.parse(readFileSync(card, 'utf8')) as { summary: { candidates: number; passed: number; tests: number } };
  return { cpuMs: cpu!, wallMs: wall!, card: parsed };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function main(): number {
  const options = parseOptions(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), 'evalrun-efficiency-'));
  console.log(`efficiency-cost: node ${process.version}, ${availableParallelism()} cores, --concurrency ${options.concurrency}, scratch ${scratch}`);
  let ok = true;
  try {
    const small = join(scratch, 'small');
    const expected = writePassAtKSet(small, 'python', { problems: options.problems, samples: 10, tests: 3 });
    const compute = join(scratch, 'compute');
    const computeCandidates = writeComputeSet(compute);
    const sets = [
      { name: `small (${expected.candidates} candidates)`, dir: small, candidates: expected.candidates, passedTests: expected.passedTests },
      { name: `compute-bound (${computeCandidates} candidates)`, dir: compute, candidates: computeCandidates, passedTests: computeCandidates },
    ];
    for (const set of sets) {
      const base = ['--problems', join(set.dir, 'problems'), '--solutions', join(set.dir, 'solutions'), '--concurrency', String(options.concurrency)];
      const figures: Record<'plain' | 'measured', Array<{ cpuMs: number; wallMs: number }>> = { plain: [], measured: [] };
      for (let round = 0; round < options.rounds; round++) {
        const order: Array<'plain' | 'measured'> = round % 2 === 0 ? ['plain', 'measured'] : ['measured', 'plain'];
        for (const way of order) {
          const card = join(scratch, `${way}-${round}.json`);
          const run = runCli([...base, '--grade', way === 'plain' ? 'correctness' : MEASURED], card);
          // Submissions plus, when measured, each problem's optimal solution.
          if (run.card.summary.passed < set.passedTests) {
            console.log(`  ${set.name}, ${way}: ${run.card.summary.passed} tests passed, expected at least ${set.passedTests}`);
            ok = false;
          }
          figures[way].push(run);
          console.log(`  round ${round + 1} ${set.name} ${way}: CPU ${(run.cpuMs / 1000).toFixed(2)} s, wall ${(run.wallMs / 1000).toFixed(2)} s`);
        }
      }
      const cpu = median(figures.measured.map((f) => f.cpuMs)) / median(figures.plain.map((f) => f.cpuMs));
      const wall = median(figures.measured.map((f) => f.wallMs)) / median(figures.plain.map((f) => f.wallMs));
      const within = set.dir !== small || cpu <= BUDGET;
      ok &&= within;
      console.log(
        `${set.name}: --grade ${MEASURED} costs ${cpu.toFixed(2)}x the CPU of --grade correctness (wall ${wall.toFixed(2)}x)` +
          (set.dir === small ? `, budget ${BUDGET}x: ${within ? 'PASS' : 'FAIL'}` : ''),
      );
    }
  } finally {
    if (options.keep) console.log(`kept: ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
  return ok ? 0 : 1;
}

process.exitCode = main();
