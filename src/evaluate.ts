import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULTS, defaultConcurrency, LIMIT_BOUNDS } from './defaults.js';
import { jsonReporter } from './report/json-reporter.js';
import type { Reporter } from './report/reporter.js';
import type { Scorecard } from './report/scorecard.js';
import { pathKind } from './folders/path-kind.js';
import { newRunFiles } from './runner/run-files.js';
import { runEvaluation } from './runner/run.js';
import type { RunOptions } from './runner/run-options.js';
import { languageNames } from './engines/find-language.js';
import { DEFAULT_REPETITIONS, GraderNameError, parseGraders, type Grader } from './grading/graders.js';
import type { Language } from './engines/languages.js';

/** What `evaluate` grades and how: the CLI's flags, as an object. Only `problems` is required. */
export interface EvaluateOptions {
  /** Folder of problem files (`--problems`). */
  problems: string;
  /** Folder of submissions (`--solutions`); omit for a self-check of each `optimal_solution`. */
  solutions?: string | null;
  /** Candidates graded at once (`--concurrency`); default: one per core. */
  concurrency?: number;
  /** Heap limit of each sandbox in MB (`--memory`). */
  memoryMb?: number;
  /** Time limit of each test in ms (`--timeout`). */
  timeoutMs?: number;
  /** One number for both, or relative and absolute (`--float-tolerance`). */
  floatTolerance?: number | { relative: number; absolute: number };
  /** Seed of the sandbox's random numbers (`--seed`). */
  seed?: number;
  /** The k values of pass@k (`--pass-at`). */
  passAtK?: readonly number[];
  /** Globs and tags that select problems and models (`--problem`, `--tag`, `--model`). */
  filters?: { problems?: readonly string[]; tags?: readonly string[]; models?: readonly string[] };
  /** Unwrap Markdown fences and drop prose around submitted code (`--no-extract` is false). */
  extractCode?: boolean;
  /** Judge Python results with bool, int and float distinct (`--strict-types`). */
  strictTypes?: boolean;
  /** Folders of wheels or packages Python candidates may import (`--python-packages`). */
  pythonPackages?: readonly string[];
  /** Stop each candidate at its first test that does not pass; the rest are `skipped` and count in `total` (`--stop-on-first-failure`). */
  stopOnFirstFailure?: boolean;
  /**
   * Graders (`--grade`): `correctness` (always graded), `performance`, `memory`; a list or one
   * comma-separated text. Performance and memory score each candidate that passes every test
   * against the problem's optimal solution (the scorecard's `efficiency`).
   */
  grade?: string | readonly string[];
  /** Runs of each test in a measured run, for its times (`--repetitions`). */
  repetitions?: number;
  /**
   * Time limits from the optimal solution (`--timeout-factor`): each test's limit is
   * max(`timeoutFloorMs`, ceil(factor × the optimal solution's time on it)). Grading runs only.
   */
  timeoutFactor?: number;
  /** The least limit `timeoutFactor` gives, in ms (`--timeout-floor`; default 100). */
  timeoutFloorMs?: number;
  /** A run log or JSON scorecard whose recorded limits to use instead of measuring them (`--test-limits`). Grading runs only. */
  testLimits?: string;
  /** Grade only part `index` (1-based) of `count` (`--shard I/N`). */
  shard?: { index: number; count: number } | null;
  /** Where the JSON scorecard is written (`--out`); the run log goes beside it. Default `results/<run>.json`. */
  out?: string | null;
  /** Aborting stops grading; the scorecard then says `complete: false`. */
  signal?: AbortSignal;
}

/**
 * Grades what `options` asks for, exactly as the `evalrun` command does,
 * and resolves to the scorecard the JSON reporter wrote. The run log and
 * the scorecard are written to disk as the CLI writes them (`out`, or
 * `results/<run_id>.json`), so a run can be resumed and reported on later. Usage mistakes (a negative timeout, say)
 * are thrown as `TypeError`s before anything runs.
 */
export async function evaluate(options: EvaluateOptions): Promise<Scorecard> {
  const run = runOptionsOf(options);
  const files = newRunFiles(options.out ?? null, run.shard ?? null);
  mkdirSync(dirname(files.log), { recursive: true });
  let scorecard: Scorecard | null = null;
  // The run log is closed once the run returns, so the candidates are read back while the reporters run.
  const capture: Reporter = {
    onRunEnd(outcome) {
      scorecard = { ...outcome.head, candidates: [...outcome.results()] };
    },
  };
  await runEvaluation(run, { runId: files.runId, logFile: files.log, resume: false, ...(options.signal === undefined ? {} : { signal: options.signal }) }, [
    jsonReporter({ outFile: files.scorecard, toStdout: false, log: () => undefined }),
    capture,
  ]);
  if (scorecard === null) throw new Error('evaluate: the run ended without an outcome');
  return scorecard;
}

function runOptionsOf(options: EvaluateOptions): RunOptions {
  if (typeof options.problems !== 'string' || options.problems === '') throw new TypeError('evaluate: `problems` must name a folder');
  const tolerance = options.floatTolerance ?? DEFAULTS.floatTolerance;
  return {
    problemsDir: options.problems,
    solutionsDir: options.solutions ?? null,
    filters: {
      problems: [...(options.filters?.problems ?? [])],
      tags: [...(options.filters?.tags ?? [])],
      models: [...(options.filters?.models ?? [])],
    },
    concurrency: positive('concurrency', options.concurrency ?? defaultConcurrency()),
    memoryMb: upTo('memoryMb', LIMIT_BOUNDS.memoryMb, options.memoryMb ?? DEFAULTS.memoryMb),
    timeoutMs: upTo('timeoutMs', LIMIT_BOUNDS.timeoutMs, options.timeoutMs ?? DEFAULTS.timeoutMs),
    tolerance: typeof tolerance === 'number' ? { relative: tolerance, absolute: tolerance } : { ...tolerance },
    seed: options.seed ?? DEFAULTS.seed,
    languages: new Set<Language>(languageNames()),
    passAtK: [...new Set((options.passAtK ?? DEFAULTS.passAtK).map((k) => positive('passAtK', k)))].sort((a, b) => a - b),
    extractCode: options.extractCode ?? true,
    strictTypes: options.strictTypes ?? false,
    pythonPackages: (options.pythonPackages ?? []).map(packagesFolder),
    stopOnFirstFailure: options.stopOnFirstFailure ?? false,
    shard: shardOf(options.shard ?? null),
    graders: gradersOf(options.grade),
    repetitions: positive('repetitions', options.repetitions ?? DEFAULT_REPETITIONS),
    ...testLimitsOf(options),
  };
}

function testLimitsOf(options: EvaluateOptions): Pick<RunOptions, 'timeoutFactor' | 'timeoutFloorMs' | 'testLimitsFile'> {
  const { timeoutFactor: factor, timeoutFloorMs: floor, testLimits: file } = options;
  const grading = options.solutions !== undefined && options.solutions !== null;
  const why = 'a self-check grades the optimal solutions themselves, whose times the limits come from; give `solutions`';
  if (floor !== undefined && factor === undefined) throw new TypeError('evaluate: `timeoutFloorMs` applies with `timeoutFactor`');
  if (factor !== undefined && !grading) throw new TypeError(`evaluate: \`timeoutFactor\` applies when grading submissions: ${why}`);
  if (file !== undefined && !grading) throw new TypeError(`evaluate: \`testLimits\` applies when grading submissions: ${why}`);
  if (factor !== undefined && !(Number.isFinite(factor) && factor > 0))
    throw new TypeError(`evaluate: \`timeoutFactor\` must be a positive number, got ${factor}`);
  return {
    ...(factor === undefined
      ? {}
      : { timeoutFactor: factor, timeoutFloorMs: upTo('timeoutFloorMs', LIMIT_BOUNDS.timeoutMs, floor ?? DEFAULTS.timeoutFloorMs) }),
    ...(file === undefined ? {} : { testLimitsFile: existingFile('testLimits', file) }),
  };
}

function existingFile(name: string, file: string): string {
  const path = resolve(file);
  if (pathKind(path) !== 'file') throw new TypeError(`evaluate: \`${name}\`: ${file} is not a file`);
  return path;
}

function gradersOf(grade: EvaluateOptions['grade']): Grader[] {
  try {
    return parseGraders(grade ?? []);
  } catch (e) {
    if (e instanceof GraderNameError) throw new TypeError(`evaluate: \`grade\`: ${e.message}`, { cause: e });
    throw e;
  }
}

function packagesFolder(dir: string): string {
  const path = resolve(dir);
  if (pathKind(path) !== 'folder') throw new TypeError(`evaluate: \`pythonPackages\`: ${dir} is not a folder`);
  return path;
}

function shardOf(shard: { index: number; count: number } | null): { index: number; count: number } | null {
  if (shard === null) return null;
  const count = positive('shard.count', shard.count);
  const index = positive('shard.index', shard.index);
  if (index > count) throw new TypeError(`evaluate: \`shard.index\` must be at most \`shard.count\` (${count}), got ${index}`);
  return { index, count };
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`evaluate: \`${name}\` must be a positive whole number, got ${value}`);
  return value;
}

function upTo(name: string, max: number, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0 || value > max)
    throw new TypeError(`evaluate: \`${name}\` must be a whole number from 1 to ${max}, got ${value}`);
  return value;
}
