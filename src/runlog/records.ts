/**
 * The lines of a run log (`results/<run>.jsonl`), one JSON document each:
 * a header, then plan, candidate and end lines in the order they happened.
 * The format is read back by `--resume`, `evalrun report`, `diff` and
 * `merge`, so it only ever gains optional fields.
 */
import type { CandidateResult, ProblemReport, SkippedSubmissionReport, TestLimitsReport } from '../report/scorecard.js';
import type { ShardRecord } from '../runner/shard-records.js';

/** In the run log's header: the whole of this shard's plan, and the problem reports the log otherwise lacks. */
export interface ShardLogRecord extends ShardRecord {
  /** This shard's candidates in its plan order: [rank in the whole run's plan, candidate key]. */
  planned: Array<[number, string]>;
  problems: ProblemReport[];
  skipped_submissions: SkippedSubmissionReport[];
}

/** The first line. */
export interface RunHeader {
  type: 'run';
  run_id: string;
  started_at: string;
  mode: 'self-check' | 'grade';
  /** Enough to plan the same run again for `--resume`. */
  options: Record<string, unknown>;
  /** A sharded run's part of the plan and its input digest (see shard-plan.ts). */
  shard?: ShardLogRecord;
}

/**
 * Written once the run is planned (again when it is resumed): what a report
 * read from the log alone needs beyond the results, since an interrupted run
 * may have no scorecard.
 */
export interface RunPlan {
  type: 'plan';
  /** Every planned candidate's key, in input order. */
  keys: string[];
  problems: ProblemReport[];
  /** Tags of each selected problem that has any. */
  tags: Record<string, string[]>;
  skipped_submissions: SkippedSubmissionReport[];
  /**
   * When the part of the run that wrote this line began, before it read
   * any file: the candidates it logs after the line were graded from files
   * as they were then (`--resume` grades again those whose files changed
   * since). A streaming self-check logs candidates before its plan line;
   * those, and a line without this field, date from the header's started_at.
   */
  part_started_at?: string;
}

/** Written when the run ends, before the scorecards. */
export interface RunEnd {
  type: 'end';
  finished_at: string;
  complete: boolean;
}

/** One graded candidate: its results, one per suite it ran against. A later line for the same key wins. */
export interface CandidateLine {
  type: 'candidate';
  key: string;
  results: CandidateResult[];
}

/**
 * A problem's time limits (--timeout-factor), written before any of its
 * candidates is graded; a resumed run and a shard given the log with
 * --test-limits use them as they are. A later line for the same problem wins.
 */
export interface LimitsLine extends TestLimitsReport {
  type: 'limits';
  problem_id: string;
}

export function isLimitsLine(value: unknown): value is LimitsLine {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<LimitsLine>;
  if (v.type !== 'limits' || typeof v.problem_id !== 'string') return false;
  if (v.from === 'timeout') return typeof v.timeout_ms === 'number';
  return (
    v.from === 'optimal_solution' && typeof v.language === 'string' && Array.isArray(v.tests_ms) && v.tests_ms.every((ms) => Number.isSafeInteger(ms) && ms > 0)
  );
}

/** The report part of a limits line. */
export function limitsReport(line: LimitsLine): TestLimitsReport {
  const { type: _type, problem_id: _id, ...report } = line;
  return report;
}

export function isHeader(value: unknown): value is RunHeader {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'run';
}

export function isNoteLine(value: unknown): value is RunPlan | RunEnd {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'plan' ? Array.isArray((value as Partial<RunPlan>).keys) : type === 'end';
}

export function isCandidateLine(value: unknown): value is CandidateLine {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CandidateLine>;
  return v.type === 'candidate' && typeof v.key === 'string' && Array.isArray(v.results);
}
