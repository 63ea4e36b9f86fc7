import { DEFAULTS } from '../defaults.js';
import { allLanguages, equalityOf } from '../engines/find-language.js';
import type { Language } from '../engines/languages.js';
import type { Filters } from '../grading/filters.js';
import type { GradeOptions } from '../grading/grade.js';
import { DEFAULT_REPETITIONS, isGrader, measures, type Grader } from '../grading/graders.js';
import type { Tolerance } from '../values/compare.js';
import type { ShardSpec } from './shard.js';

export interface RunOptions {
  problemsDir: string;
  /** Null for a self-check of each problem's optimal_solution. */
  solutionsDir: string | null;
  filters: Filters;
  concurrency: number;
  memoryMb: number;
  timeoutMs: number;
  tolerance: Tolerance;
  seed: number;
  languages: ReadonlySet<Language>;
  /** The k values of pass@k. */
  passAtK: readonly number[];
  /** Unwrap Markdown fences and drop prose around submitted code (default true). */
  extractCode: boolean;
  /** Grade only this part of the candidates (`--shard I/N`); null or absent: all of them. */
  shard?: ShardSpec | null;
  /** --strict-types: bool, int and float distinct for Python candidates. */
  strictTypes?: boolean;
  /** --python-packages: folders of wheels or packages Python candidates may import. */
  pythonPackages?: readonly string[];
  /** --stop-on-first-failure: a candidate's tests after its first that does not pass are skipped. */
  stopOnFirstFailure?: boolean;
  /** --grade: the graders asked for (correctness first); absent or correctness alone: nothing is measured. */
  graders?: readonly Grader[];
  /** How often a measured run repeats each test for its times (default DEFAULT_REPETITIONS). */
  repetitions?: number;
  /** --timeout-factor: each test's limit is this many times the optimal solution's time on it (test-limits.ts). */
  timeoutFactor?: number;
  /** --timeout-floor: the least limit a test gets from --timeout-factor, in ms (default DEFAULTS.timeoutFloorMs). */
  timeoutFloorMs?: number;
  /** --test-limits: a run log or JSON scorecard whose recorded limits this run uses rather than measuring them. */
  testLimitsFile?: string;
}

/** Where a run keeps its log, and how it can be stopped. */
export interface RunControl {
  runId: string;
  /** `results/<run>.jsonl`; created, or reopened when resuming. */
  logFile: string;
  resume: boolean;
  /** Aborting stops grading; finished candidates are kept and the outcome is marked incomplete. */
  signal?: AbortSignal;
  /** Notes for the user that are no error (a problem that keeps --timeout under --timeout-factor). */
  warn?: (line: string) => void;
}

/** The run's options as recorded in its log and scorecard; `optionsFromRecord` reads them back. */
export function recordOptions(options: RunOptions): Record<string, unknown> {
  return {
    problems: options.problemsDir,
    solutions: options.solutionsDir,
    filters: { problem: options.filters.problems, tag: options.filters.tags, model: options.filters.models },
    concurrency: options.concurrency,
    memory_mb: options.memoryMb,
    timeout_ms: options.timeoutMs,
    float_tolerance: options.tolerance,
    seed: options.seed,
    languages: [...options.languages].sort(),
    pass_at_k: [...options.passAtK],
    extract_code: options.extractCode,
    ...(options.shard ? { shard: { index: options.shard.index, count: options.shard.count } } : {}),
    strict_types: options.strictTypes === true,
    python_packages: [...(options.pythonPackages ?? [])],
    ...(options.stopOnFirstFailure === true ? { stop_on_first_failure: true } : {}),
    // Recorded only when efficiency is graded, so that other runs' options read as before.
    ...(measures(options.graders) ? { grade: [...(options.graders ?? [])], repetitions: options.repetitions ?? DEFAULT_REPETITIONS } : {}),
    // Recorded only when asked for, so that other runs' options read as before.
    ...(options.timeoutFactor !== undefined
      ? { timeout_factor: options.timeoutFactor, timeout_floor_ms: options.timeoutFloorMs ?? DEFAULTS.timeoutFloorMs }
      : {}),
    ...(options.testLimitsFile !== undefined ? { test_limits: options.testLimitsFile } : {}),
    // How numbers were judged, per language (see docs/VALUES.md).
    equality: Object.fromEntries(allLanguages().map((l) => [l.name, equalityOf(l, options.strictTypes === true)])),
  };
}

export function optionsFromRecord(record: Record<string, unknown>): RunOptions {
  const filters = (record.filters ?? {}) as { problem?: string[]; tag?: string[]; model?: string[] };
  return {
    problemsDir: String(record.problems),
    solutionsDir: typeof record.solutions === 'string' ? record.solutions : null,
    filters: { problems: filters.problem ?? [], tags: filters.tag ?? [], models: filters.model ?? [] },
    concurrency: Number(record.concurrency),
    memoryMb: Number(record.memory_mb),
    timeoutMs: Number(record.timeout_ms),
    tolerance: record.float_tolerance as Tolerance,
    seed: Number(record.seed),
    languages: new Set(record.languages as Language[]),
    passAtK: record.pass_at_k as number[],
    extractCode: record.extract_code !== false,
    shard: (record.shard as ShardSpec | undefined) ?? null,
    strictTypes: record.strict_types === true,
    pythonPackages: Array.isArray(record.python_packages) ? (record.python_packages as string[]) : [],
    stopOnFirstFailure: record.stop_on_first_failure === true,
    ...gradersFromRecord(record),
    ...(typeof record.timeout_factor === 'number'
      ? {
          timeoutFactor: record.timeout_factor,
          timeoutFloorMs: typeof record.timeout_floor_ms === 'number' ? record.timeout_floor_ms : DEFAULTS.timeoutFloorMs,
        }
      : {}),
    ...(typeof record.test_limits === 'string' ? { testLimitsFile: record.test_limits } : {}),
  };
}

/** The recorded graders (absent before --grade existed: correctness alone). */
export function gradersFromRecord(record: Record<string, unknown>): { graders: Grader[]; repetitions: number } {
  const graders = Array.isArray(record.grade) ? record.grade.filter((g): g is Grader => typeof g === 'string' && isGrader(g)) : [];
  const repetitions = typeof record.repetitions === 'number' ? record.repetitions : DEFAULT_REPETITIONS;
  return { graders: graders.length === 0 ? ['correctness'] : graders, repetitions };
}

export function gradeOptionsOf(options: RunOptions): GradeOptions {
  return {
    limits: { memoryMb: options.memoryMb, timeoutMs: options.timeoutMs, seed: options.seed },
    tolerance: options.tolerance,
    languages: [...options.languages],
    strictTypes: options.strictTypes === true,
    pythonPackages: [...(options.pythonPackages ?? [])],
    stopOnFirstFailure: options.stopOnFirstFailure === true,
    ...(measures(options.graders) ? { measure: { repetitions: options.repetitions ?? DEFAULT_REPETITIONS } } : {}),
  };
}
