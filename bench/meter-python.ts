/**
 * Measurements for the metered Python interpreter (docs/METERING.md):
 * counts of a few candidates (repeated, and at sizes n and 4n), their
 * rankings, the slowdown of metered against unmetered Pyodide, and
 * whether the memory snapshot is the same for both builds.
 *
 *   node --no-node-snapshot dist/bench/meter-python.js [--mode blocks|loops] [--part counts|speed|snapshot|reach]... [--cache DIR]
 *
 * Counts print as JSON with a digest: run it in two processes and compare.
 * The cache folder defaults to a temporary one of this machine (never the
 * shared node_modules/.cache, whose stale snapshots a new one would delete).
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSnapshot, type Interpreter } from '../src/engines/python/boot.js';
import { startPython } from '../src/engines/python/engine.js';
import type { MeterMode } from '../src/engines/python/meter/meter.js';
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

async function counts(interpreter: Interpreter, c: Case): Promise<{ load: string; tests: string[] }> {
  const reset = await interpreter.reset(TIMEOUT_MS);
  if (reset.kind !== 'ok' || reset.text !== 'clean') throw new Error(`reset: ${JSON.stringify(reset)}`);
  const prepared = await interpreter.prepare(c.code, 'f', 7, 256, TIMEOUT_MS);
  if (prepared.kind !== 'ok' || !prepared.text.startsWith('ok ')) throw new Error(`${c.name}: ${JSON.stringify(prepared)}`);
  const ran = await interpreter.runTests(
    c.tests.map((t) => JSON.stringify(t)),
    TIMEOUT_MS,
    TIMEOUT_MS,
  );
  if (ran.kind !== 'ok') throw new Error(`${c.name}: ${JSON.stringify(ran)}`);
  const costs = interpreter.meterCosts();
  if (costs === null) throw new Error('the interpreter is not metered');
  return { load: String(costs.load), tests: costs.tests.map(String) };
}

async function countPart(): Promise<void> {
  const start = await startPython({ memoryMb: 256, cacheDir, meter: mode });
  const interpreter = start.interpreter;
  const table: Record<string, { load: string; n: string; n4: string; ratio: string; repeats: boolean }> = {};
  for (const c of CASES) {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await counts(interpreter, c));
    const first = runs[0] as { load: string; tests: string[] };
    const repeats = runs.every((r) => JSON.stringify(r) === JSON.stringify(first));
    const [n = '0', n4 = '0'] = first.tests;
    table[c.name] = { load: first.load, n, n4, ratio: (Number(n4) / Number(n)).toFixed(2), repeats };
  }
  interpreter.dispose();
  const digest = createHash('sha256').update(JSON.stringify(table)).digest('hex').slice(0, 16);
  console.log(JSON.stringify({ mode, snapshotOrigin: start.snapshotOrigin, digest, counts: table }, null, 1));
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

/** Wall time of one candidate's reset, load and tests, in ms. */
async function timeCandidate(interpreter: Interpreter, c: Case): Promise<number> {
  const t0 = performance.now();
  await interpreter.reset(TIMEOUT_MS);
  await interpreter.prepare(c.code, 'f', 7, 256, TIMEOUT_MS);
  const ran = await interpreter.runTests(
    c.tests.map((t) => JSON.stringify(t)),
    TIMEOUT_MS,
    TIMEOUT_MS,
  );
  if (ran.kind !== 'ok') throw new Error(`${c.name}: ${JSON.stringify(ran)}`);
  return performance.now() - t0;
}

async function speedPart(): Promise<void> {
  const plain = await startPython({ memoryMb: 256, cacheDir });
  const metered = await startPython({ memoryMb: 256, cacheDir, meter: mode });
  const rounds = Number(option('--rounds', '5'));
  const rows: Record<string, { plainMs: string; meteredMs: string; factor: string }> = {};
  // Warm-up first (V8 tiers up the code the cases use), then alternated
  // rounds with the minimum kept: the machine is shared.
  for (const c of SPEED) {
    await timeCandidate(plain.interpreter, c);
    await timeCandidate(metered.interpreter, c);
  }
  for (const c of SPEED) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < rounds; i++) {
      a.push(await timeCandidate(plain.interpreter, c));
      b.push(await timeCandidate(metered.interpreter, c));
    }
    const pa = Math.min(...a);
    const pb = Math.min(...b);
    rows[c.name] = { plainMs: pa.toFixed(2), meteredMs: pb.toFixed(2), factor: (pb / pa).toFixed(2) };
  }
  plain.interpreter.dispose();
  metered.interpreter.dispose();
  console.log(JSON.stringify({ mode, speed: rows }, null, 1));
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

/** What a candidate can do about the counter: the routes to JavaScript, and the counter's own name. */
async function reachPart(): Promise<void> {
  const start = await startPython({ memoryMb: 256, cacheDir, meter: mode });
  const probe = [
    'def f():',
    '    out = []',
    "    for name in ('js', 'pyodide_js', 'pyodide', 'pyodide.ffi', '_pyodide_core', 'ctypes.util'):",
    '        try:',
    '            __import__(name)',
    "            out.append(name + ': imported')",
    '        except BaseException as e:',
    "            out.append(name + ': ' + type(e).__name__)",
    '    import sys',
    "    out.append('evalrun_meter in any module: ' + str(any('evalrun_meter' in dir(m) for m in list(sys.modules.values()) if m is not None)))",
    '    return out',
  ].join('\n');
  const i = start.interpreter;
  await i.prepare(probe, 'f', 7, 256, TIMEOUT_MS);
  const ran = await i.runTests(['[]'], TIMEOUT_MS, TIMEOUT_MS);
  console.log(JSON.stringify({ reach: ran, costs: String(i.meterCosts()?.tests) }));
  i.dispose();
}

if (want('counts')) await countPart();
if (want('reach')) await reachPart();
if (want('speed')) await speedPart();
if (parts.includes('snapshot')) await snapshotPart();
