/**
 * The benchmark's floor: a self-check with no isolation at all.
 *
 *   node dist/bench/floor.js --problems DIR --out FILE
 *
 * It loads and prepares the problems with evalrun's own code, prepares each
 * optimal_solution the way the runner does, calls it directly in this
 * process (compiled with `new Function`, sharing this realm's built-ins),
 * compares with evalrun's comparison and writes a results document. It is
 * what a harness that trusts the code would do, and the lower bound of what
 * evalrun can cost.
 *
 * Running untrusted code like this is exactly what evalrun exists to avoid:
 * this module lives under bench/, nothing under src/ imports it, and the
 * CLI has no option that reaches it. Exit code 0 when every test passed.
 */
import { loadProblems } from '../src/problems/load.js';
import type { PreparedProblem } from '../src/problems/prepared.js';
import { selfCheckCandidates, type CandidateCode } from '../src/grading/candidate.js';
import { detectLanguage } from '../src/solutions/language.js';
import { topLevelFunctionNames } from '../src/engines/javascript/top-level-names.js';
import { prepareJavaScript } from '../src/engines/javascript/transpile.js';
import { compareValues, DEFAULT_TOLERANCE } from '../src/values/compare.js';
import type { Value } from '../src/values/type-node.js';
import { candidateRecord, parseFlags, suiteName, testRecord, writeResults, type BenchCandidate, type BenchTest } from './results-doc.js';

type Callable = (...args: Value[]) => unknown;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Compiles the code as a function body with `module`/`exports` in scope and
 * returns the function to call, following the same order of preference as
 * the sandbox harness (a binding of that name, module.exports, default
 * export, the last top-level function).
 */
function entryPoint(code: string, name: string, topLevelNames: readonly string[]): Callable | string {
  const names = [name, ...[...topLevelNames].reverse()].filter((n) => IDENTIFIER.test(n));
  const lookups = names.map((n) => `typeof ${n} === 'function' ? ${n} : undefined`).join(', ');
  let factory: (module: { exports: unknown }, exports: unknown) => unknown[];
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the floor runs each solution as plain JavaScript, as a harness without a sandbox does
    factory = new Function('module', 'exports', `${code}\n;return [${lookups}];`) as typeof factory;
  } catch (e) {
    return `does not compile: ${e instanceof Error ? e.message : String(e)}`;
  }
  const module: { exports: unknown } = { exports: {} };
  let found: unknown[];
  try {
    found = factory(module, module.exports);
  } catch (e) {
    return `threw while loading: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (typeof found[0] === 'function') return found[0] as Callable;
  const exported = module.exports as Record<string, unknown> | Callable | null;
  if (exported !== null && typeof exported === 'object') {
    const member = exported[name] ?? exported['default'];
    if (typeof member === 'function') return member as Callable;
  }
  if (typeof exported === 'function') return exported;
  const last = found.slice(1).find((f) => typeof f === 'function');
  return typeof last === 'function' ? (last as Callable) : `no function named ${name}`;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

async function runCandidate(spec: CandidateCode): Promise<BenchCandidate> {
  const started = performance.now();
  const problem: PreparedProblem = spec.problem;
  const language = detectLanguage(spec.raw, { declared: spec.declaredLanguage, fenceLanguage: null });
  const prepared = language === 'python' ? { ok: false as const, error: 'unsupported language: python' } : await prepareJavaScript(spec.raw, language);
  const fn = prepared.ok ? entryPoint(prepared.code, spec.functionName, topLevelFunctionNames(prepared.code)) : prepared.error;
  const tests: BenchTest[] = [];
  for (const suite of spec.suites) {
    const name = suiteName(suite);
    for (const test of suite.tests) {
      if (typeof fn === 'string') {
        tests.push(testRecord(test, name, { status: 'error', actual: null, error: fn, durationMs: null }));
        continue;
      }
      const t0 = performance.now();
      let value: unknown;
      try {
        value = fn(...test.args);
        if (isThenable(value)) value = await value;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        tests.push(testRecord(test, name, { status: 'error', actual: null, error: message, durationMs: performance.now() - t0 }));
        continue;
      }
      const durationMs = Math.round(performance.now() - t0);
      const actual = (value === undefined ? null : value) as Value;
      const comparison = compareValues(test.expected, actual, problem.returnType, DEFAULT_TOLERANCE);
      tests.push(
        testRecord(test, name, {
          status: comparison.equal ? 'pass' : 'fail',
          actual,
          error: comparison.equal ? null : `${comparison.reason} at ${comparison.path}`,
          durationMs,
        }),
      );
    }
  }
  return candidateRecord(problem.id, tests, typeof fn === 'string' ? fn : null, performance.now() - started);
}

async function runFloor(problemsDir: string, outFile: string): Promise<{ tests: number; passed: number }> {
  const loaded = await loadProblems(problemsDir);
  const results: BenchCandidate[] = [];
  for (const spec of selfCheckCandidates(loaded.problems)) results.push(await runCandidate(spec));
  return writeResults(outFile, 'floor', results);
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), ['problems', 'out']);
  const summary = await runFloor(flags.get('problems') ?? '.', flags.get('out') ?? 'floor-results.json');
  process.stdout.write(`floor: ${summary.passed}/${summary.tests} tests passed\n`);
  process.exitCode = summary.passed === summary.tests ? 0 : 1;
}

// Not top-level await: the bench runs this as a CommonJS bundle, as evalrun's CLI runs.
main().catch((e: unknown) => {
  process.stderr.write(`floor: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
