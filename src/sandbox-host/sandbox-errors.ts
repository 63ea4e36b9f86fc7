/**
 * How a request to a sandbox worker can fail besides its own answer. Kept
 * apart from the pool so that code that only tells these apart (the
 * grader, which also runs inside workers) does not load process management.
 */

/**
 * The worker process died while it held the job. `outOfMemory` says that V8
 * aborted it for running out of memory (what it wrote on stderr says so),
 * which only the code it was running can cause; any other death (a signal
 * from outside, a crash) is not shown to be the candidate's.
 */
export class SandboxCrashed extends Error {
  constructor(
    readonly detail: string,
    readonly outOfMemory = false,
  ) {
    super(`sandbox process died: ${detail}`);
  }
}

/** The job outlived its wall-clock ceiling; the worker was killed. */
export class SandboxUnresponsive extends Error {
  constructor(readonly ceilingMs: number) {
    super(`sandbox stopped responding (no answer within ${ceilingMs} ms); it was killed`);
  }
}

/** A worker that died or stopped answering. */
export function isSandboxFault(e: unknown): e is SandboxCrashed | SandboxUnresponsive {
  return e instanceof SandboxCrashed || e instanceof SandboxUnresponsive;
}

/**
 * Fresh workers a job is sent to again after its worker died or stopped
 * answering for a reason not shown to be the candidate's. Only after these
 * does the failure count against the candidate.
 */
export const FAULT_RETRIES = 2;
