/**
 * The Python engine on its own, in this process: what its boot, a run of
 * many tests and an interpreter cost. The figures go to stdout, for the
 * record; nothing is asserted (the CLI-level comparison is bench/python.ts).
 *
 *   npm run build && node --no-node-snapshot --expose-gc dist/bench/python-engine.js [--rounds N]
 *
 * - boot: a cold boot that makes the memory snapshot, inside an isolate,
 *   against the median boot of an engine from that snapshot;
 * - tests: add(a, b) with 1000 tests in one run against a run of one test,
 *   each on an engine that restores its interpreter in between;
 * - memory: the resident memory four engines add per interpreter, and
 *   how much of it is the interpreter's WebAssembly memory.
 */
import { makeSnapshot } from '../src/engines/python/boot.js';
import { PythonEngine } from '../src/engines/python/engine.js';
import { loadPyodideFiles } from '../src/engines/python/pyodide-files.js';
import type { CandidateJob } from '../src/sandbox-host/protocol.js';

const MB = 1024 * 1024;

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function job(code: string, tests: unknown[][], functionName = 'f'): CandidateJob {
  return {
    language: 'python',
    code,
    functionName,
    arity: 0,
    tests: tests.map((t) => JSON.stringify(t)),
    limits: { memoryMb: 128, timeoutMs: 10_000, seed: 7 },
  };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function boot(rounds: number): Promise<void> {
  const coldMs = await timed(() => makeSnapshot(loadPyodideFiles()));
  // The first engine may make and cache the snapshot; the rest read it.
  (await PythonEngine.create({ memoryMb: 256 })).dispose();
  const bootMs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const engine = await PythonEngine.create({ memoryMb: 256 });
    bootMs.push(performance.now() - started);
    engine.dispose();
  }
  console.log(`boot: cold boot making the snapshot, in an isolate: ${coldMs.toFixed(0)} ms`);
  console.log(`boot: from the snapshot, median of ${rounds}: ${median(bootMs).toFixed(0)} ms (${bootMs.map((x) => x.toFixed(0)).join(', ')})`);
}

async function tests(rounds: number): Promise<void> {
  const engine = await PythonEngine.create({ memoryMb: 256 });
  try {
    const code = 'def add(a, b):\n    return a + b\n';
    const many = job(
      code,
      Array.from({ length: 1000 }, (_, i) => [i, 2 * i]),
      'add',
    );
    const one = job(code, [[1, 2]], 'add');
    await engine.run(many);
    const manyMs: number[] = [];
    const oneMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      manyMs.push(await timed(() => engine.run(many)));
      oneMs.push(await timed(() => engine.run(one)));
    }
    const perTestUs = ((median(manyMs) - median(oneMs)) / 999) * 1000;
    console.log(`tests: add() with 1000 tests in one run, median of ${rounds}: ${median(manyMs).toFixed(1)} ms`);
    console.log(`tests: add() with 1 test (restore, load, call): ${median(oneMs).toFixed(1)} ms; ${perTestUs.toFixed(1)} us per further test`);
  } finally {
    engine.dispose();
  }
}

async function memory(): Promise<void> {
  const engines: PythonEngine[] = [];
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().rss;
  try {
    for (let i = 0; i < 4; i++) engines.push(await PythonEngine.create({ memoryMb: 256 }));
    for (const engine of engines) await engine.run(job('def f():\n    return 1\n', [[]]));
    const perInterpreter = (process.memoryUsage().rss - before) / engines.length / MB;
    const wasmMb = (engines[0]?.memoryBytes() ?? 0) / MB;
    console.log(
      `memory: RSS per interpreter: ${perInterpreter.toFixed(0)} MB, of which WebAssembly memory ${wasmMb.toFixed(0)} MB${gc ? '' : ' (run with --expose-gc for a steadier figure)'}`,
    );
  } finally {
    for (const engine of engines) engine.dispose();
  }
}

const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : 5;
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a whole number of at least 1');
await boot(rounds);
await tests(rounds);
await memory();
