/**
 * The results document written by the benchmark's floor and peer runners.
 *
 * It records, per test, the same fields evalrun's scorecard records (input
 * as written, expected, actual, status, error, duration) and is written the
 * same way (indented JSON, one file), so that the cost of recording results
 * is part of every contender and the ratios measure the sandbox, not the
 * reporting. It is deliberately its own small type: the scorecard's type
 * belongs to the runner and may grow fields the benchmark does not need.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PreparedSuite, PreparedTest } from '../src/problems/prepared.js';
import type { Value } from '../src/values/type-node.js';

export type BenchStatus = 'pass' | 'fail' | 'error';

export interface BenchTest {
  index: number;
  suite: string;
  source: string;
  input: Record<string, unknown>;
  expected: Value;
  status: BenchStatus;
  actual: Value;
  error: string | null;
  duration_ms: number | null;
}

export interface BenchCandidate {
  problem_id: string;
  status: 'passed' | 'failed' | 'load-error';
  error: string | null;
  passed: number;
  total: number;
  duration_ms: number;
  tests: BenchTest[];
}

export interface BenchSummary {
  candidates: number;
  tests: number;
  passed: number;
}

export function suiteName(suite: PreparedSuite): string {
  return suite.kind === 'correctness' ? 'correctness' : `sample:${suite.promptId ?? ''}`;
}

export function testRecord(
  test: PreparedTest,
  suite: string,
  outcome: { status: BenchStatus; actual: Value; error: string | null; durationMs: number | null },
): BenchTest {
  return {
    index: test.index,
    suite,
    source: test.source,
    input: test.input,
    expected: test.expected,
    status: outcome.status,
    actual: outcome.actual,
    error: outcome.error,
    duration_ms: outcome.durationMs,
  };
}

export function candidateRecord(problemId: string, tests: BenchTest[], error: string | null, durationMs: number): BenchCandidate {
  const passed = tests.filter((t) => t.status === 'pass').length;
  return {
    problem_id: problemId,
    status: error !== null ? 'load-error' : passed === tests.length ? 'passed' : 'failed',
    error,
    passed,
    total: tests.length,
    duration_ms: Math.round(durationMs),
    tests,
  };
}

export function summarizeBench(candidates: readonly BenchCandidate[]): BenchSummary {
  let tests = 0;
  let passed = 0;
  for (const c of candidates) {
    tests += c.total;
    passed += c.passed;
  }
  return { candidates: candidates.length, tests, passed };
}

export async function writeResults(file: string, mode: string, candidates: readonly BenchCandidate[]): Promise<BenchSummary> {
  const summary = summarizeBench(candidates);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ mode, summary, candidates }, null, 2)}\n`);
  return summary;
}

/** `--name value` pairs of a bench entry point; anything else is a usage error. */
export function parseFlags(argv: readonly string[], known: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i] ?? '';
    const value = argv[i + 1];
    if (!name.startsWith('--') || !known.includes(name.slice(2)) || value === undefined) {
      throw new Error(`usage: ${known.map((k) => `--${k} VALUE`).join(' ')} (got ${JSON.stringify(name)})`);
    }
    flags.set(name.slice(2), value);
  }
  return flags;
}
