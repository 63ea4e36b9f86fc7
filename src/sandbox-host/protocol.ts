/**
 * What crosses between the runner and a sandbox engine (JavaScript in an
 * isolate, or Python in Pyodide inside an isolate). Values travel as "wire"
 * JSON text (see src/values/wire.ts) so nothing but strings and numbers ever
 * crosses an isolate boundary.
 */

export interface SandboxLimits {
  /** Heap limit of the isolate, in MB. */
  memoryMb: number;
  /** Wall-clock limit of one test, in ms, and of loading the code. */
  timeoutMs: number;
  /**
   * Each test's own wall-clock limit, in ms, one per test of the job
   * (`--timeout-factor`: worked out from the optimal solution's times).
   * Absent: every test has `timeoutMs`. Loading the code keeps `timeoutMs`.
   */
  testTimeoutsMs?: number[];
  /** Seed for Math.random / random and the fixed clock inside the sandbox. */
  seed: number;
}

export interface CandidateJob {
  /**
   * The name of the language the code is in (a `Language` of
   * engines/languages.ts: a grade job says which). A plain string here, so
   * that what engines see does not depend on the list of languages.
   */
  language: string;
  /** Code as it will run (already unwrapped/transpiled). */
  code: string;
  /** Name to call; engines may apply further entry-point rules. */
  functionName: string;
  /** Parameter count, used to pick between same-named candidates. */
  arity: number;
  /**
   * Names the code binds at top level, in source order, for the entry-point
   * rules that look past `functionName` (static methods, the last function).
   */
  topLevelNames?: string[];
  /** One wire-JSON array of arguments per test, in test order. */
  tests: string[];
  /**
   * Run the top-level code where nothing it does can hold the worker, at a
   * cost per candidate: asked for when the candidate already stopped a
   * worker and its tests run one at a time (a JavaScript error whose name or
   * message never comes is read outside the isolate's time limit).
   */
  guardTopLevel?: boolean;
  limits: SandboxLimits;
  /** Python only: folders of wheels or packages the candidate may import (read by the worker, never by the candidate). */
  pythonPackages?: string[];
  /**
   * A measured run (--grade performance, memory): the engine measures the
   * loading of the code, and runs each test from the state right after the
   * code loaded, restored before every test, so that nothing one test leaves
   * behind (a warm cache, memoized answers) lowers the next one's figures.
   * Each test runs `repetitions` times for its times; its cost and memory
   * are the same on every repetition. A returned test then carries its
   * `measure`, and the outcome the loading's (`load`).
   */
  measure?: { repetitions: number };
}

/**
 * What a measured run found for one test (or for loading the code).
 * `cost`: the work done, counted by the engine, the same on every machine
 * and every run (docs/METERING.md says what each engine counts); `memory`:
 * the peak of traced allocations in bytes, above what was allocated when the
 * test started; `wallMs` and `cpuMs`: each repetition's times.
 */
export interface TestMeasure {
  cost: number;
  memory: number;
  wallMs: number[];
  cpuMs: number[];
}

/** How one test ended inside the sandbox, before comparison. */
export type TestOutcome =
  /** The function returned; `json` is the wire encoding of the value. */
  | { kind: 'returned'; json: string; durationMs: number; measure?: TestMeasure }
  /** The function threw (or its promise rejected). */
  | { kind: 'threw'; message: string; durationMs: number }
  /** It returned something that has no comparable encoding (function, symbol, cycle...). */
  | { kind: 'unserializable'; message: string; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'memory'; message: string };

/**
 * Asked after each test when a job stops at its first failure: true to run
 * no more tests. The worker judges the outcome against the expected value,
 * which the engine never sees.
 */
export type StopAfter = (index: number, outcome: TestOutcome) => boolean;

export type CandidateOutcome =
  /** The code ran; one outcome per test, in order (with a `StopAfter`: up to the test it stopped after). */
  | {
      kind: 'ran';
      tests: TestOutcome[];
      entryPoint: string;
      /** How long the candidate ran, when the engine measured it past its own start-up. */
      durationMs?: number;
      /** A measured run's figures for loading the code (its module-level work). */
      load?: TestMeasure;
    }
  /** The code never got to run a test: syntax error, missing entry point, unsupported language. */
  | { kind: 'load-error'; message: string };
