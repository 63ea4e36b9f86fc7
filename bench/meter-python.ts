/**
 * Measurements for measured Python runs (docs/METERING.md): the figures of
 * a few candidates (repeated, and at sizes n and 4n), their rankings, the
 * time of a measured run against a normal one of the same candidates, and
 * whether the memory snapshot is the same for both builds.
 *
 *   node --no-node-snapshot dist/bench/meter-python.js [--mode blocks|loops] [--part counts|speed|snapshot]... [--rounds N] [--repetitions N] [--cache DIR]
 *
 * Counts print as JSON with a digest: run it in two processes and compare.
 * The cache folder defaults to a temporary one of this machine (never the
 * shared node_modules/.cache, whose stale snapshots a new one would delete).
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSnapshot } from '../src/engines/python/boot.js';
import { PythonEngine } from '../src/engines/python/engine.js';
import type { CandidateJob } from '../src/sandbox-host/protocol.js';
import type { MeterMode } from '../src/engines/python/meter/plan.js';
import { loadMeteredPyodideFiles } from '../src/engines/python/meter/metered-files.js';
import { loadPyodideFiles } from '../src/engines/python/pyodide-files.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? (args[at + 1] as string) : fallback;
};
const parts = args.flatMap((a, i) => (args[i - 1] === '--part' ? [a] : []));
const want = (part: string): boolean => parts.length === 0 || parts.includes(part);
const mode = option('--mode', 'blocks') as MeterMode;
const cacheDir = option('--cache', join(tmpdir(), 'evalrun-meter-cache'));
const TIMEOUT_MS = 60_000;

/** Deterministic pseudo-random integers, so every process sends the same tests. */
function numbers(n: number, seed: number): number[] {
  let s = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(s % 1_000_000);
  }
  return out;
}
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

interface Case {
  name: string;
  code: string;
  tests: unknown[][];
}

const N = 300;
const M = 10_000;
const CASES: Case[] = [
  {
    name: 'x in list',
    code: 'def f(xs, qs):\n    s = list(xs)\n    return sum(1 for q in qs if q in s)\n',
    tests: [
      [range(N), range(2 * N).filter((x) => x % 2 === 0)],
      [range(4 * N), range(8 * N).filter((x) => x % 2 === 0)],
    ],
  },
  {
    name: 'x in set',
    code: 'def f(xs, qs):\n    s = set(xs)\n    return sum(1 for q in qs if q in s)\n',
    tests: [
      [range(N), range(2 * N).filter((x) => x % 2 === 0)],
      [range(4 * N), range(8 * N).filter((x) => x % 2 === 0)],
    ],
  },
  { name: 'sorted()', code: 'def f(xs):\n    return sorted(xs)[0]\n', tests: [[numbers(M, 1)], [numbers(4 * M, 1)]] },
  { name: 'min()', code: 'def f(xs):\n    return min(xs)\n', tests: [[numbers(M, 1)], [numbers(4 * M, 1)]] },
  { name: 'sum(range(n))', code: 'def f(n):\n    return sum(range(n))\n', tests: [[M], [4 * M]] },
  { name: 'bytes(n) copy', code: 'def f(n):\n    b = bytes(n)\n    return len(b + b)\n', tests: [[100_000], [400_000]] },
];

const job = (c: Case, measure: boolean, repetitions = 1): CandidateJob => ({
  language: 'python',
  code: c.code,
  functionName: 'f',
  arity: 0,
  tests: c.tests.map((t) => JSON.stringify(t)),
  limits: { memoryMb: 256, timeoutMs: TIMEOUT_MS, seed: 7 },
  ...(measure ? { measure: { repetitions } } : {}),
});

/** A measured run's figures of one candidate: the load's and each test's cost and memory. */
async function figures(engine: PythonEngine, c: Case): Promise<{ load: string; tests: string[]; memory: string[] }> {
  const outcome = await engine.run(job(c, true));
  if (outcome.kind !== 'ran') throw new Error(`${c.name}: ${JSON.stringify(outcome)}`);
  const tests = outcome.tests.map((t) => (t.kind === 'returned' && t.measure !== undefined ? t.measure : null));
  return {
    load: String(outcome.load?.cost ?? '-'),
    tests: tests.map((m) => String(m?.cost ?? '-')),
    memory: tests.map((m) => String(m?.memory ?? '-')),
  };
}

async function countPart(): Promise<void> {
  const engine = await PythonEngine.create({ memoryMb: 256, cacheDir });
  const table: Record<string, { load: string; n: string; n4: string; ratio: string; memory: string[]; repeats: boolean }> = {};
  for (const c of CASES) {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await figures(engine, c));
    const first = runs[0] as { load: string; tests: string[]; memory: string[] };
    const repeats = runs.every((r) => JSON.stringify(r) === JSON.stringify(first));
    const [n = '0', n4 = '0'] = first.tests;
    table[c.name] = { load: first.load, n, n4, ratio: (Number(n4) / Number(n)).toFixed(2), memory: first.memory, repeats };
  }
  engine.dispose();
  const digest = createHash('sha256').update(JSON.stringify(table)).digest('hex').slice(0, 16);
  console.log(JSON.stringify({ mode, digest, counts: table }, null, 1));
}

const SPEED: Case[] = [
  { name: 'small: a + b', code: 'def f(a, b):\n    return a + b\n', tests: [[1, 2]] },
  { name: 'small: reverse string', code: 'def f(s):\n    return s[::-1]\n', tests: [['hello world']] },
  { name: 'small: list comprehension', code: 'def f(xs):\n    return [x * 2 for x in xs]\n', tests: [[range(20)]] },
  { name: 'compute: fib(24)', code: 'def f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\n', tests: [[24]] },
  {
    name: 'compute: sieve(300000)',
    code: 'def f(n):\n    s = [True] * n\n    for i in range(2, int(n ** 0.5) + 1):\n        if s[i]:\n            for j in range(i * i, n, i):\n                s[j] = False\n    return sum(s)\n',
    tests: [[300_000]],
  },
  { name: 'compute: sorted 200k', code: 'def f(xs):\n    return sorted(xs)[100]\n', tests: [[numbers(200_000, 3)]] },
  {
    name: 'compute: dict counting',
    code: 'def f(xs):\n    d = {}\n    for x in xs:\n        d[x % 1000] = d.get(x % 1000, 0) + 1\n    return max(d.values())\n',
    tests: [[numbers(100_000, 5)]],
  },
];

/**
 * MBPP-like small candidates: a one-line to five-line function of a few
 * integers, strings or short lists, three tests each. Different code per
 * candidate, as in a run over a model's answers.
 */
function smallCandidates(count: number): Case[] {
  const bodies = [
    (k: number) => `def f(a, b):\n    return a * ${k} + b\n`,
    (k: number) => `def f(s):\n    return s[::-1] + '${k}'\n`,
    (k: number) => `def f(xs):\n    return [x * ${k} for x in xs if x % 2 == 0]\n`,
    (k: number) => `def f(n):\n    total = 0\n    for i in range(n):\n        total += i * ${k}\n    return total\n`,
    (k: number) => `import math\n\ndef f(a, b):\n    return math.gcd(a + ${k}, b)\n`,
  ];
  const tests = [
    [
      [3, 4],
      [10, 20],
      [7, 0],
    ],
    [['hello'], ['abc'], ['']],
    [[[1, 2, 3, 4]], [range(20)], [[]]],
    [[10], [50], [0]],
    [
      [12, 18],
      [7, 5],
      [100, 75],
    ],
  ];
  return Array.from({ length: count }, (_, i) => ({ name: `small ${i}`, code: bodies[i % bodies.length]!(i), tests: tests[i % tests.length]! }));
}

/** Wall time of running `cases` one after another on `engine`, in ms. */
async function timeRun(engine: PythonEngine, cases: readonly Case[], measure: boolean, repetitions: number): Promise<number> {
  const t0 = performance.now();
  for (const c of cases) {
    const outcome = await engine.run(job(c, measure, repetitions));
    if (outcome.kind !== 'ran' || outcome.tests.some((t) => t.kind !== 'returned')) throw new Error(`${c.name}: ${JSON.stringify(outcome)}`);
  }
  return performance.now() - t0;
}

/** A measured run against a normal one of the same candidates, on one engine (both lanes warm), alternated. */
async function speedPart(): Promise<void> {
  const engine = await PythonEngine.create({ memoryMb: 256, cacheDir });
  const rounds = Number(option('--rounds', '3'));
  const repetitions = Number(option('--repetitions', '1'));
  const groups: [string, Case[]][] = [['200 small x 3 tests', smallCandidates(200)], ...SPEED.map((c): [string, Case[]] => [c.name, [c]])];
  const rows: Record<string, { normalMs: string; measuredMs: string; factor: string }> = {};
  for (const [name, cases] of groups) {
    await timeRun(engine, cases, false, repetitions);
    await timeRun(engine, cases, true, repetitions);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < rounds; i++) {
      a.push(await timeRun(engine, cases, false, repetitions));
      b.push(await timeRun(engine, cases, true, repetitions));
    }
    const pa = Math.min(...a);
    const pb = Math.min(...b);
    rows[name] = { normalMs: pa.toFixed(1), measuredMs: pb.toFixed(1), factor: (pb / pa).toFixed(2) };
  }
  engine.dispose();
  console.log(JSON.stringify({ repetitions, speed: rows }, null, 1));
}

async function snapshotPart(): Promise<void> {
  const plainFiles = loadPyodideFiles();
  const metered = loadMeteredPyodideFiles(mode, cacheDir);
  const digest = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex').slice(0, 16);
  const a = await makeSnapshot(plainFiles);
  const b = await makeSnapshot(metered.files);
  console.log(
    JSON.stringify({
      mode,
      meter: { origin: metered.origin, meterMs: Math.round(metered.meterMs), bytes: metered.bytes },
      plain: { bytes: a.length, digest: digest(a) },
      metered: { bytes: b.length, digest: digest(b) },
    }),
  );
}

if (want('counts')) await countPart();
if (want('speed')) await speedPart();
if (parts.includes('snapshot')) await snapshotPart();
