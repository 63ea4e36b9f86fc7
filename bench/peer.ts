/**
 * The benchmark's peer: how most multi-language harnesses run JavaScript.
 *
 *   node dist/bench/peer.js --problems DIR --out FILE [--concurrency N]
 *
 * For each problem it writes one script (the optimal_solution followed by a
 * loop over all of the problem's tests that prints one JSON line per test),
 * runs it in a fresh `node` process, N at a time (default: the number of
 * cores), and compares the printed values with evalrun's comparison. The
 * problems are loaded and prepared with evalrun's own code, and the results
 * document is the same one the floor writes, so the only difference from
 * the floor is a process per problem. Exit code 0 when every test passed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { loadProblems } from '../src/problems/load.js';
import { selfCheckCandidates, type CandidateCode } from '../src/grading/candidate.js';
import { compareValues, DEFAULT_TOLERANCE } from '../src/values/compare.js';
import type { Value } from '../src/values/type-node.js';
import { candidateRecord, parseFlags, suiteName, testRecord, writeResults, type BenchCandidate, type BenchTest } from './results-doc.js';

/** A generous wall-clock ceiling per process, as such harnesses set one. */
const PROCESS_TIMEOUT_MS = 30_000;

/** The script a peer harness generates: the solution, then a driver loop over the embedded tests. */
function script(spec: CandidateCode): string {
  const args = spec.suites.flatMap((suite) => suite.tests.map((t) => t.args));
  const name = spec.functionName;
  return `${spec.raw}
;(async () => {
  const fn = typeof ${name} === 'function' ? ${name}
    : typeof module.exports === 'function' ? module.exports : (module.exports.${name} ?? module.exports.default);
  const tests = ${JSON.stringify(args)};
  const lines = [];
  for (const args of tests) {
    const started = performance.now();
    try {
      let value = fn(...args);
      if (value !== null && typeof value === 'object' && typeof value.then === 'function') value = await value;
      lines.push(JSON.stringify({ value: value === undefined ? null : value, ms: performance.now() - started }));
    } catch (e) {
      lines.push(JSON.stringify({ error: String(e && e.message !== undefined ? e.message : e) }));
    }
  }
  process.stdout.write(lines.join('\\n') + '\\n');
})();
`;
}

function runScript(file: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; error: string | null }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { env, timeout: PROCESS_TIMEOUT_MS, maxBuffer: 256 * 1024 * 1024 }, (error, stdout) => {
      resolve({ stdout, error: error === null ? null : error.message });
    });
  });
}

interface Line {
  value?: Value;
  ms?: number;
  error?: string;
}

async function runCandidate(spec: CandidateCode, index: number, dir: string, env: NodeJS.ProcessEnv): Promise<BenchCandidate> {
  const started = performance.now();
  const file = join(dir, `problem-${index}.cjs`);
  await writeFile(file, script(spec));
  const run = await runScript(file, env);
  const lines = run.stdout.split('\n').filter((l) => l !== '');
  const tests: BenchTest[] = [];
  let i = 0;
  for (const suite of spec.suites) {
    const name = suiteName(suite);
    for (const test of suite.tests) {
      const text = lines[i++];
      let line: Line;
      try {
        line = text === undefined ? { error: run.error ?? 'no output' } : (JSON.parse(text) as Line);
      } catch {
        line = { error: 'unparsable output' };
      }
      if (line.error !== undefined || !('value' in line)) {
        tests.push(testRecord(test, name, { status: 'error', actual: null, error: line.error ?? 'no value', durationMs: null }));
        continue;
      }
      const actual = line.value ?? null;
      const comparison = compareValues(test.expected, actual, spec.problem.returnType, DEFAULT_TOLERANCE);
      tests.push(
        testRecord(test, name, {
          status: comparison.equal ? 'pass' : 'fail',
          actual,
          error: comparison.equal ? null : `${comparison.reason} at ${comparison.path}`,
          durationMs: Math.round(line.ms ?? 0),
        }),
      );
    }
  }
  return candidateRecord(spec.problem.id, tests, null, performance.now() - started);
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), ['problems', 'out', 'concurrency']);
  const concurrency = Number(flags.get('concurrency') ?? availableParallelism());
  const loaded = await loadProblems(flags.get('problems') ?? '.');
  const specs = selfCheckCandidates(loaded.problems);
  const dir = await mkdtemp(join(tmpdir(), 'evalrun-peer-'));
  // The children are plain `node file.cjs`: the benchmark's RSS probe is not passed on.
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.BENCH_RSS_FILE;
  try {
    const limit = pLimit(concurrency);
    const results = await Promise.all(specs.map((spec, i) => limit(() => runCandidate(spec, i, dir, env))));
    const summary = await writeResults(flags.get('out') ?? 'peer-results.json', 'peer', results);
    process.stdout.write(`peer: ${summary.passed}/${summary.tests} tests passed\n`);
    process.exitCode = summary.passed === summary.tests ? 0 : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
