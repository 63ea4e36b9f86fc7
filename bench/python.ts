/**
 * The Python benchmark: evalrun's self-check through the real CLI against
 * two graders written in Python, each a warm python3 that forks (see "The
 * Python peers" below): the reference framework's own grader
 * (mgrainger87/LLMCodingBenchmarkingFramework, execution.py: one forked
 * process per test, code and arguments through files), and human-eval's
 * method (one forked process per candidate running all its tests, no
 * sandbox). evalrun gives every candidate a Python interpreter in the state
 * it booted to, inside an isolate; the peers give each a forked copy of a
 * warm python3.
 *
 *   node --no-node-snapshot dist/bench/python.js [--quick] [--problems N] [--tests T]
 *        [--rounds R] [--concurrency C] [--rss] [--only evalrun|per-test|per-candidate] [--keep]
 *
 * The problem set is generated into a temporary folder: varied functions
 * (integers, big lists, strings, floats compared with a tolerance, tuples,
 * dicts, nested lists, None), array-form expected_output, and List[int]
 * inputs written as Python literals in strings in a third of the problems,
 * as real files do. Expected values come from running each optimal
 * solution once in CPython (python3) before anything is timed, so evalrun
 * (CPython compiled to WebAssembly) is also checked against CPython.
 *
 * Contenders run alternately, round after round, and medians are reported:
 * wall time, CPU time (of each contender's whole process tree) per
 * candidate, and evalrun's time to its first verdict (the first candidate
 * line in its run log). `--rss` samples the resident memory of the CLI and
 * its sandbox workers while evalrun runs. Exit code 1 when a contender got
 * a test wrong or a target was missed: evalrun faster than the per-test
 * peer, and, on sets of at least 500 problems with at most 5 tests each,
 * at most twice the time of the per-candidate one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { Rng as BaseRng } from './rng.js';
import { childPids } from './proc.js';

type Contender = 'evalrun' | 'per-test' | 'per-candidate';

/** The python3 executable, resolved once (see main). */
let PYTHON = 'python3';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Options {
  problems: number;
  tests: number;
  rounds: number;
  concurrency: number;
  rss: boolean;
  only: Contender | null;
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
        if (which !== 'evalrun' && which !== 'per-test' && which !== 'per-candidate') throw new Error('--only takes evalrun, per-test or per-candidate');
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
    parameters: [
      { name: 'nums', type: 'List[int]' },
      { name: 'target', type: 'int' },
    ],
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
    source: 'from collections import Counter\n\ndef NAME(s: str) -> Dict[str, int]:\n    return dict(Counter(c for c in s if not c.isspace()))\n',
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
    parameters: [
      { name: 'a', type: 'int' },
      { name: 'b', type: 'int' },
    ],
    returnType: 'Tuple[int, int]',
    source: 'def NAME(a: int, b: int) -> Tuple[int, int]:\n    x, y = a, b\n    while y:\n        x, y = y, x % y\n    return (x, a * b // x)\n',
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
    source: 'from itertools import groupby\n\ndef NAME(s: str) -> str:\n    return "".join(k + str(len(list(g))) for k, g in groupby(s))\n',
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
    parameters: [
      { name: 'words', type: 'List[str]' },
      { name: 'k', type: 'int' },
    ],
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
    parameters: [
      { name: 'nums', type: 'List[int]' },
      { name: 'target', type: 'int' },
    ],
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
        input: Object.fromEntries(family.parameters.map((p, k) => [p.name, literal && p.type === 'List[int]' ? pythonList(args[k]!) : args[k]!])),
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
  return Array.isArray(value) ? `[${value.map((item) => JSON.stringify(item)).join(', ')}]` : JSON.stringify(value);
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
// The Python peers: graders written in Python, each a warm python3 that forks
//
// Both get every problem's code and arguments at once on stdin (they read no
// problem files) and start `concurrency` warm python3 processes (forked from
// the driver, `typing` already imported), which share the problems round
// robin and fork again for the work itself:
//
// - per-test: the reference framework's grader (execution.py): for every
//   test the code and the arguments go to temporary files, a forked child
//   execs the code with fresh globals, calls the last callable it defined and
//   writes the result to a third file, which the parent reads; 5 s timeout
//   per test (SIGALRM in the child).
// - per-candidate: human-eval's method: one forked child per candidate
//   execs the code once and runs all its tests, no sandbox, results back
//   through a pipe; a 5 s timeout for the whole candidate.
//
// The driver prints the results, its wall time and the CPU time of itself
// and everything it forked (getrusage of the reaped children).

const PEER_DRIVER = `
import json, os, signal, sys, tempfile, time, resource, traceback
from typing import *

TIMEOUT_S = 5

def run_code(code, tests):
    g = {}
    exec(code, g)
    fn = g[[name for name in g if callable(g[name])][-1]]
    return [fn(*args) for args in tests]

def child_with_timeout(body):
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
    try:
        body()
    finally:
        os._exit(0)

def per_test(code, tests, work, n):
    out = []
    for t, args in enumerate(tests):
        base = os.path.join(work, '%d-%d' % (n, t))
        code_file, params_file, result_file = base + '.py', base + '.params.json', base + '.result.json'
        with open(code_file, 'w') as f:
            f.write(code)
        with open(params_file, 'w') as f:
            json.dump(args, f)
        pid = os.fork()
        if pid == 0:
            def body():
                try:
                    with open(code_file) as f:
                        function_code = f.read()
                    with open(params_file) as f:
                        parameters = json.load(f)
                    g = {}
                    exec(function_code, g)
                    fn = g[[name for name in g if callable(g[name])][-1]]
                    result = fn(*parameters)
                    with open(result_file, 'w') as f:
                        json.dump({'result': result}, f)
                except Exception as e:
                    with open(result_file, 'w') as f:
                        json.dump({'result': None, 'error': str(e), 'traceback': traceback.format_exc()}, f)
            child_with_timeout(body)
        os.waitpid(pid, 0)
        try:
            with open(result_file) as f:
                data = json.load(f)
            out.append({'error': data['error']} if 'error' in data else {'value': data['result']})
        except Exception:
            out.append({'error': 'no result (timeout)'})
        for name in (code_file, params_file, result_file):
            try:
                os.unlink(name)
            except OSError:
                pass
    return out

def per_candidate(code, tests, work, n):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        def body():
            try:
                results = [{'value': v} for v in run_code(code, tests)]
            except Exception as e:
                results = [{'error': str(e)}] * len(tests)
            with os.fdopen(write_end, 'w') as f:
                json.dump(results, f)
        child_with_timeout(body)
    os.close(write_end)
    with os.fdopen(read_end) as f:
        text = f.read()
    os.waitpid(pid, 0)
    return json.loads(text) if text else [{'error': 'timeout'}] * len(tests)

def main():
    mode, lanes = sys.argv[1], int(sys.argv[2])
    jobs = json.load(sys.stdin)
    grade = per_test if mode == 'per-test' else per_candidate
    started = time.perf_counter()
    work = tempfile.mkdtemp(prefix='evalrun-bench-peer-')
    pipes = []
    for lane in range(lanes):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            mine = {n: grade(code, tests, work, n) for n, (code, tests) in enumerate(jobs) if n % lanes == lane}
            with os.fdopen(write_end, 'w') as f:
                json.dump(mine, f)
            os._exit(0)
        os.close(write_end)
        pipes.append((pid, read_end))
    results = {}
    for pid, read_end in pipes:
        with os.fdopen(read_end) as f:
            results.update({int(k): v for k, v in json.load(f).items()})
        os.waitpid(pid, 0)
    os.rmdir(work)
    wall = time.perf_counter() - started
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    json.dump({'results': [results[n] for n in range(len(jobs))], 'wall': wall, 'cpu': cpu}, sys.stdout)

main()
`;

type PeerMode = 'per-test' | 'per-candidate';

interface PeerRun {
  ms: number;
  cpuMs: number;
  passed: number;
  failures: string[];
}

/** Runs one Python peer over every problem; checks every result against CPython's expected values. */
async function runPeer(mode: PeerMode, problems: readonly GeneratedProblem[], concurrency: number): Promise<PeerRun> {
  const input = JSON.stringify(problems.map((p) => [p.code, p.tests]));
  const started = performance.now();
  const child = spawn(PYTHON, ['-c', PEER_DRIVER, mode, String(concurrency)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`the ${mode} peer failed (exit ${code}): ${stderr.slice(0, 2000)}`);
  const out = JSON.parse(stdout) as { results: Array<Array<{ value?: Json; error?: string }>>; cpu: number };
  let passed = 0;
  const failures: string[] = [];
  problems.forEach((p, i) => {
    p.tests.forEach((_, t) => {
      const r = out.results[i]?.[t];
      if (r !== undefined && r.error === undefined && sameValue(p.expected[t]!, r.value ?? null)) passed++;
      else failures.push(`${p.functionName}#${t}: ${r?.error ?? JSON.stringify(r?.value)}`);
    });
  });
  return { ms, cpuMs: out.cpu * 1000, passed, failures };
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
  /** CPU of the CLI and its sandbox workers (getrusage of the reaped processes). */
  cpuMs: number;
  /** From the start to the first candidate line in the run log. */
  firstVerdictMs: number | null;
  passed: number;
  tests: number;
  samples: RssSample[];
}

/** Runs a command and prints the CPU time of everything it started, once they have all been reaped. */
const CPU_WRAPPER = `
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write('\\nevalrun-bench-cpu %.6f\\n' % (r.ru_utime + r.ru_stime))
sys.exit(code)
`;

async function runEvalrun(problemsDir: string, outDir: string, round: number, concurrency: number, rss: boolean): Promise<EvalrunRun> {
  const out = join(outDir, `card-${round}-${process.hrtime.bigint()}.json`);
  const log = `${out}l`;
  const bin = join(packageRoot(), 'bin', 'evalrun.js');
  const started = performance.now();
  // Through python3 for the CPU figure: its start (about 15 ms) is before
  // evalrun's and is counted in the wall time, not in the CPU.
  const child = spawn(PYTHON, ['-c', CPU_WRAPPER, bin, '--problems', problemsDir, '--out', out, '--concurrency', String(concurrency)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const samples: RssSample[] = [];
  const sampler = rss && child.pid !== undefined ? setInterval(() => samples.push(sampleTree(child.pid!, performance.now() - started)), 100) : null;
  let firstVerdictMs: number | null = null;
  const watcher = setInterval(() => {
    if (firstVerdictMs !== null) return;
    try {
      if (readFileSync(log, 'latin1').includes('{"type":"candidate"')) firstVerdictMs = performance.now() - started;
    } catch {
      // Not created yet.
    }
  }, 5);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - started;
  clearInterval(watcher);
  if (sampler !== null) clearInterval(sampler);
  if (!existsSync(out)) throw new Error(`evalrun wrote no scorecard (exit ${code}): ${stderr}`);
  const card = JSON.parse(readFileSync(out, 'utf8')) as { summary: { tests: number; passed: number } };
  const cpu = /evalrun-bench-cpu ([\d.]+)/.exec(stderr);
  if (code !== 0) process.stderr.write(`evalrun exited ${code}: ${stderr.slice(0, 2000)}\n`);
  return { ms, cpuMs: cpu === null ? NaN : Number(cpu[1]) * 1000, firstVerdictMs, passed: card.summary.passed, tests: card.summary.tests, samples };
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
  const wall: Record<Contender, number[]> = { evalrun: [], 'per-test': [], 'per-candidate': [] };
  const cpu: Record<Contender, number[]> = { evalrun: [], 'per-test': [], 'per-candidate': [] };
  const firstVerdict: number[] = [];
  const rssSamples: RssSample[][] = [];
  // Untimed, on two problems: makes the interpreter snapshot if this
  // checkout has none yet, and warms the page cache.
  for (const p of problems.slice(0, 2)) copyFileSync(p.file, join(warmupDir, basename(p.file)));
  if (options.only === null || options.only === 'evalrun') await runEvalrun(warmupDir, outDir, -1, 1, false);

  const contenders: Contender[] = ['evalrun', 'per-candidate', 'per-test'];
  for (let round = 0; round < options.rounds; round++) {
    // Rotate which goes first, so that none always runs on a cooler machine.
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const who of order) {
      if (options.only !== null && options.only !== who) continue;
      if (who === 'evalrun') {
        const run = await runEvalrun(problemsDir, outDir, round, options.concurrency, options.rss);
        wall.evalrun.push(run.ms);
        cpu.evalrun.push(run.cpuMs);
        if (run.firstVerdictMs !== null) firstVerdict.push(run.firstVerdictMs);
        rssSamples.push(run.samples);
        if (run.passed !== total || run.tests !== total) failures.push(`evalrun round ${round + 1}: ${run.passed}/${run.tests} passed, ${total} expected`);
        const first = run.firstVerdictMs === null ? '' : `, first verdict at ${seconds(run.firstVerdictMs)}`;
        console.log(`  round ${round + 1} evalrun       ${seconds(run.ms)}  CPU ${seconds(run.cpuMs)}  ${run.passed}/${run.tests} passed${first}`);
      } else {
        const run = await runPeer(who, problems, options.concurrency);
        wall[who].push(run.ms);
        cpu[who].push(run.cpuMs);
        if (run.passed !== total) failures.push(`${who} round ${round + 1}: ${run.passed}/${total} passed; ${run.failures.slice(0, 3).join('; ')}`);
        console.log(`  round ${round + 1} ${who.padEnd(13)} ${seconds(run.ms)}  CPU ${seconds(run.cpuMs)}  ${run.passed}/${total} passed`);
      }
    }
  }

  console.log('');
  console.log('contender                                              median wall   tests/s   CPU per candidate');
  const labels: Record<Contender, string> = {
    evalrun: `evalrun CLI self-check (${options.concurrency} workers)`,
    'per-candidate': `human-eval: fork per candidate (${options.concurrency} lanes)`,
    'per-test': `reference: fork per test (${options.concurrency} lanes)`,
  };
  for (const who of contenders) {
    if (wall[who].length === 0) continue;
    const ms = median(wall[who]);
    const perCandidate = median(cpu[who]) / options.problems;
    console.log(
      `${labels[who].padEnd(54)} ${seconds(ms).padStart(11)}   ${(total / (ms / 1000)).toFixed(0).padStart(7)}   ${perCandidate.toFixed(2).padStart(8)} ms`,
    );
  }
  if (firstVerdict.length > 0) console.log(`evalrun's first verdict (median): ${seconds(median(firstVerdict))} after the start`);
  let missed = false;
  if (wall.evalrun.length > 0 && wall['per-candidate'].length > 0) {
    const ratio = median(wall.evalrun) / median(wall['per-candidate']);
    const cpuRatio = median(cpu.evalrun) / median(cpu['per-candidate']);
    const target = hasPerCandidateTarget(options);
    console.log(
      `evalrun / fork per candidate: ${ratio.toFixed(2)}x the wall time (${target ? 'target <= 2' : 'no target for this shape of set'}), ${cpuRatio.toFixed(2)}x the CPU`,
    );
    missed ||= target && ratio > 2;
  }
  if (wall.evalrun.length > 0 && wall['per-test'].length > 0) {
    const ratio = median(wall['per-test']) / median(wall.evalrun);
    const cpuRatio = median(cpu['per-test']) / median(cpu.evalrun);
    console.log(`fork per test / evalrun: ${ratio.toFixed(2)} (target > 1: evalrun ${ratio > 1 ? 'faster' : 'SLOWER'}), CPU ${cpuRatio.toFixed(2)}`);
    missed ||= ratio <= 1;
  }
  if (options.rss) rssSamples.forEach((samples, i) => reportRss(samples, `RSS of the evalrun CLI and its workers, round ${i + 1}`));
  for (const f of failures) console.log(`WRONG: ${f}`);
  if (!options.keep) rmSync(dir, { recursive: true, force: true });
  return failures.length > 0 || missed ? 1 : 0;
}

/**
 * The per-candidate target is set for the shape of a pass@k run: many small
 * problems with a few tests each (the issue's set is 1,000 x 3). On a set of
 * a hundred problems the fixed cost of starting the workers dominates, and
 * only the per-test target applies.
 */
function hasPerCandidateTarget(options: Options): boolean {
  return options.problems >= 500 && options.tests <= 5;
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
