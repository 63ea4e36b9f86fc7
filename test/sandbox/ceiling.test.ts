/**
 * The wall-clock ceiling: when a sandbox process does not answer in time,
 * the pool kills it and the job goes again to a fresh process (a hang is
 * not shown to be the candidate's until it happens every time). When every
 * attempt hangs, the test that hangs gets an error that says so, its other
 * tests their real verdicts, and the next candidate is graded normally.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { encodeWire } from '../../src/values/wire.js';

function job(code: string, tests: number[][], expected: number[]): GradeJob {
  return {
    language: 'javascript',
    code,
    functionName: 'f',
    arity: 1,
    topLevelNames: [],
    tests: tests.map((t) => JSON.stringify(t)),
    expected: expected.map((v) => encodeWire(v)),
    returnType: { kind: 'int' },
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    equality: 'javascript',
    // The per-test limit is generous; only the ceiling can stop the busy test.
    limits: { memoryMb: 64, timeoutMs: 30_000, seed: 1 },
  };
}

describe('a sandbox that stops answering', () => {
  // A ceiling far below the per-test limit stands in for machinery that hangs.
  const pool = new WorkerPool({ size: 1, ceilingMs: () => 1500 });
  afterAll(() => pool.close());

  it('is killed at the ceiling; only the test that hung it is failed, with the reason', async () => {
    const started = performance.now();
    const reply = await gradeWithRecovery(pool, job('function f(n) { if (n === 1) for (;;) {} return n; }', [[0], [1], [2]], [0, 1, 2]));
    expect(reply.kind).toBe('ran');
    if (reply.kind !== 'ran') return;
    expect(reply.verdicts.map((v) => v.status)).toEqual(['pass', 'error', 'pass']);
    const hung = reply.verdicts[1];
    expect(hung?.status === 'error' ? hung.message : '').toMatch(
      /sandbox stopped responding \(no answer within 1500 ms\); it was killed \(on each of 3 workers\)/,
    );
    // The batch three times, then each test alone (the hanging one three times):
    // bounded by a few ceilings, not by the 30 s test limit.
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('the next candidate is graded normally by a fresh process', async () => {
    const reply = await gradeWithRecovery(pool, job('const f = (n) => n * 2;', [[1], [4]], [2, 8]));
    expect(reply).toMatchObject({ kind: 'ran', verdicts: [{ status: 'pass' }, { status: 'pass' }] });
  });
});
