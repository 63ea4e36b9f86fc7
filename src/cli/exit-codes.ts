/**
 * Exit codes: 0 all passed and valid, 1 anything failed or invalid, 2 usage
 * error, 3 the run log or scorecard could not be written (full disk, quota,
 * read-only file system), 130 interrupted.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, cannotWrite: 3, interrupted: 130 } as const;
