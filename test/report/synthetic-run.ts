import { recordJson } from '../../src/values/wire.js';
import { mkdtempSync } from 'node:fs';
import { afterEach } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CandidateMeasure, CandidateResult, TestResult, TestStatus } from '../../src/report/scorecard.js';
import { readRun, type ReadRun } from '../../src/runner/read-run.js';
import { keysOf, RunLog } from '../../src/runlog/run-log.js';
import { quoteKey } from '../../src/runlog/candidate-key.js';

export interface SyntheticCandidate {
  problem: string;
  model?: string;
  prompt?: string | null;
  sample?: string | null;
  code?: string;
  language?: string;
  /** One status per test; actual values are wrong for `fail`. */
  tests: TestStatus[];
  status?: CandidateResult['status'];
  error?: string | null;
  /** Values of each test: input, expected and actual; default small numbers. */
  values?: (i: number) => { input: Record<string, unknown>; expected: unknown; actual: unknown };
  /** A measured run's totals (null: not measured, with `measureError`); absent: nothing was measured. */
  measure?: CandidateMeasure | null;
  measureError?: string;
  /** The problem's own optimal_solution (the reference of efficiency scores). */
  reference?: boolean;
}

export function candidateResult(c: SyntheticCandidate): CandidateResult {
  const tests: TestResult[] = c.tests.map((status, i) => {
    const v = c.values?.(i) ?? { input: { n: i }, expected: i * 2, actual: status === 'fail' ? i * 2 + 1 : i * 2 };
    const base = { index: i, suite: 'correctness', source: `$.correctness_test_suite[${i}]`, input: v.input, expected: v.expected as never, duration_ms: i };
    if (status === 'pass') return { ...base, status, actual: v.expected as never, error: null };
    if (status === 'fail')
      return { ...base, status, actual: v.actual as never, error: `expected ${JSON.stringify(v.expected)}, got ${JSON.stringify(v.actual)}` };
    if (status === 'skipped') return { ...base, status, actual: null, error: null };
    return { ...base, status, actual: null, error: `${status} happened` };
  });
  const passed = tests.filter((t) => t.status === 'pass').length;
  const result: CandidateResult = {
    problem_id: c.problem,
    model_id: c.model ?? 'optimal_solution',
    prompt_id: c.prompt ?? null,
    sample_id: c.sample ?? null,
    language: c.language ?? 'javascript',
    source: c.reference === true ? `${c.problem}.json#optimal_solution` : `${c.problem}/${c.model ?? 'optimal_solution'}/${c.prompt ?? '-'}/${c.sample ?? '-'}`,
    raw_code: c.code ?? `function f(n) { return 2 * n; }`,
    code: c.code ?? `function f(n) { return 2 * n; }`,
    status: c.status ?? (passed === tests.length && tests.length > 0 ? 'passed' : 'failed'),
    error: c.error ?? null,
    entry_point: 'declaration:f',
    passed,
    total: tests.length,
    score: tests.length === 0 ? 0 : passed / tests.length,
    duration_ms: 3,
    tests,
  };
  if (c.measure === undefined) return result;
  const { tests: all, ...head } = result;
  return { ...head, measure: c.measure, measure_error: c.measure === null ? (c.measureError ?? 'the engine did not measure') : null, tests: all };
}

/**
 * Writes a run log as a real run would (header, plan, one line per
 * candidate, end) and reads it back as `evalrun report` does. With
 * `finished: false` the log stops as an interrupted run's does: no end
 * line, and only the first `logged` candidates.
 */
export function syntheticRun(
  candidates: readonly SyntheticCandidate[],
  options: {
    mode?: 'self-check' | 'grade';
    tags?: Record<string, string[]>;
    finished?: boolean;
    logged?: number;
    passAtK?: number[];
    dir?: string;
    /** The graders recorded in the run's options (`--grade`). */
    grade?: string[];
  } = {},
): ReadRun {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'evalrun-report-'));
  const file = join(dir, `run-${Math.random().toString(36).slice(2)}.jsonl`);
  const mode = options.mode ?? 'grade';
  const store = RunLog.create(file, {
    type: 'run',
    run_id: 'synthetic',
    started_at: '2026-11-23T10:00:00.000Z',
    mode,
    options: { pass_at_k: options.passAtK ?? [1], ...(options.grade === undefined ? {} : { grade: options.grade }) },
  });
  const keys = candidates.map((_, i) => `k${i}`);
  const problems = [...new Set(candidates.map((c) => c.problem))];
  store.notePlan({
    keys: keysOf(keys),
    problems: problems.map((p) => ({ problem_id: p, file: `${p}.json`, valid: true, errors: [], warnings: [] })),
    tags: new Map(Object.entries(options.tags ?? {})),
    skipped_submissions: [],
  });
  const logged = options.logged ?? candidates.length;
  candidates.slice(0, logged).forEach((c, i) => store.appendCandidate(quoteKey(keys[i]!), [Buffer.from(recordJson(candidateResult(c)))]));
  if (options.finished !== false) store.noteEnd({ finished_at: '2026-11-23T10:01:00.000Z', complete: logged === candidates.length });
  store.close();
  return readRun(file);
}

/** `syntheticRun` for a test file: each run it reads back is closed once the test that made it ends. */
export function syntheticRuns(): typeof syntheticRun {
  const opened: ReadRun[] = [];
  afterEach(() => {
    for (const r of opened.splice(0)) r.close();
  });
  return (candidates, options) => {
    const read = syntheticRun(candidates, options);
    opened.push(read);
    return read;
  };
}
