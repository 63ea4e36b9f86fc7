/**
 * What a measured run of JavaScript costs against a normal one
 * (docs/METERING-JS.md has the figures):
 *
 *   node --no-node-snapshot dist/bench/meter-js.js [--candidates 200] [--repetitions 3]
 *
 * Runs the same jobs through one JavaScript engine, as a worker does: first
 * `--candidates` small candidates of 3 tests each (varied code, so that V8
 * caches little across them), then a few compute-bound ones, each once
 * normally and once measured, and prints the wall time of each set and the
 * factor. Measured runs run every test from a fresh load, `--repetitions`
 * times.
 */
import { JsEngine } from '../src/engines/javascript/engine.js';
import type { CandidateJob } from '../src/sandbox-host/protocol.js';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

const CANDIDATES = flag('candidates', 200);
const REPETITIONS = flag('repetitions', 3);

/** Small candidates in a few shapes, each with a constant of its own. */
function smallCandidate(i: number): { code: string; tests: unknown[][] } {
  const k = i + 1;
  const shapes = [
    `function f(a, b) { return a + b + ${k}; }`,
    `function f(a, b) { let s = 0; for (let i = 0; i < a; i++) s += i * ${k}; return s + b; }`,
    `const f = (a, b) => [a, b, ${k}].map((x) => x * 2).filter((x) => x > 0).length;`,
    `function f(a, b) { const m = new Map(); for (let i = 0; i < 20; i++) m.set(i % ${(k % 7) + 1}, i); return m.size + a - b; }`,
    `function f(a, b) { return String(a).padStart(${(k % 9) + 1}, '0').split('').reverse().join('') + b; }`,
  ];
  return {
    code: shapes[i % shapes.length]!,
    tests: [
      [1, 2],
      [10, 3],
      [100, 4],
    ],
  };
}

const computeBound: Array<{ name: string; code: string; tests: unknown[][] }> = [
  {
    name: 'nested loops (n^2 pairs)',
    code: 'function f(n) { let c = 0; for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if ((i ^ j) % 7 === 0) c++; return c; }',
    tests: [[1500], [2000], [2500]],
  },
  {
    name: 'sort of 200k numbers',
    code: 'function f(n) { const a = []; let x = 1; for (let i = 0; i < n; i++) { x = (x * 48271) % 2147483647; a.push(x); } a.sort((p, q) => p - q); return a[n >> 1]; }',
    tests: [[200000], [100000], [50000]],
  },
  {
    name: 'includes in a loop (n=5000)',
    code: 'function f(n) { const a = Array.from({ length: n }, (_, i) => i * 3); let c = 0; for (let i = 0; i < n; i++) if (a.includes(i)) c++; return c; }',
    tests: [[5000], [4000], [3000]],
  },
  {
    name: 'recursive fib(27)',
    code: 'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nfunction f(n) { return fib(n); }',
    tests: [[27], [26], [25]],
  },
  {
    name: 'string building and regex',
    code: 'function f(n) { let s = ""; for (let i = 0; i < n; i++) s += String.fromCharCode(97 + (i % 26)); return s.replace(/[aeiou]/g, "").length; }',
    tests: [[200000], [100000], [50000]],
  },
];

function job(code: string, tests: unknown[][], measured: boolean): CandidateJob {
  return {
    language: 'javascript',
    code,
    functionName: 'f',
    arity: 2,
    tests: tests.map((args) => JSON.stringify(args)),
    limits: { memoryMb: 256, timeoutMs: 30_000, seed: 1 },
    ...(measured ? { measure: { repetitions: REPETITIONS } } : {}),
  };
}

async function timeJobs(engine: JsEngine, jobs: CandidateJob[]): Promise<number> {
  const started = performance.now();
  for (const each of jobs) {
    const outcome = await engine.run(each);
    if (outcome.kind !== 'ran' || outcome.tests.some((t) => t.kind !== 'returned')) throw new Error(`a bench candidate failed: ${JSON.stringify(outcome)}`);
  }
  return performance.now() - started;
}

async function main(): Promise<void> {
  const engine = new JsEngine();
  const small = Array.from({ length: CANDIDATES }, (_, i) => smallCandidate(i));
  // One unmeasured round first, so that both sides run with the engine's code warm.
  await timeJobs(
    engine,
    small.slice(0, 20).map((c) => job(c.code, c.tests, false)),
  );
  const normal = await timeJobs(
    engine,
    small.map((c) => job(c.code, c.tests, false)),
  );
  const measured = await timeJobs(
    engine,
    small.map((c) => job(c.code, c.tests, true)),
  );
  console.log(`${CANDIDATES} small candidates x 3 tests, ${REPETITIONS} repetitions:`);
  console.log(`  normal ${normal.toFixed(0)} ms, measured ${measured.toFixed(0)} ms, factor ${(measured / normal).toFixed(2)}`);
  console.log(`  measured, per repetition of a test: ${(measured / (CANDIDATES * 3 * REPETITIONS)).toFixed(2)} ms`);
  console.log('compute-bound candidates (3 tests each):');
  for (const c of computeBound) {
    const n = await timeJobs(engine, [job(c.code, c.tests, false)]);
    const m = await timeJobs(engine, [job(c.code, c.tests, true)]);
    // A measured run repeats each test: the factor per repetition is the instrumentation's own.
    console.log(
      `  ${c.name}: normal ${n.toFixed(0)} ms, measured ${m.toFixed(0)} ms, factor ${(m / n).toFixed(2)} (${(m / n / REPETITIONS).toFixed(2)} per repetition)`,
    );
  }
  engine.dispose();
}

await main();
