import { execFileSync } from 'node:child_process';
import type { CandidateJob, CandidateOutcome, TestOutcome } from '../../src/sandbox-host/protocol.js';

export interface JobOptions {
  functionName?: string;
  timeoutMs?: number;
  memoryMb?: number;
  seed?: number;
}

/** A Python job; each test is a JS array of arguments, sent as wire JSON. */
export function pyJob(code: string, tests: unknown[][] | string[], options: JobOptions = {}): CandidateJob {
  return {
    language: 'python',
    code,
    functionName: options.functionName ?? 'f',
    arity: 0,
    tests: tests.map((t) => (typeof t === 'string' ? t : JSON.stringify(t))),
    limits: { memoryMb: options.memoryMb ?? 128, timeoutMs: options.timeoutMs ?? 2000, seed: options.seed ?? 7 },
  };
}

export function testsOf(outcome: CandidateOutcome): TestOutcome[] {
  if (outcome.kind !== 'ran') throw new Error(`expected the candidate to run, got ${JSON.stringify(outcome)}`);
  return outcome.tests;
}

/** The returned values, decoded; any other outcome fails the test with a readable message. */
export function returned(outcome: CandidateOutcome): unknown[] {
  return testsOf(outcome).map((t) => {
    if (t.kind !== 'returned') throw new Error(`expected a returned value, got ${JSON.stringify(t)}`);
    return JSON.parse(t.json) as unknown;
  });
}

/** Each test's outcome in one word: what it returned as wire JSON, `threw: <message>`, `unserializable: <message>`, or its kind. */
export function summaries(outcome: CandidateOutcome): string[] {
  return testsOf(outcome).map((t) => (t.kind === 'returned' ? t.json : t.kind === 'threw' || t.kind === 'unserializable' ? `${t.kind}: ${t.message}` : t.kind));
}

/** An outcome without its timing, for exact comparisons. */
export function verdict(t: TestOutcome): Record<string, unknown> {
  if (t.kind === 'returned') return { kind: t.kind, json: t.json };
  if (t.kind === 'threw' || t.kind === 'unserializable' || t.kind === 'memory') return { kind: t.kind, message: t.message };
  return { kind: t.kind };
}

/** Pids of this process's sandbox workers (children running the worker bundle). */
export function workerPids(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => /worker(-process)?\.c?js/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
