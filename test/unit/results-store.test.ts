import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, TestResult } from '../../src/report/scorecard.js';
import { FAILURES_KEPT, gradedFromResults, ResultsStore, type RunHeader } from '../../src/runner/results-store.js';

const HEADER: RunHeader = { type: 'run', run_id: 'r', started_at: '2026-01-01T00:00:00.000Z', mode: 'self-check', options: {} };

function test(index: number, pass: boolean): TestResult {
  const base = { index, suite: 'correctness', source: `$.correctness_test_suite[${index}]`, input: { s: `é"\n${index}` }, expected: index, duration_ms: 0 };
  return pass ? { ...base, status: 'pass', actual: index, error: null } : { ...base, status: 'fail', actual: -1, error: 'expected 1, got -1' };
}

function result(problem: string, outcomes: boolean[]): CandidateResult {
  const tests = outcomes.map((pass, i) => test(i, pass));
  const passed = outcomes.filter(Boolean).length;
  return {
    problem_id: problem,
    model_id: 'optimal_solution',
    prompt_id: null,
    sample_id: null,
    language: 'javascript',
    source: `${problem}.json#optimal_solution`,
    raw_code: 'const f = () => "ü";',
    code: 'const f = () => "ü";',
    status: passed === tests.length ? 'passed' : 'failed',
    error: null,
    entry_point: 'name:f',
    passed,
    total: tests.length,
    score: passed / tests.length,
    duration_ms: 1,
    tests,
  };
}

const scratch = (): string => join(mkdtempSync(join(tmpdir(), 'evalrun-store-')), 'run.jsonl');

describe('ResultsStore', () => {
  it('gives back, in planned order, exactly what was recorded, as objects and as text', () => {
    const file = scratch();
    const store = ResultsStore.create(file, HEADER);
    const a = result('a', [true, false, true]);
    const b = result('b', [true]);
    const c = result('c', [false, false]);
    store.plan(['ka', 'kb', 'kc']);
    store.recordGraded('kc', gradedFromResults([c]));
    store.record('ka', [a]);
    store.recordGraded('kb', gradedFromResults([b]));
    expect([...store.results()]).toEqual([a, b, c]);
    expect([...store.resultTexts()].map((t) => JSON.parse(t) as unknown)).toEqual([a, b, c]);
    expect([...store.resultTexts()]).toEqual([a, b, c].map((r) => JSON.stringify(r)));
    // Failing tests in input order, whatever order the candidates finished in.
    expect(store.failingTests().shown.map((f) => [f.candidate.problem_id, f.test.index])).toEqual([
      ['a', 1],
      ['c', 0],
      ['c', 1],
    ]);
    expect(store.failingTests().total).toBe(3);
    store.close();
    // Every line of the log is JSON of its own.
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['run', 'candidate', 'candidate', 'candidate']);
  });

  it('reads a log back for --resume and gives the same results and failures', () => {
    const file = scratch();
    const first = ResultsStore.create(file, HEADER);
    const a = result('a', [false, true]);
    const b = result('b', [true, true]);
    first.plan(['ka', 'kb']);
    first.record('ka', [a]);
    first.close();
    const { store } = ResultsStore.resume(file);
    store.plan(['ka', 'kb']);
    expect(store.has('ka')).toBe(true);
    expect(store.has('kb')).toBe(false);
    store.recordGraded('kb', gradedFromResults([b]));
    expect([...store.resultTexts()]).toEqual([a, b].map((r) => JSON.stringify(r)));
    expect(store.failingTests().shown.map((f) => [f.candidate.problem_id, f.test.index])).toEqual([['a', 0]]);
    store.close();
  });

  it('keeps at most FAILURES_KEPT failing tests in memory but counts them all', () => {
    const store = ResultsStore.create(scratch(), HEADER);
    const many = result('m', Array.from({ length: FAILURES_KEPT + 30 }, () => false));
    store.plan(['km']);
    store.recordGraded('km', gradedFromResults([many]));
    expect(store.failingTests().shown).toHaveLength(FAILURES_KEPT);
    expect(store.failingTests().total).toBe(FAILURES_KEPT + 30);
    store.close();
  });
});
