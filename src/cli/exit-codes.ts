/** Exit codes: 0 all passed and valid, 1 anything failed or invalid, 2 usage error, 130 interrupted. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;
