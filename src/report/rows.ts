/**
 * What the tables, roll-ups and progress need of each candidate result: a
 * small row kept in memory while the full results stay in the run log, and
 * the run's summary counts over those rows.
 */
import type { RowEfficiency } from './efficiency.js';
import type { CandidateResult, CandidateStatus, Summary } from './scorecard.js';

export type { RowEfficiency } from './efficiency.js';

export interface CandidateRow {
  problem_id: string;
  model_id: string;
  prompt_id: string | null;
  sample_id: string | null;
  language: string;
  status: CandidateStatus;
  error: string | null;
  entry_point: string | null;
  passed: number;
  total: number;
  duration_ms: number;
  /** Tests that did not pass, by status. */
  counts: { fail: number; error: number; timeout: number; memory: number; skipped: number };
  /** False when the candidate never ran (load error, unsupported): its tests share one reason. */
  ran: boolean;
  /** Only in a run that measures (--grade performance or memory): what the efficiency scores need (report/efficiency.ts). */
  efficiency?: RowEfficiency;
}

export function candidateRow(result: CandidateResult): CandidateRow {
  const counts = { fail: 0, error: 0, timeout: 0, memory: 0, skipped: 0 };
  for (const test of result.tests) if (test.status !== 'pass') counts[test.status]++;
  return {
    problem_id: result.problem_id,
    model_id: result.model_id,
    prompt_id: result.prompt_id,
    sample_id: result.sample_id,
    language: result.language,
    status: result.status,
    error: result.error,
    entry_point: result.entry_point,
    passed: result.passed,
    total: result.total,
    duration_ms: result.duration_ms,
    counts,
    ran: result.status === 'passed' || result.status === 'failed',
    ...(result.measure === undefined ? {} : { efficiency: rowEfficiency(result) }),
  };
}

function rowEfficiency(result: CandidateResult): RowEfficiency {
  const suite = result.tests[0]?.suite ?? 'correctness';
  const reference = result.model_id === 'optimal_solution' && result.source.endsWith('#optimal_solution');
  const m = result.measure ?? null;
  return m === null
    ? { suite, reference, cost: null, memory: null, error: result.measure_error ?? null }
    : { suite, reference, cost: m.cost, memory: m.memory, error: null };
}

/** The scorecard's summary: counts over every candidate row. */
export function summarize(rows: Iterable<CandidateRow>, problems: number, invalidProblems: number): Summary {
  const s: Summary = {
    problems,
    candidates: 0,
    tests: 0,
    passed: 0,
    failed: 0,
    errored: 0,
    timed_out: 0,
    memory_exceeded: 0,
    skipped: 0,
    invalid_problems: invalidProblems,
    pass_rate: 0,
  };
  for (const row of rows) {
    s.candidates++;
    s.tests += row.total;
    s.passed += row.passed;
    s.failed += row.counts.fail;
    s.errored += row.counts.error;
    s.timed_out += row.counts.timeout;
    s.memory_exceeded += row.counts.memory;
    s.skipped += row.counts.skipped;
  }
  s.pass_rate = s.tests === 0 ? 0 : s.passed / s.tests;
  return s;
}
