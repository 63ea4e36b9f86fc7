import type { FailureRow } from './failing-tests.js';
import type { CandidateRow } from './rows.js';
import type { CandidateResult, CandidateStatus, ScorecardHead } from './scorecard.js';

export interface RunStartInfo {
  mode: ScorecardHead['mode'];
  problems: number;
  invalidProblems: number;
  /**
   * Candidates this run will grade (after filters, minus those already done
   * when resuming). When `estimated`, an upper bound: a self-check starts
   * grading before its workers have read every problem file, and counts one
   * candidate per file until they have; `onPlan` then gives the count.
   */
  candidates: number;
  estimated?: boolean;
  /** Candidates taken from the run log of an interrupted run. */
  resumed: number;
  logFile: string;
}

/** A finished (or interrupted) run, as the reporters see it. */
export interface RunOutcome {
  head: ScorecardHead;
  /** One small row per candidate result, in input order. */
  rows: readonly CandidateRow[];
  /** The same rows, each made as it is reached and not kept: a pass over a large run that holds no array of them. */
  eachRow(): Iterable<CandidateRow>;
  /** How many of the rows have each status. */
  statuses: Readonly<Record<CandidateStatus, number>>;
  /** Whether some row is of this problem (a self-check has none for a problem without an optimal_solution). */
  hasRows(problemId: string): boolean;
  /** The first failing tests in input order, and how many there are. */
  failures: { shown: readonly FailureRow[]; total: number };
  /** Every candidate's full results, in input order, read from the run log as they are iterated. */
  results(): Iterable<CandidateResult>;
  /**
   * The same, each result as its JSON text in UTF-8 bytes, handed to `visit`
   * in place (a view into what the run log read): what the JSON scorecard
   * copies without decoding, and without an object per result.
   */
  resultRecords(visit: VisitRecord): void;
}

/** Hears one result as JSON text in UTF-8: `bytes[start, end)`, valid only during the call. */
export type VisitRecord = (bytes: Uint8Array, start: number, end: number) => void;

/**
 * An output format. Each hook is optional; a reporter sees the run start,
 * every candidate as soon as it is graded, and the finished run.
 */
export interface Reporter {
  onRunStart?(info: RunStartInfo): void | Promise<void>;
  /** The run's settled counts, after an `estimated` start. */
  onPlan?(info: RunStartInfo): void | Promise<void>;
  onCandidateResult?(rows: readonly CandidateRow[]): void | Promise<void>;
  /**
   * The same candidate counted: the tests its suites ran and those that
   * passed. For a reporter that only counts (progress): a candidate's rows
   * are made only when some reporter has `onCandidateResult`.
   */
  onCandidateCounted?(tests: number, passed: number): void;
  onRunEnd?(outcome: RunOutcome): void | Promise<void>;
}

/** Calls every reporter in order; a hook of one finishes before the next starts. */
export interface CombinedReporter {
  onRunStart(info: RunStartInfo): Promise<void>;
  onPlan(info: RunStartInfo): Promise<void>;
  /** Whether some reporter has `onCandidateResult`: if none has, a run need not make the rows. */
  readonly hearsRows: boolean;
  /** Returns a promise only when a reporter's hook did: a run tells this once per candidate. */
  onCandidateResult(rows: readonly CandidateRow[]): void | Promise<void>;
  onCandidateCounted(tests: number, passed: number): void;
  onRunEnd(outcome: RunOutcome): Promise<void>;
}

export function combineReporters(reporters: readonly Reporter[]): CombinedReporter {
  return {
    hearsRows: reporters.some((r) => r.onCandidateResult !== undefined),
    onCandidateCounted(tests, passed) {
      for (const r of reporters) r.onCandidateCounted?.(tests, passed);
    },
    async onRunStart(info) {
      for (const r of reporters) await r.onRunStart?.(info);
    },
    async onPlan(info) {
      for (const r of reporters) await r.onPlan?.(info);
    },
    onCandidateResult(rows) {
      for (let i = 0; i < reporters.length; i++) {
        const told = reporters[i]!.onCandidateResult?.(rows);
        if (told instanceof Promise) return told.then(() => tellRest(reporters, i + 1, rows));
      }
    },
    async onRunEnd(outcome) {
      for (const r of reporters) await r.onRunEnd?.(outcome);
    },
  };
}

async function tellRest(reporters: readonly Reporter[], from: number, rows: readonly CandidateRow[]): Promise<void> {
  for (const r of reporters.slice(from)) await r.onCandidateResult?.(rows);
}
