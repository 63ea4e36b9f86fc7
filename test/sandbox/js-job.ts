import type { CandidateJob } from '../../src/sandbox-host/protocol.js';

/** A JavaScript job calling `f` with each test's arguments; measured with `repetitions` when it is given and above 0. */
export function jsJob(code: string, tests: unknown[][], options: { timeoutMs?: number; repetitions?: number } = {}): CandidateJob {
  const repetitions = options.repetitions ?? 0;
  return {
    language: 'javascript',
    code,
    functionName: 'f',
    arity: 1,
    tests: tests.map((args) => JSON.stringify(args)),
    limits: { memoryMb: 128, timeoutMs: options.timeoutMs ?? 5000, seed: 7 },
    ...(repetitions > 0 ? { measure: { repetitions } } : {}),
  };
}
