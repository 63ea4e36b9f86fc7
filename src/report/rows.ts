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

/** The statuses in a fixed order: a row kept as numbers holds its status's place here. */
export const CANDIDATE_STATUSES: readonly CandidateStatus[] = ['passed', 'failed', 'load-error', 'unsupported', 'no-tests'];

/**
 * A row as numbers, the form in which workers send rows and the run keeps
 * them (row-store.ts): ROW_WIDTH numbers from `at`. The seven string fields
 * come first, each as an index into a table of strings or -1 for null
 * (ROW_STRINGS, in CandidateRow's order), then the status's place in
 * CANDIDATE_STATUSES, then passed, total, duration_ms and the five counts.
 * A row's efficiency, only in a run that measures, is kept beside it.
 */
export const ROW_STRINGS = 7;
export const ROW_STATUS = ROW_STRINGS;
export const ROW_NUMBERS = 8;
export const ROW_WIDTH = ROW_STRINGS + 1 + ROW_NUMBERS;

/** Appends `row` to `into` as numbers; `ref` gives a string's index in the table the numbers refer to. */
export function pushFlatRow(row: CandidateRow, ref: (text: string) => number, into: number[]): void {
  const optional = (text: string | null): number => (text === null ? -1 : ref(text));
  const c = row.counts;
  into.push(
    ref(row.problem_id),
    ref(row.model_id),
    optional(row.prompt_id),
    optional(row.sample_id),
    ref(row.language),
    optional(row.error),
    optional(row.entry_point),
    CANDIDATE_STATUSES.indexOf(row.status),
    row.passed,
    row.total,
    row.duration_ms,
    c.fail,
    c.error,
    c.timeout,
    c.memory,
    c.skipped,
  );
}

/** Which of the seven string fields may be null (-1), in their order: prompt_id, sample_id, error and entry_point. */
export const ROW_STRING_NULLABLE: readonly boolean[] = [false, false, true, true, false, true, true];

/**
 * The row of ROW_WIDTH numbers at `at` of `flat`, as an object, its
 * strings from `strings` (the caller has checked the numbers).
 */
export function rowFromFlat(flat: ArrayLike<number>, at: number, strings: readonly string[], efficiency?: RowEfficiency): CandidateRow {
  const status = CANDIDATE_STATUSES[flat[at + ROW_STATUS]!]!;
  const n = at + ROW_STATUS + 1;
  const row: CandidateRow = {
    problem_id: strings[flat[at]!]!,
    model_id: strings[flat[at + 1]!]!,
    prompt_id: textOrNull(strings, flat[at + 2]!),
    sample_id: textOrNull(strings, flat[at + 3]!),
    language: strings[flat[at + 4]!]!,
    status,
    error: textOrNull(strings, flat[at + 5]!),
    entry_point: textOrNull(strings, flat[at + 6]!),
    passed: flat[n]!,
    total: flat[n + 1]!,
    duration_ms: flat[n + 2]!,
    counts: { fail: flat[n + 3]!, error: flat[n + 4]!, timeout: flat[n + 5]!, memory: flat[n + 6]!, skipped: flat[n + 7]! },
    ran: status === 'passed' || status === 'failed',
  };
  if (efficiency !== undefined) row.efficiency = efficiency;
  return row;
}

/** A nullable string field's text: -1 for null. */
function textOrNull(strings: readonly string[], ref: number): string | null {
  return ref === -1 ? null : strings[ref]!;
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

/** The rows' summary counts (Summary's own fields) and their counts by status, in CANDIDATE_STATUSES order. */
export interface RowCounts extends Pick<Summary, 'candidates' | 'tests' | 'passed' | 'failed' | 'errored' | 'timed_out' | 'memory_exceeded' | 'skipped'> {
  byStatus: number[];
}

/** The scorecard's summary of a run's rows, counted already (`countRows`). */
export function summaryOf(counts: RowCounts, problems: number, invalidProblems: number): Summary {
  return {
    problems,
    candidates: counts.candidates,
    tests: counts.tests,
    passed: counts.passed,
    failed: counts.failed,
    errored: counts.errored,
    timed_out: counts.timed_out,
    memory_exceeded: counts.memory_exceeded,
    skipped: counts.skipped,
    invalid_problems: invalidProblems,
    pass_rate: counts.tests === 0 ? 0 : counts.passed / counts.tests,
  };
}
