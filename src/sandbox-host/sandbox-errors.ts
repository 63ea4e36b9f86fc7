/**
 * How a request to a sandbox worker can fail besides its own answer. Kept
 * apart from the pool so that code that only tells these apart (the
 * grader, which also runs inside workers) does not load process management.
 */

/** The worker process died while it held the job (for example a V8 fatal out-of-memory abort). */
export class SandboxCrashed extends Error {
  constructor(readonly detail: string) {
    super(`sandbox process died: ${detail}`);
  }
}

/** The job outlived its wall-clock ceiling; the worker was killed. */
export class SandboxUnresponsive extends Error {
  constructor(readonly ceilingMs: number) {
    super(`sandbox stopped responding (no answer within ${ceilingMs} ms); it was killed`);
  }
}
