// One check serves createGrader's defaults and each call's overrides, so a
// call is refused for exactly what would have failed the grader's start.

import { DEFAULTS, LIMIT_BOUNDS } from '../defaults.js';
import { DEFAULT_REPETITIONS, GraderNameError, parseGraders, type Grader } from '../grading/graders.js';
import type { CandidateStatus } from '../report/scorecard.js';
import type { ProblemDocument, ProblemText } from './problem-set.js';

/** A float tolerance: one number for relative and absolute, or each. */
export type FloatTolerance = number | { relative: number; absolute: number };

/** How candidates are graded: the CLI's flags of the same names. */
export interface GradingOptions {
  /** Heap limit of each sandbox in MB (`--memory`). A Python interpreter is booted for one limit: a call with another one boots another. */
  memoryMb?: number;
  /** Time limit of each test in ms (`--timeout`). */
  timeoutMs?: number;
  /** `--float-tolerance`. */
  floatTolerance?: FloatTolerance;
  /** Judge Python results with bool, int and float distinct (`--strict-types`). */
  strictTypes?: boolean;
  /** Stop each candidate at its first test that does not pass; the rest are `skipped` and count in `total` (`--stop-on-first-failure`). */
  stopOnFirstFailure?: boolean;
  /** Unwrap Markdown fences and drop prose around the code, as for submissions (default true; `--no-extract`). */
  extractCode?: boolean;
  /**
   * Graders (`--grade`): `correctness` (always), `performance`, `memory`, as a list or one
   * comma-separated text. With performance or memory, a candidate that passes every test is
   * measured and scored against the problem's optimal solution, graded in the same call.
   */
  grade?: string | readonly string[];
  /** Runs of each test in a measured run, for its times (`--repetitions`). */
  repetitions?: number;
}

/** What `createGrader` loads and how it grades unless a call says otherwise. */
export interface GraderOptions extends GradingOptions {
  /** A folder of problem files (searched as `--problems` is), or the problems themselves, as objects or `ProblemText`. */
  problems: string | ReadonlyArray<ProblemDocument | ProblemText>;
  /** Sandbox worker processes, each grading one candidate at a time (`--concurrency`); default: one per core. */
  concurrency?: number;
  /** Seed of the sandbox's random numbers (`--seed`). */
  seed?: number;
  /** The most candidates admitted and not yet graded; a call that would pass it is refused with `QueueFull`. Default: 64 per worker, at least 1,024. */
  maxQueue?: number;
  /** Languages whose engines every worker starts before the first call (`python`); default: those of the problems' optimal solutions. */
  warmLanguages?: readonly string[];
  /** Hears each graded candidate and each lost worker (the service's metrics). */
  observer?: GraderObserver;
  /**
   * Limits per test from the optimal solution (`--timeout-factor`): on the first call for a problem
   * its optimal_solution is graded under `timeoutMs`, and each test's limit becomes
   * max(`timeoutFloorMs`, ceil(factor × its time on that test)) for every call after.
   */
  timeoutFactor?: number;
  /** The least limit `timeoutFactor` gives, in ms (`--timeout-floor`; default 100). */
  timeoutFloorMs?: number;
}

export interface GraderObserver {
  /** A candidate was graded, `seconds` after its call was admitted. */
  graded?(status: CandidateStatus, seconds: number): void;
  /** A worker died or was killed; another takes its place. */
  workerLost?(): void;
}

export interface GraderSettings {
  defaults: Required<Omit<GradingOptions, 'grade'>> & { floatTolerance: { relative: number; absolute: number }; grade: Grader[] };
  concurrency: number;
  seed: number;
  maxQueue: number;
  warm: string[];
  observer: GraderObserver;
  /** `timeoutFactor` and its floor; null without a factor. */
  limitsPerTest: { factor: number; floorMs: number } | null;
}

export type SettledGrading = GraderSettings['defaults'];

/** Grading options with the defaults filled in, each checked; `fail` makes the error for a bad one. */
export function checkedGrading(options: GradingOptions, defaults: SettledGrading | null, fail: (name: string, why: string) => Error): SettledGrading {
  const memoryMb = options.memoryMb ?? defaults?.memoryMb ?? DEFAULTS.memoryMb;
  const timeoutMs = options.timeoutMs ?? defaults?.timeoutMs ?? DEFAULTS.timeoutMs;
  upTo(LIMIT_BOUNDS.memoryMb, memoryMb, (why) => fail('memoryMb', why));
  upTo(LIMIT_BOUNDS.timeoutMs, timeoutMs, (why) => fail('timeoutMs', why));
  const tolerance = options.floatTolerance ?? defaults?.floatTolerance ?? DEFAULTS.floatTolerance;
  const floatTolerance =
    typeof tolerance === 'number' ? { relative: tolerance, absolute: tolerance } : { relative: tolerance?.relative, absolute: tolerance?.absolute };
  for (const value of [floatTolerance.relative, floatTolerance.absolute]) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw fail('floatTolerance', 'must be a non-negative number, or { relative, absolute }');
  }
  const flag = (name: keyof GradingOptions, fallback: boolean): boolean => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'boolean') throw fail(name, 'must be true or false');
    return value;
  };
  return {
    memoryMb,
    timeoutMs,
    floatTolerance,
    strictTypes: flag('strictTypes', defaults?.strictTypes ?? false),
    stopOnFirstFailure: flag('stopOnFirstFailure', defaults?.stopOnFirstFailure ?? false),
    extractCode: flag('extractCode', defaults?.extractCode ?? true),
    grade: graders(options.grade, defaults?.grade, fail),
    repetitions: positive(options.repetitions ?? defaults?.repetitions ?? DEFAULT_REPETITIONS, (why) => fail('repetitions', why)),
  };
}

function graders(given: unknown, fallback: Grader[] | undefined, fail: (name: string, why: string) => Error): Grader[] {
  if (given === undefined || given === null) return fallback ?? ['correctness'];
  if (typeof given !== 'string' && !(Array.isArray(given) && given.every((g) => typeof g === 'string'))) {
    throw fail('grade', 'must be grader names: a list, or one comma-separated text');
  }
  try {
    return parseGraders(given);
  } catch (e) {
    if (e instanceof GraderNameError) throw fail('grade', e.message);
    throw e;
  }
}

export function positive(value: unknown, fail: (why: string) => Error): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw fail(`must be a positive whole number, got ${String(value)}`);
  return value;
}

/** A whole number from 1 to `max`. */
export function upTo(max: number, value: unknown, fail: (why: string) => Error): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > max)
    throw fail(`must be a whole number from 1 to ${max}, got ${String(value)}`);
  return value;
}

/** `timeoutFactor` and `timeoutFloorMs` checked: null without a factor; `fail` makes the error for a bad one. */
export function checkedLimitsPerTest(options: GraderOptions, fail: (name: string, why: string) => Error): GraderSettings['limitsPerTest'] {
  const { timeoutFactor: factor, timeoutFloorMs: floor } = options;
  if (factor === undefined) {
    if (floor !== undefined) throw fail('timeoutFloorMs', 'applies with `timeoutFactor`');
    return null;
  }
  if (typeof factor !== 'number' || !Number.isFinite(factor) || factor <= 0) throw fail('timeoutFactor', `must be a positive number, got ${String(factor)}`);
  return { factor, floorMs: upTo(LIMIT_BOUNDS.timeoutMs, floor ?? DEFAULTS.timeoutFloorMs, (why) => fail('timeoutFloorMs', why)) };
}
