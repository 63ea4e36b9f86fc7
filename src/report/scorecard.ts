import type { ShardCardRecord } from '../runner/shard-records.js';
import type { Value } from '../values/type-node.js';
import type { ModelRow, PassAtKRow, PromptRow, TagRow } from './aggregate.js';
import type { EfficiencyReport } from './efficiency.js';

/**
 * Every test ends with exactly one of these. `skipped`: not run, because an
 * earlier test of the candidate did not pass and the run stops at the first
 * failure (`--stop-on-first-failure`); it still counts in `total`.
 */
export type TestStatus = 'pass' | 'fail' | 'error' | 'timeout' | 'memory' | 'skipped';

/** One test's verdict as recorded in the scorecard. */
export type TestResult = {
  index: number;
  /** Which suite the test came from: `correctness`, or `sample:<prompt_id>`. */
  suite: string;
  /** JSON path of the test in its problem file. */
  source: string;
  input: Record<string, unknown>;
  expected: Value;
  duration_ms: number | null;
  /** Only with --grade performance or memory, on a passing test of a measured candidate: its figures (TestMeasureRecord). */
  measure?: TestMeasureRecord;
} & (
  | { status: 'pass'; actual: Value; error: null }
  | { status: 'fail'; actual: Value; error: string }
  | { status: 'error'; actual: null; error: string }
  | { status: 'timeout'; actual: null; error: string }
  | { status: 'memory'; actual: null; error: string }
  | { status: 'skipped'; actual: null; error: null }
);

/**
 * How a candidate as a whole ended. `ran` means its tests have verdicts;
 * the others say why none of its tests could pass.
 */
export type CandidateStatus = 'passed' | 'failed' | 'load-error' | 'unsupported' | 'no-tests';

export interface CandidateResult {
  problem_id: string;
  model_id: string;
  prompt_id: string | null;
  /** Sample index when several samples exist for one (problem, prompt, model). */
  sample_id: string | null;
  language: string;
  /** Where the candidate came from: a solution file, or `optimal_solution` of the problem file. */
  source: string;
  /** The text as submitted, before fences and prose were removed (bounded, see bounded.ts). */
  raw_code: string;
  /** The code that ran (bounded). */
  code: string;
  status: CandidateStatus;
  /** Why the candidate could not run, for load errors. */
  error: string | null;
  /** Which rule chose the function that was called. */
  entry_point: string | null;
  passed: number;
  total: number;
  /** passed / total, 0 when there are no tests. */
  score: number;
  duration_ms: number;
  /**
   * Only with --grade performance or memory: the candidate's measured totals
   * against this suite, or null with `measure_error` saying why there are none.
   */
  measure?: CandidateMeasure | null;
  measure_error?: string | null;
  tests: TestResult[];
}

/**
 * A measured test (docs/REPORTS.md): `cost`, the work the engine counted
 * (the same on every machine and run); `memory`, the peak of traced
 * allocations in bytes above what was allocated when the test started;
 * each repetition's wall and CPU times.
 */
export interface TestMeasureRecord {
  cost: number;
  memory: number;
  wall_ms: number[];
  cpu_ms: number[];
}

/**
 * A measured candidate's totals against one suite: `cost` is `load_cost`
 * plus every test's cost, so that work done when the code loads counts;
 * `memory` is the sum of the tests' peaks (`load_memory`, what loading the
 * code kept, is beside it and not in the sum).
 */
export interface CandidateMeasure {
  cost: number;
  memory: number;
  load_cost: number;
  load_memory: number;
}

export interface ProblemReport {
  problem_id: string | null;
  file: string;
  valid: boolean;
  errors: string[];
  warnings: string[];
  /** The time limit of each test, in a run with --timeout-factor or --test-limits (absent otherwise). */
  test_limits?: TestLimitsReport;
}

/**
 * A problem's time limits (`--timeout-factor`): `optimal_solution`, a limit
 * per correctness test worked out from the optimal solution's times in
 * `language` (candidates in another language keep `--timeout`); `timeout`,
 * every test keeps `timeout_ms`, for the `reason` given. `taken_from`: the
 * run log or scorecard they were read from (`--test-limits`), when they
 * were not measured by this run.
 */
export interface TestLimitsReport {
  from: 'optimal_solution' | 'timeout';
  language?: string;
  tests_ms?: number[];
  timeout_ms?: number;
  reason?: string;
  taken_from?: string;
}

export interface Summary {
  problems: number;
  candidates: number;
  tests: number;
  passed: number;
  failed: number;
  errored: number;
  timed_out: number;
  memory_exceeded: number;
  /** Tests not run after a candidate's first failure (`--stop-on-first-failure`). */
  skipped: number;
  invalid_problems: number;
  /** passed / tests, 0 when there are no tests. */
  pass_rate: number;
}

/** A solution file (or JSON Lines line) that was not graded, and why. */
export interface SkippedSubmissionReport {
  source: string;
  reason: string;
}

/**
 * Everything in the JSON document except the per-candidate results, which
 * can be large and are streamed from the run log (see runlog/run-log.ts).
 */
export interface ScorecardHead {
  evalrun_version: string;
  mode: 'self-check' | 'grade';
  /** Names the run's files: `results/<run_id>.json` and `.jsonl`. */
  run_id: string;
  started_at: string;
  finished_at: string;
  /** False when the run was interrupted before every candidate finished. */
  complete: boolean;
  options: Record<string, unknown>;
  summary: Summary;
  models: ModelRow[];
  prompts: PromptRow[];
  tags: TagRow[];
  pass_at_k: PassAtKRow[];
  /** Only with --grade performance or memory: the efficiency scores (report/efficiency.ts). */
  efficiency?: EfficiencyReport;
  problems: ProblemReport[];
  skipped_submissions: SkippedSubmissionReport[];
  /** Only in a sharded run's scorecard (`--shard`): which part it is (see runner/shard-plan.ts). */
  shard?: ShardCardRecord;
  /** Only in a scorecard `evalrun merge` wrote: which shards it combined and which were missing. */
  merge?: MergeRecord;
}

export interface MergeRecord {
  /** Shards in the evaluation. */
  count: number;
  /** Shards merged, each with the file it came from and whether it finished every candidate it planned. */
  shards: Array<{ index: number; file: string; complete: boolean }>;
  /** Shards not given to the merge. */
  missing: number[];
}

/** The JSON document as written: the head, then every candidate's results in input order. */
export interface Scorecard extends ScorecardHead {
  candidates: CandidateResult[];
}
