/**
 * Throughput of one machine on a pass@k-shaped workload: few problems, many
 * samples of each per model, a JavaScript model and a Python model, some
 * samples wrong. This is the figure docs/SCALE-OUT.md sizes a cluster from.
 *
 *   node --no-node-snapshot dist/bench/throughput.js [--problems P] [--samples S]
 *        [--tests T] [--rounds R] [--concurrency C] [--quick] [--keep]
 *        [--shard-overhead K | --merge K]
 *
 * The set (P problems of T tests; S samples per problem for each model, in
 * one JSON Lines file per model) is generated into a temporary folder. The
 * real CLI grades it, as a user runs it (bin/evalrun.js), once for each
 * model alone (`--model`) and once for both, round after round; medians of
 * the wall time are reported as candidates per second, and per core
 * (divided by the cores evalrun was given, `--concurrency`, by default all
 * of them). A short run first makes sure the Python snapshot exists, so its
 * one-time creation is not measured.
 *
 * `--shard-overhead K` measures instead what every shard pays whatever its
 * size: it grades shard 1/K of the set (every shard reads all problems and
 * all submissions to plan, and digests them) and reports its wall time and
 * peak memory beside the time its share of the grading takes at the
 * measured rate. With `--samples 5000 --problems 100` the set is a
 * million-candidate evaluation.
 *
 * `--merge K` grades the JavaScript model's samples in K shards, one after
 * the other, and reports how fast `evalrun merge` combines their logs (the
 * merge's wall time and peak memory), after checking that the merged
 * summary is the one the shards add up to.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { Rng } from './rng.js';

interface Options {
  problems: number;
  samples: number;
  tests: number;
  rounds: number;
  concurrency: number;
  keep: boolean;
  shardOverhead: number | null;
  merge: number | null;
}

interface Family {
  name: string;
  js: string;
  py: string;
  wrongJs: string;
  wrongPy: string;
  answer: (a: number[], k: number) => number;
}

/** Small functions over a list and a number, as pass@k benchmarks' problems are; each with a plausible wrong answer. */
const FAMILIES: Family[] = [
  {
    name: 'count_above',
    js: 'return xs.filter((x) => x > k).length;',
    py: 'return sum(1 for x in xs if x > k)',
    wrongJs: 'return xs.filter((x) => x >= k).length;',
    wrongPy: 'return sum(1 for x in xs if x >= k)',
    answer: (xs, k) => xs.filter((x) => x > k).length,
  },
  {
    name: 'sum_multiples',
    js: 'let s = 0;\n  for (const x of xs) if (x % k === 0) s += x;\n  return s;',
    py: 'return sum(x for x in xs if x % k == 0)',
    wrongJs: 'let s = 0;\n  for (const x of xs) if (x % k === 0) s += 1;\n  return s;',
    wrongPy: 'return len([x for x in xs if x % k == 0])',
    answer: (xs, k) => xs.filter((x) => x % k === 0).reduce((s, x) => s + x, 0),
  },
  {
    name: 'kth_smallest',
    js: 'return [...xs].sort((a, b) => a - b)[Math.min(k, xs.length) - 1];',
    py: 'return sorted(xs)[min(k, len(xs)) - 1]',
    wrongJs: 'return [...xs].sort()[Math.min(k, xs.length) - 1];',
    wrongPy: 'return sorted(xs, key=str)[min(k, len(xs)) - 1]',
    answer: (xs, k) => [...xs].sort((a, b) => a - b)[Math.min(k, xs.length) - 1]!,
  },
  {
    name: 'longest_run',
    js: 'let best = 0, run = 0;\n  for (const x of xs) { run = x > k ? run + 1 : 0; best = Math.max(best, run); }\n  return best;',
    py: 'best = run = 0\n    for x in xs:\n        run = run + 1 if x > k else 0\n        best = max(best, run)\n    return best',
    wrongJs: 'let best = 0, run = 0;\n  for (const x of xs) { run = x > k ? run + 1 : 0; }\n  return run;',
    wrongPy: 'run = 0\n    for x in xs:\n        run = run + 1 if x > k else 0\n    return run',
    answer: (xs, k) => {
      let best = 0;
      let run = 0;
      for (const x of xs) {
        run = x > k ? run + 1 : 0;
        best = Math.max(best, run);
      }
      return best;
    },
  },
];

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    problems: 40,
    samples: 20,
    tests: 10,
    rounds: 1,
    concurrency: availableParallelism(),
    keep: false,
    shardOverhead: null,
    merge: null,
  };
  const count = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs a positive whole number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--quick') Object.assign(options, { problems: 10, samples: 5, tests: 5 });
    else if (flag === '--keep') options.keep = true;
    else if (flag === '--shard-overhead') options.shardOverhead = count(flag, argv[++i]);
    else if (flag === '--merge') options.merge = count(flag, argv[++i]);
    else if (['--problems', '--samples', '--tests', '--rounds', '--concurrency'].includes(flag)) {
      (options as unknown as Record<string, number>)[flag.slice(2)] = count(flag, argv[++i]);
    } else throw new Error(`unknown flag ${flag}`);
  }
  return options;
}

/** Writes the problems and one JSON Lines file of samples per model; about one sample in four is wrong. */
function generate(dir: string, options: Options): { problems: string; solutions: string; candidates: number } {
  const problems = join(dir, 'problems');
  const solutions = join(dir, 'solutions');
  mkdirSync(problems, { recursive: true });
  mkdirSync(solutions, { recursive: true });
  const rng = new Rng(18);
  const js: string[] = [];
  const py: string[] = [];
  for (let p = 0; p < options.problems; p++) {
    const family = FAMILIES[p % FAMILIES.length]!;
    const id = `${family.name}_${p}`;
    const tests = Array.from({ length: options.tests }, () => {
      const xs = Array.from({ length: rng.int(1, 30) }, () => rng.int(-50, 99));
      const k = rng.int(1, 9);
      return { input: { xs, k }, expected_output: [family.answer(xs, k)] };
    });
    writeFileSync(
      join(problems, `${id}.json`),
      JSON.stringify({
        identifier: id,
        description: `${family.name} of a list`,
        function_prototype: {
          function_name: family.name,
          parameters: [
            { name: 'xs', type: 'List[int]' },
            { name: 'k', type: 'int' },
          ],
          return_values: [{ type: 'int' }],
        },
        prompts: [{ prompt_id: 'base', prompt: `Write ${family.name}(xs, k).` }],
        correctness_test_suite: tests,
      }),
    );
    for (let s = 0; s < options.samples; s++) {
      const wrong = rng.next() < 0.25;
      const jsBody = wrong ? family.wrongJs : family.js;
      const pyBody = wrong ? family.wrongPy : family.py;
      // Model output as it comes: fenced, with a line of prose.
      js.push(
        JSON.stringify({ problem_id: id, prompt_id: 'base', completion: `Here it is:\n\`\`\`js\nfunction ${family.name}(xs, k) {\n  ${jsBody}\n}\n\`\`\`` }),
      );
      py.push(JSON.stringify({ problem_id: id, prompt_id: 'base', completion: `\`\`\`python\ndef ${family.name}(xs, k):\n    ${pyBody}\n\`\`\`` }));
    }
  }
  writeFileSync(join(solutions, 'js-model.jsonl'), `${js.join('\n')}\n`);
  writeFileSync(join(solutions, 'py-model.jsonl'), `${py.join('\n')}\n`);
  return { problems, solutions, candidates: js.length + py.length };
}

const BIN = join(packageRoot(), 'bin', 'evalrun.js');

/** One graded run of the CLI; its wall time in seconds and its scorecard's summary. */
/**
 * With `scorecard`, the summary is read from that file and nothing is
 * printed: a JSON document written to a pipe would sit in the CLI's memory.
 */
function runCli(
  args: readonly string[],
  timed = false,
  scorecard: string | null = null,
): Promise<{ seconds: number; candidates: number; tests: number; passed: number; peakKb: number | null }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // GNU time's %M, when it is there: the CLI's own peak resident memory.
    const [command, prefix] = timed ? ['/usr/bin/time', ['-f', 'PEAK_KB %M', BIN]] : [BIN, []];
    const child = spawn(command, [...prefix, ...args, ...(scorecard === null ? ['--json'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`evalrun exited ${code}: ${stderr}`));
      const { summary } = JSON.parse(scorecard === null ? stdout : readFileSync(scorecard, 'utf8')) as {
        summary: { candidates: number; tests: number; passed: number };
      };
      const peak = /PEAK_KB (\d+)/.exec(stderr);
      resolve({ seconds, ...summary, peakKb: peak === null ? null : Number(peak[1]) });
    });
  });
}

async function measureMerge(k: number, args: readonly string[], dir: string): Promise<void> {
  const logs: string[] = [];
  let candidates = 0;
  let tests = 0;
  for (let i = 1; i <= k; i++) {
    const out = join(dir, 'merge', `shard-${i}.json`);
    const r = await runCli([...args, '--shard', `${i}/${k}`, '--out', out]);
    candidates += r.candidates;
    tests += r.tests;
    logs.push(`${out}l`);
  }
  const out = join(dir, 'merge', 'merged.json');
  const timed = existsSync('/usr/bin/time');
  const r = await runCli(['merge', ...logs, '--out', out], timed, out);
  if (r.candidates !== candidates || r.tests !== tests) {
    throw new Error(`the merge holds ${r.candidates} candidates and ${r.tests} tests; the shards graded ${candidates} and ${tests}`);
  }
  const megabytes = logs.reduce((n, log) => n + statSync(log).size, 0) / 1e6;
  console.log(
    `merge of ${k} shards: ${candidates} candidates, ${tests} tests, ${megabytes.toFixed(0)} MB of logs in ${r.seconds.toFixed(2)} s ` +
      `(${(candidates / r.seconds).toFixed(0)} candidates/s)` +
      (r.peakKb === null ? '' : `, peak RSS ${(r.peakKb / 1024).toFixed(0)} MB`),
  );
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-throughput-'));
  try {
    const set = generate(dir, options);
    const base = ['--problems', set.problems, '--solutions', set.solutions, '--concurrency', String(options.concurrency), '--pass-at', '1,5'];
    const out = (name: string): string[] => ['--out', join(dir, 'results', `${name}.json`)];
    // Makes the Python snapshot if this install has none yet; not measured.
    await runCli([...base, '--problem', `${FAMILIES[0]!.name}_0`, ...out('warm')]);
    if (options.shardOverhead !== null) {
      const k = options.shardOverhead;
      const r = await runCli([...base, '--shard', `1/${k}`, ...out('shard')], existsSync('/usr/bin/time'));
      console.log(
        `shard 1/${k} of ${set.candidates} candidates (${options.problems} problems): graded ${r.candidates} candidates in ${r.seconds.toFixed(2)} s` +
          (r.peakKb === null ? '' : `, CLI peak RSS ${(r.peakKb / 1024).toFixed(0)} MB`),
      );
      return;
    }
    if (options.merge !== null) {
      await measureMerge(options.merge, [...base, '--model', 'js-model'], dir);
      return;
    }

    const contenders = [
      { label: 'JavaScript samples', args: ['--model', 'js-model'] },
      { label: 'Python samples', args: ['--model', 'py-model'] },
      { label: 'both (the whole set)', args: [] },
    ];
    const seconds = new Map<string, number[]>(contenders.map((c) => [c.label, []]));
    const counts = new Map<string, { candidates: number; tests: number; passed: number }>();
    for (let round = 0; round < options.rounds; round++) {
      for (const c of contenders) {
        const r = await runCli([...base, ...c.args, ...out(`${round}-${c.args.join('') || 'all'}`)]);
        seconds.get(c.label)!.push(r.seconds);
        counts.set(c.label, r);
      }
    }
    const cores = options.concurrency;
    console.log(
      `pass@k-shaped workload: ${options.problems} problems x ${options.tests} tests, ${options.samples} samples per problem for each of 2 models ` +
        `(${set.candidates} candidates), --concurrency ${cores} on ${availableParallelism()} cores, median of ${options.rounds} round(s)`,
    );
    for (const c of contenders) {
      const s = median(seconds.get(c.label)!);
      const n = counts.get(c.label)!;
      const perSecond = n.candidates / s;
      console.log(
        `  ${c.label.padEnd(22)} ${n.candidates} candidates, ${n.tests} tests (${n.passed} passed) in ${s.toFixed(2)} s: ` +
          `${perSecond.toFixed(0)} candidates/s, ${(perSecond / cores).toFixed(0)} per core (${(n.tests / s / cores).toFixed(0)} tests/s per core)`,
      );
    }
    // The numbers SCALE-OUT.md works from, as one line a script can read.
    const all = counts.get('both (the whole set)')!;
    const allSeconds = median(seconds.get('both (the whole set)')!);
    console.log(
      `THROUGHPUT ${JSON.stringify({ candidates_per_second_per_core: all.candidates / allSeconds / cores, cores, candidates: all.candidates, seconds: allSeconds })}`,
    );
  } finally {
    if (options.keep) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

// Read once so a missing build fails here, not in the first child.
readFileSync(BIN);
await main();
