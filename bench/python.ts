/**
 * The Python benchmark: evalrun's self-check through the real CLI against
 * the reference framework's own way of running Python (mgrainger87/
 * LLMCodingBenchmarkingFramework, execution.py): for every test case, the
 * code and the arguments go to temporary files, a new Python process execs
 * the code with fresh globals, calls the last callable it defined and
 * writes the result to a third file, which the parent reads and compares.
 * Here that process is a fresh `python3` with a 5 s timeout.
 *
 *   node --no-node-snapshot dist/bench/python.js [--quick] [--problems N] [--tests T]
 *        [--rounds R] [--concurrency C] [--rss] [--only evalrun|reference] [--keep]
 *
 * The problem set is generated into a temporary folder: varied functions
 * (integers, big lists, strings, floats compared with a tolerance, tuples,
 * dicts, nested lists, None), array-form expected_output, and List[int]
 * inputs written as Python literals in strings in a third of the problems,
 * as real files do. Expected values come from running each optimal
 * solution once in CPython (python3) before anything is timed, so evalrun
 * (CPython compiled to WebAssembly) is also checked against CPython.
 *
 * Contenders run alternately, round after round, and medians are reported.
 * `--rss` samples the resident memory of the CLI and its sandbox workers
 * while evalrun runs. Exit code 1 when a contender got a test wrong or
 * evalrun was not the faster.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { Rng as BaseRng } from './rng.js';

/** The python3 executable, resolved once (see main). */
let PYTHON = 'python3';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Options {
  problems: number;
  tests: number;
  rounds: number;
  concurrency: number;
  rss: boolean;
  only: 'evalrun' | 'reference' | null;
  keep: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { problems: 100, tests: 20, rounds: 3, concurrency: availableParallelism(), rss: false, only: null, keep: false };
  const number = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs a positive whole number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--quick':
        options.problems = 20;
        options.tests = 10;
        options.rounds = 1;
        break;
      case '--problems':
        options.problems = number(flag, argv[++i]);
        break;
      case '--tests':
        options.tests = number(flag, argv[++i]);
        break;
      case '--rounds':
        options.rounds = number(flag, argv[++i]);
        break;
      case '--concurrency':
        options.concurrency = number(flag, argv[++i]);
        break;
      case '--rss':
        options.rss = true;
        break;
      case '--only': {
        const which = argv[++i];
        if (which !== 'evalrun' && which !== 'reference') throw new Error('--only takes evalrun or reference');
        options.only = which;
        break;
      }
      case '--keep':
        options.keep = true;
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------
// The problem set

/** The shared generator plus the words this problem set uses. */
class Rng extends BaseRng {
  word(min = 2, max = 8): string {
    return Array.from({ length: this.int(min, max) }, () => this.pick([...'abcdefghijklmnopqrstuvwxyz'])).join('');
  }
}

interface Family {
  name: string;
  parameters: Array<{ name: string; type: string }>;
  returnType: string;
  /** Python source; NAME is the problem's function name, defined last (the reference calls the last callable). */
  source: string;
  inputs(rng: Rng): Json[];
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'pi', 'rho', 'sigma', 'tau', 'omega', 'mu'];

const FAMILIES: Family[] = [
  {
    name: 'sum_evens',
    parameters: [{ name: 'nums', type: 'List[int]' }],
    returnType: 'int',
    source: 'def NAME(nums: List[int]) -> int:\n    return sum(n for n in nums if n % 2 == 0)\n',
    inputs: (r) => [r.ints(r.int(0, 200), -1000, 1000)],
  },
  {
    name: 'reverse_words',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'str',
    source: 'def NAME(s: str) -> str:\n    return " ".join(reversed(s.split()))\n',
    inputs: (r) => [Array.from({ length: r.int(0, 12) }, () => r.word()).join(' ')],
  },
  {
    name: 'fib',
    parameters: [{ name: 'n', type: 'int' }],
    returnType: 'int',
    source: 'def NAME(n: int) -> int:\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n',
    inputs: (r) => [r.int(0, 70)],
  },
  {
    name: 'is_palindrome',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'bool',
    source: 'def NAME(s: str) -> bool:\n    t = [c.lower() for c in s if c.isalnum()]\n    return t == t[::-1]\n',
    inputs: (r) => {
      const w = r.word(1, 10);
      return [r.next() < 0.5 ? `${w}, ${[...w].reverse().join('').toUpperCase()}!` : `${w} ${r.word()}`];
    },
  },
  {
    name: 'two_sum',
    parameters: [{ name: 'nums', type: 'List[int]' }, { name: 'target', type: 'int' }],
    returnType: 'List[int]',
    source:
      'def NAME(nums: List[int], target: int) -> List[int]:\n    seen = {}\n    for i, n in enumerate(nums):\n        if target - n in seen:\n            return [seen[target - n], i]\n        seen[n] = i\n    return []\n',
    inputs: (r) => {
      const nums = r.ints(r.int(2, 300), -10_000, 10_000);
      const i = r.int(0, nums.length - 1);
      let j = r.int(0, nums.length - 1);
      if (j === i) j = (i + 1) % nums.length;
      return [nums, nums[i]! + nums[j]!];
    },
  },
  {
    name: 'max_subarray',
    parameters: [{ name: 'nums', type: 'List[int]' }],
    returnType: 'int',
    source:
      'def NAME(nums: List[int]) -> int:\n    best = cur = nums[0]\n    for n in nums[1:]:\n        cur = max(n, cur + n)\n        best = max(best, cur)\n    return best\n',
    inputs: (r) => [r.ints(r.int(1, 500), -100, 100)],
  },
  {
    name: 'mean_std',
    parameters: [{ name: 'xs', type: 'List[float]' }],
    returnType: 'Tuple[float, float]',
    source:
      'import math\n\ndef NAME(xs: List[float]) -> Tuple[float, float]:\n    m = sum(xs) / len(xs)\n    return (m, math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs)))\n',
    inputs: (r) => [Array.from({ length: r.int(1, 100) }, () => Math.round((r.next() * 200 - 100) * 1000) / 1000)],
  },
  {
    name: 'char_counts',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'Dict[str, int]',
    source:
      'from collections import Counter\n\ndef NAME(s: str) -> Dict[str, int]:\n    return dict(Counter(c for c in s if not c.isspace()))\n',
    inputs: (r) => [Array.from({ length: r.int(0, 8) }, () => r.word()).join(' ')],
  },
  {
    name: 'unique_sorted',
    parameters: [{ name: 'nums', type: 'List[int]' }],
    returnType: 'List[int]',
    source: 'def NAME(nums: List[int]) -> List[int]:\n    return sorted(set(nums))\n',
    inputs: (r) => [r.ints(r.int(0, 300), 0, 200)],
  },
  {
    name: 'gcd_lcm',
    parameters: [{ name: 'a', type: 'int' }, { name: 'b', type: 'int' }],
    returnType: 'Tuple[int, int]',
    source:
      'def NAME(a: int, b: int) -> Tuple[int, int]:\n    x, y = a, b\n    while y:\n        x, y = y, x % y\n    return (x, a * b // x)\n',
    inputs: (r) => [r.int(1, 100_000), r.int(1, 100_000)],
  },
  {
    name: 'count_primes',
    parameters: [{ name: 'n', type: 'int' }],
    returnType: 'int',
    source:
      'def NAME(n: int) -> int:\n    if n < 3:\n        return 0\n    sieve = bytearray([1]) * n\n    sieve[0] = sieve[1] = 0\n    for i in range(2, int(n ** 0.5) + 1):\n        if sieve[i]:\n            sieve[i * i::i] = bytearray(len(range(i * i, n, i)))\n    return sum(sieve)\n',
    inputs: (r) => [r.int(0, 50_000)],
  },
  {
    name: 'transpose',
    parameters: [{ name: 'matrix', type: 'List[List[int]]' }],
    returnType: 'List[List[int]]',
    source: 'def NAME(matrix: List[List[int]]) -> List[List[int]]:\n    return [list(row) for row in zip(*matrix)]\n',
    inputs: (r) => {
      const rows = r.int(1, 12);
      const cols = r.int(1, 12);
      return [Array.from({ length: rows }, () => r.ints(cols, -9, 9))];
    },
  },
  {
    name: 'run_length',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'str',
    source:
      'from itertools import groupby\n\ndef NAME(s: str) -> str:\n    return "".join(k + str(len(list(g))) for k, g in groupby(s))\n',
    inputs: (r) => [Array.from({ length: r.int(0, 20) }, () => r.pick(['a', 'b', 'c']).repeat(r.int(1, 5))).join('')],
  },
  {
    name: 'common_prefix',
    parameters: [{ name: 'strs', type: 'List[str]' }],
    returnType: 'str',
    source:
      'def NAME(strs: List[str]) -> str:\n    if not strs:\n        return ""\n    lo, hi = min(strs), max(strs)\n    i = 0\n    while i < len(lo) and lo[i] == hi[i]:\n        i += 1\n    return lo[:i]\n',
    inputs: (r) => {
      const stem = r.word(0, 5);
      return [Array.from({ length: r.int(0, 6) }, () => stem + r.word(0, 4))];
    },
  },
  {
    name: 'top_words',
    parameters: [{ name: 'words', type: 'List[str]' }, { name: 'k', type: 'int' }],
    returnType: 'List[str]',
    source:
      'import heapq\nfrom collections import Counter\n\ndef NAME(words: List[str], k: int) -> List[str]:\n    counts = Counter(words)\n    return [w for _, w in heapq.nsmallest(k, ((-c, w) for w, c in counts.items()))]\n',
    inputs: (r) => [Array.from({ length: r.int(1, 60) }, () => r.pick(WORDS)), r.int(1, 5)],
  },
  {
    name: 'ways_to_climb',
    parameters: [{ name: 'n', type: 'int' }],
    returnType: 'int',
    // Raising the recursion limit is common in real solutions; it changes
    // interpreter settings, so evalrun replaces the interpreter after it.
    source:
      'import sys\nfrom functools import lru_cache\nsys.setrecursionlimit(5000)\n\ndef NAME(n: int) -> int:\n    @lru_cache(maxsize=None)\n    def ways(k):\n        return 1 if k <= 1 else ways(k - 1) + ways(k - 2)\n    return ways(n)\n',
    inputs: (r) => [r.int(0, 70)],
  },
  {
    name: 'binary_search',
    parameters: [{ name: 'nums', type: 'List[int]' }, { name: 'target', type: 'int' }],
    returnType: 'int',
    source:
      'import bisect\n\ndef NAME(nums: List[int], target: int) -> int:\n    i = bisect.bisect_left(nums, target)\n    return i if i < len(nums) and nums[i] == target else -1\n',
    inputs: (r) => {
      const nums = [...new Set(r.ints(r.int(0, 400), 0, 2000))].sort((a, b) => a - b);
      return [nums, r.next() < 0.6 && nums.length > 0 ? r.pick(nums) : r.int(0, 2000)];
    },
  },
  {
    name: 'merge_intervals',
    parameters: [{ name: 'intervals', type: 'List[List[int]]' }],
    returnType: 'List[List[int]]',
    source:
      'def NAME(intervals: List[List[int]]) -> List[List[int]]:\n    out = []\n    for lo, hi in sorted(intervals):\n        if out and lo <= out[-1][1]:\n            out[-1][1] = max(out[-1][1], hi)\n        else:\n            out.append([lo, hi])\n    return out\n',
    inputs: (r) => [
      Array.from({ length: r.int(0, 30) }, () => {
        const lo = r.int(0, 200);
        return [lo, lo + r.int(0, 20)];
      }),
    ],
  },
  {
    name: 'first_negative',
    parameters: [{ name: 'nums', type: 'List[int]' }],
    returnType: 'Optional[int]',
    source: 'def NAME(nums: List[int]) -> Optional[int]:\n    return next((n for n in nums if n < 0), None)\n',
    inputs: (r) => [r.ints(r.int(0, 20), r.next() < 0.5 ? 0 : -5, 50)],
  },
];

interface GeneratedProblem {
  file: string;
  functionName: string;
  code: string;
  /** Arguments of each test, as native values. */
  tests: Json[][];
  expected: Json[];
  document: Record<string, Json>;
}

/**
 * Builds the problems and asks CPython for every expected value, in one
 * process, with the same "fresh globals, last callable" rule the
 * reference uses.
 */
function generate(dir: string, count: number, testsPer: number): GeneratedProblem[] {
  const rng = new Rng(20_240_601);
  const problems: GeneratedProblem[] = [];
  for (let i = 0; i < count; i++) {
    const family = FAMILIES[i % FAMILIES.length]!;
    const functionName = `${family.name}_${i}`;
    const code = `from typing import *\n\n${family.source.replaceAll('NAME', functionName)}`;
    problems.push({
      file: join(dir, `${String(i).padStart(4, '0')}_${family.name}.json`),
      functionName,
      code,
      tests: Array.from({ length: testsPer }, () => family.inputs(rng)),
      expected: [],
      document: {},
    });
  }
  const expected = cpythonResults(problems);
  problems.forEach((problem, i) => {
    const family = FAMILIES[i % FAMILIES.length]!;
    problem.expected = expected[i]!;
    // A third of the problems write List[int] arguments as Python literals in strings.
    const literal = i % 3 === 0;
    problem.document = {
      identifier: problem.functionName,
      description: `Generated ${family.name} problem for the Python benchmark.`,
      prompts: [{ prompt_id: 'plain', prompt: `Write ${problem.functionName}.`, genericize: false, sample_inputs_outputs: [] }],
      function_prototype: {
        function_name: problem.functionName,
        parameters: family.parameters,
        return_values: [{ type: family.returnType }],
      },
      correctness_test_suite: problem.tests.map((args, t) => ({
        input: Object.fromEntries(
          family.parameters.map((p, k) => [p.name, literal && p.type === 'List[int]' ? pythonList(args[k]!) : args[k]!]),
        ),
        expected_output: [problem.expected[t]!],
      })),
      optimal_solution: problem.code,
      tags: ['benchmark', family.name],
    };
    writeFileSync(problem.file, `${JSON.stringify(problem.document, null, 1)}\n`);
  });
  return problems;
}

function pythonList(value: Json): string {
  return Array.isArray(value) ? `[${value.join(', ')}]` : JSON.stringify(value);
}

const EXPECTED_SCRIPT = `
import json, sys
jobs = json.load(sys.stdin)
out = []
for code, tests in jobs:
    g = {}
    exec(code, g)
    fn = [g[name] for name in g if callable(g[name])][-1]
    out.append([fn(*args) for args in tests])
json.dump(out, sys.stdout)
`;

function cpythonResults(problems: readonly GeneratedProblem[]): Json[][] {
  const input = JSON.stringify(problems.map((p) => [p.code, p.tests]));
  const r = spawnSync(PYTHON, ['-c', EXPECTED_SCRIPT], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`python3 could not compute the expected values: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout) as Json[][];
}

// ---------------------------------------------------------------------------
// The reference approach: one python3 process per test case

/** execution.py's executor_script, reading the three file names from argv. */
const REFERENCE_EXECUTOR = `
import sys, json, traceback
from typing import *
def executor_script(function_code_file, parameters_file, result_file):
    try:
        with open(function_code_file, 'r') as file:
            function_code = file.read()
        with open(parameters_file, 'r') as file:
            parameters = json.load(file)
        exec_globals = {}
        exec(function_code, exec_globals)
        last_function_name = [name for name in exec_globals if callable(exec_globals[name])][-1]
        function = exec_globals[last_function_name]
        result = function(*parameters)
        with open(result_file, 'w') as file:
            json.dump({'result': result}, file)
    except Exception as e:
        with open(result_file, 'w') as file:
            json.dump({'result': None, 'error': str(e), 'traceback': traceback.format_exc()}, file)
executor_script(*sys.argv[1:4])
`;

const REFERENCE_TIMEOUT_MS = 5000;

type Outcome = { ok: true; value: Json } | { ok: false; error: string };

function runReferenceTest(work: string, n: number, code: string, args: Json[]): Promise<Outcome> {
  const codeFile = join(work, `${n}.py`);
  const paramsFile = join(work, `${n}.params.json`);
  const resultFile = join(work, `${n}.result.json`);
  writeFileSync(codeFile, code);
  writeFileSync(paramsFile, JSON.stringify(args));
  return new Promise((resolve) => {
    const child = spawn(PYTHON, ['-c', REFERENCE_EXECUTOR, codeFile, paramsFile, resultFile], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), REFERENCE_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, error: e.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let outcome: Outcome;
      try {
        const data = JSON.parse(readFileSync(resultFile, 'utf8')) as { result: Json; error?: string };
        outcome = data.error !== undefined ? { ok: false, error: data.error } : { ok: true, value: data.result };
      } catch {
        outcome = { ok: false, error: signal !== null ? `killed by ${signal} (timeout)` : `exit code ${code}, no result` };
      }
      for (const f of [codeFile, paramsFile, resultFile]) {
        try {
          unlinkSync(f);
        } catch {
          // Never written: the process died first.
        }
      }
      resolve(outcome);
    });
  });
}

/** Every test of every problem, `concurrency` processes at a time; returns how many passed. */
async function runReference(problems: readonly GeneratedProblem[], concurrency: number): Promise<{ passed: number; failures: string[] }> {
  const work = mkdtempSync(join(tmpdir(), 'evalrun-bench-ref-'));
  const jobs = problems.flatMap((p) => p.tests.map((args, t) => ({ p, args, expected: p.expected[t]!, label: `${p.functionName}#${t}` })));
  let next = 0;
  let passed = 0;
  const failures: string[] = [];
  const lane = async (): Promise<void> => {
    while (next < jobs.length) {
      const n = next++;
      const job = jobs[n]!;
      const outcome = await runReferenceTest(work, n, job.p.code, job.args);
      if (outcome.ok && sameValue(job.expected, outcome.value)) passed++;
      else failures.push(`${job.label}: ${outcome.ok ? `got ${JSON.stringify(outcome.value)}` : outcome.error}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, lane));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { passed, failures };
}

/** Equality after JSON (tuples are lists), floats within evalrun's default tolerance. */
function sameValue(expected: Json, actual: Json): boolean {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const diff = Math.abs(expected - actual);
    return diff <= 1e-9 || diff <= 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
  }
  if (Array.isArray(expected) || Array.isArray(actual)) {
    return Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => sameValue(e, actual[i]!));
  }
  if (expected !== null && actual !== null && typeof expected === 'object' && typeof actual === 'object') {
    const keys = Object.keys(expected);
    return keys.length === Object.keys(actual).length && keys.every((k) => k in actual && sameValue(expected[k]!, actual[k]!));
  }
  return expected === actual;
}

// ---------------------------------------------------------------------------
// evalrun through its CLI

interface RssSample {
  atMs: number;
  hostKb: number;
  workersKb: number;
  workers: number;
}

interface EvalrunRun {
  ms: number;
  passed: number;
  tests: number;
  samples: RssSample[];
}

async function runEvalrun(problemsDir: string, outDir: string, round: number, concurrency: number, rss: boolean): Promise<EvalrunRun> {
  const out = join(outDir, `card-${round}-${process.hrtime.bigint()}.json`);
  const bin = join(packageRoot(), 'bin', 'evalrun.js');
  const started = performance.now();
  const child = spawn(process.execPath, [bin, '--problems', problemsDir, '--out', out, '--concurrency', String(concurrency)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const samples: RssSample[] = [];
  const sampler = rss && child.pid !== undefined ? setInterval(() => samples.push(sampleTree(child.pid!, performance.now() - started)), 100) : null;
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - started;
  if (sampler !== null) clearInterval(sampler);
  if (!existsSync(out)) throw new Error(`evalrun wrote no scorecard (exit ${code}): ${stderr}`);
  const card = JSON.parse(readFileSync(out, 'utf8')) as { summary: { tests: number; passed: number } };
  if (code !== 0) process.stderr.write(`evalrun exited ${code}: ${stderr.slice(0, 2000)}\n`);
  return { ms, passed: card.summary.passed, tests: card.summary.tests, samples };
}

/** Resident memory of a process and of its children (the sandbox workers), from /proc. */
function sampleTree(pid: number, atMs: number): RssSample {
  const host = rssKb(pid);
  let workersKb = 0;
  let workers = 0;
  for (const child of childPids(pid)) {
    const kb = rssKb(child);
    if (kb > 0) {
      workersKb += kb;
      workers++;
    }
  }
  return { atMs, hostKb: host, workersKb, workers };
}

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match === null ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // The process has just exited.
  }
  return out;
}

// ---------------------------------------------------------------------------

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mb = (kb: number): string => `${(kb / 1024).toFixed(0)} MB`;

function reportRss(samples: readonly RssSample[], label: string): void {
  if (samples.length === 0) {
    console.log(`${label}: no RSS samples (needs Linux /proc)`);
    return;
  }
  const total = (s: RssSample): number => s.hostKb + s.workersKb;
  const peak = samples.reduce((a, s) => (total(s) > total(a) ? s : a));
  const half = Math.floor(samples.length / 2);
  const firstHalf = Math.max(...samples.slice(0, half).map(total));
  const secondHalf = Math.max(...samples.slice(half).map(total));
  console.log(`${label}: ${samples.length} samples every 100 ms`);
  console.log(`  peak total ${mb(total(peak))} (CLI ${mb(peak.hostKb)}, ${peak.workers} workers ${mb(peak.workersKb)}) at ${seconds(peak.atMs)}`);
  console.log(`  peak CLI ${mb(Math.max(...samples.map((s) => s.hostKb)))}, peak workers ${mb(Math.max(...samples.map((s) => s.workersKb)))}`);
  console.log(`  peak in the first half ${mb(firstHalf)}, in the second half ${mb(secondHalf)}`);
  const marks = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1].map((f) => samples[Math.min(samples.length - 1, Math.floor(f * (samples.length - 1)))]!);
  console.log(`  over time: ${marks.map((s) => `${seconds(s.atMs)} ${mb(total(s))}`).join(' | ')}`);
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-bench-python-'));
  const problemsDir = join(dir, 'problems');
  const warmupDir = join(dir, 'warmup');
  const outDir = join(dir, 'out');
  for (const d of [problemsDir, warmupDir, outDir]) mkdirSync(d);
  // The interpreter itself, not a launcher: a pyenv shim is a shell script
  // that adds ~100 ms to every start and would flatter evalrun.
  const found = spawnSync('python3', ['-c', 'import sys, platform; print(sys.executable); print(platform.python_version())'], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error('python3 is needed for the reference side and for the expected values');
  const [executable, pythonVersion] = found.stdout.trim().split('\n');
  PYTHON = executable ?? 'python3';

  const problems = generate(problemsDir, options.problems, options.tests);
  const total = options.problems * options.tests;
  console.log(
    `Python benchmark: ${options.problems} problems x ${options.tests} tests = ${total} tests, ${options.rounds} round(s), ` +
      `concurrency ${options.concurrency}, Python ${pythonVersion} (${PYTHON}), Node ${process.version}`,
  );
  console.log(`problems in ${problemsDir}`);

  const failures: string[] = [];
  const evalrunMs: number[] = [];
  const referenceMs: number[] = [];
  const rssSamples: RssSample[][] = [];
  // Untimed, on two problems: makes the interpreter snapshot if this
  // checkout has none yet, and warms the page cache.
  for (const p of problems.slice(0, 2)) copyFileSync(p.file, join(warmupDir, basename(p.file)));
  if (options.only !== 'reference') await runEvalrun(warmupDir, outDir, -1, 1, false);

  for (let round = 0; round < options.rounds; round++) {
    // Alternate which goes first, so neither always runs on a cooler machine.
    const order: Array<'evalrun' | 'reference'> = round % 2 === 0 ? ['evalrun', 'reference'] : ['reference', 'evalrun'];
    for (const who of order) {
      if (options.only !== null && options.only !== who) continue;
      if (who === 'evalrun') {
        const run = await runEvalrun(problemsDir, outDir, round, options.concurrency, options.rss);
        evalrunMs.push(run.ms);
        rssSamples.push(run.samples);
        if (run.passed !== total || run.tests !== total) failures.push(`evalrun round ${round + 1}: ${run.passed}/${run.tests} passed, ${total} expected`);
        console.log(`  round ${round + 1} evalrun   ${seconds(run.ms)}  ${run.passed}/${run.tests} passed`);
      } else {
        const started = performance.now();
        const ref = await runReference(problems, options.concurrency);
        const ms = performance.now() - started;
        referenceMs.push(ms);
        if (ref.passed !== total) failures.push(`reference round ${round + 1}: ${ref.passed}/${total} passed; ${ref.failures.slice(0, 3).join('; ')}`);
        console.log(`  round ${round + 1} reference ${seconds(ms)}  ${ref.passed}/${total} passed`);
      }
    }
  }

  console.log('');
  console.log('contender                                        median wall   tests/s');
  const line = (label: string, ms: number): void => {
    console.log(`${label.padEnd(48)} ${seconds(ms).padStart(11)}   ${(total / (ms / 1000)).toFixed(0).padStart(7)}`);
  };
  if (evalrunMs.length > 0) line(`evalrun CLI self-check (${options.concurrency} workers)`, median(evalrunMs));
  if (referenceMs.length > 0) line(`reference: python3 per test, ${options.concurrency} at a time`, median(referenceMs));
  let slower = false;
  if (evalrunMs.length > 0 && referenceMs.length > 0) {
    const ratio = median(referenceMs) / median(evalrunMs);
    console.log(`ratio: evalrun is ${ratio.toFixed(1)}x ${ratio >= 1 ? 'faster' : 'SLOWER'} than one python3 process per test`);
    slower = ratio < 1;
  }
  if (options.rss) rssSamples.forEach((samples, i) => reportRss(samples, `RSS of the evalrun CLI and its workers, round ${i + 1}`));
  for (const f of failures) console.log(`WRONG: ${f}`);
  if (!options.keep) rmSync(dir, { recursive: true, force: true });
  return failures.length > 0 || slower ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`bench/python: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  },
);
