/**
 * The two interfaces of src/engines/ (docs/ENGINES.md).
 *
 * `Engine` is what a sandbox worker sees of a language: run one candidate's
 * tests, get ready for the next candidate while idle, let go of everything.
 * Every language's engine is the shared batch driver (batch-driver.ts)
 * wrapped around that language's `Session`: the few things only the
 * language knows (how to get a fresh sandbox with the code loaded, how to
 * run some tests in it, what it finished before an interrupt).
 */
import type { CandidateJob, CandidateOutcome, StopAfter, TestMeasure, TestOutcome } from '../sandbox-host/protocol.js';

export interface Engine {
  /**
   * Runs every test of one candidate, each bounded by `job.limits`, and says
   * how each ended. Never throws for anything the candidate does. With
   * `stop`, the tests run one call each and the run ends after the first
   * test `stop` says to stop at.
   */
  run(job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome>;
  /**
   * Prepares for the next candidate while the worker has nothing to do
   * (`memoryMb`: the heap limit the last job asked for, a hint). A failure
   * here is left for the next job to meet and report.
   */
  warm(memoryMb: number): Promise<void> | void;
  /**
   * Makes the sandbox ready now, before the first job (for an engine that
   * otherwise starts its sandbox with its first job): a long-lived worker
   * pays the start before any candidate waits for it. Absent: `warm` does it.
   */
  prepare?(memoryMb: number): Promise<void>;
  dispose(): void;
}

/**
 * How loading the candidate (its top-level code) into a fresh sandbox went.
 *
 * `measure`: a measured run's figures for the load (CandidateOutcome.load).
 *
 * `sleptMs`, here and in `CallResult`: how long the candidate's code slept
 * in the load or call (Python's `time.sleep`); absent for a language whose
 * candidates cannot sleep. The driver counts it like CPU time: a sleep is
 * the candidate's own use of its time limit, where a wall clock that ran
 * out while the CPU did little otherwise means a busy machine.
 */
export type LoadResult =
  /** `entryPoint`: what will be called, or '' when the language names it in each call's frames. `cpuMs`: CPU time of this process during the load. */
  | { kind: 'loaded'; entryPoint: string; cpuMs: number; sleptMs?: number; measure?: TestMeasure }
  /** The code cannot run at all (syntax error, no entry point, top-level exception). */
  | { kind: 'load-error'; message: string }
  /** The top-level code ran out of wall-clock time; the sandbox is no longer usable. */
  | { kind: 'timeout'; cpuMs: number; sleptMs?: number }
  /** The top-level code hit a limit or broke the sandbox: every test left gets `outcome`. `lost`: the sandbox must not be used again. */
  | { kind: 'failed'; outcome: TestOutcome; lost: boolean };

/** How one call that runs a slice of tests went. */
export type CallResult =
  /** The call returned framed results (frames.ts) for the first tests of the slice, all of them or fewer. */
  | { kind: 'finished'; text: string; cpuMs: number; sleptMs?: number }
  /**
   * The call was interrupted at its wall-clock limit. `cpuMs`: this
   * process's CPU time during the call. `idle`: nothing was running, the
   * call waited on something of the candidate's that never came (a promise
   * that never settles), so the time was the candidate's whatever the CPU did.
   */
  | { kind: 'timeout'; cpuMs: number; idle: boolean; sleptMs?: number }
  /**
   * The sandbox reached its heap limit and is gone. `cpuMs`: this process's CPU time during the call.
   * `shared`: the sandbox had served earlier candidates, and what they left may be what filled it.
   */
  | { kind: 'memory'; cpuMs: number; sleptMs?: number; shared?: boolean }
  | { kind: 'crashed'; message: string };

/**
 * One language's part of running a candidate, driven by `runBatches`. A
 * session holds at most one sandbox (an isolate's context, an interpreter)
 * with the candidate's code loaded; the driver says when to make one, what
 * to run in it and when it must be thrown away.
 */
export interface Session {
  /**
   * A sandbox in which nothing of this candidate has run yet, with the
   * candidate's top-level code run in it within `wallMs`.
   */
  load(job: CandidateJob, wallMs: number): Promise<LoadResult>;
  /**
   * Runs `tests` (wire-JSON argument arrays) in order in the loaded sandbox,
   * each within `wallMs`. May answer for fewer tests than it was given; the
   * driver then asks again for the rest.
   */
  call(job: CandidateJob, tests: readonly string[], wallMs: number): Promise<CallResult>;
  /** After a timeout: the framed results of the tests the interrupted call finished, or null when they cannot be read. */
  progress(): string | null;
  /** Whether the loaded sandbox may run more tests after a call was interrupted at its time limit. */
  readonly survivesTimeout: boolean;
  /** The sandbox hit a limit or failed: never use it again (the next `load` makes another). */
  discard(): void;
  /** The candidate is done (after `discard` or not). */
  end(): void;
  /** The message a test gets when its frame says the sandbox itself failed (a `c` frame). */
  describeCrash(payload: string): string;
}
