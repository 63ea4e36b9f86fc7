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

/** Candidates graded at once unless told otherwise: one sandbox worker per core. */
export function defaultConcurrency(): number {
  return availableParallelism();
}
