import { availableParallelism } from 'node:os';

/**
 * The one place evalrun's defaults are written: the CLI's flags, the
 * library's `evaluate` and the sandbox workers all take them from here.
 */
export const DEFAULTS = {
  /** Heap limit of each sandbox, in MB (`--memory`). */
  memoryMb: 128,
  /** Time limit of each test, in ms (`--timeout`). */
  timeoutMs: 2000,
  /** The least limit `--timeout-factor` gives a test, in ms (`--timeout-floor`): a fast test's measured time is mostly noise. */
  timeoutFloorMs: 100,
  /** Relative and absolute tolerance of float comparison (`--float-tolerance`). */
  floatTolerance: Object.freeze({ relative: 1e-9, absolute: 1e-9 }),
  /** Seed of `Math.random` and Python's `random` inside the sandbox (`--seed`). */
  seed: 1,
  /** The k values of pass@k (`--pass-at`). */
  passAtK: Object.freeze([1]),
  /** Where scorecards and run logs go unless `--out` says otherwise. */
  resultsDir: 'results',
} as const;

/**
 * The most the two limits of a sandbox may be; the CLI's flags, `evaluate`,
 * `createGrader` and a grading request refuse more (and a limit worked out
 * with `--timeout-factor` is cut to it), because the engines could not
 * grade under it: a limit they cannot honour would fail every test of a
 * right answer, or set no limit at all.
 */
export const LIMIT_BOUNDS = {
  /**
   * A test's time limit, in ms. isolated-vm's `timeout` and Node's timers
   * take a signed 32-bit count of ms, and the engines stretch a test's
   * limit (a retry on a busy machine, the traced pass of a measured run)
   * and add a grace before it reaches them: a day leaves all of that room.
   */
  timeoutMs: 86_400_000,
  /**
   * A sandbox's heap limit, in MB: the most the Python engine honours in
   * full. The interpreter's WebAssembly memory, 32-bit, holds the
   * candidate's heap and the interpreter itself beside it
   * (engines/python/bridge.ts); past this the candidate would get less than
   * its limit. The JavaScript engine keeps the same bound, so that a limit
   * means the same in either language.
   */
  memoryMb: 3967,
} as const;

/** Candidates graded at once unless told otherwise: one sandbox worker per core. */
export function defaultConcurrency(): number {
  return availableParallelism();
}
