/**
 * A JavaScript test whose wall-clock limit ran out while its worker was not
 * running (a machine with no core to spare, here a worker stopped with
 * SIGSTOP) is run again, not given `timeout`; a real infinite loop still
 * times out. The Python engine's twin is in test/python/hostile.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { encodeWire } from '../../src/values/wire.js';
import { workerPids } from '../python/helpers.js';

function job(code: string): GradeJob {
  return {
    language: 'javascript',
    code,
    functionName: 'add',
    arity: 2,
    topLevelNames: ['add'],
    tests: [
      [1, 2],
      [3, 4],
    ].map((t) => JSON.stringify(t)),
    expected: [3, 7].map((v) => encodeWire(v)),
    returnType: { kind: 'int' },
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    equality: 'javascript',
    limits: { memoryMb: 128, timeoutMs: 1000, seed: 1 },
  };
}

describe('an overloaded machine is not a JavaScript timeout', () => {
  const pool = new WorkerPool({ size: 1 });
  afterAll(() => pool.close());

  it('a test whose wall-clock limit passed while its process was stopped runs again; a real loop still times out', async () => {
    const others = new Set(workerPids());
    const warm = await gradeWithRecovery(pool, job('function add(a, b) { return a + b; }'));
    expect(warm.kind === 'ran' ? warm.verdicts.map((v) => v.status) : warm).toEqual(['pass', 'pass']);
    const [pid] = workerPids().filter((p) => !others.has(p));
    expect(pid).toBeTypeOf('number');

    // Each test spins for a few hundred ms of CPU, well within its 1 s; the worker
    // is stopped for 2.5 s in the middle of the first.
    const spin = 'function add(a, b) { let i = 0; while (i < 5e8) i++; return a + b; }';
    const grading = gradeWithRecovery(pool, job(spin));
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(pid!, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    process.kill(pid!, 'SIGCONT');
    const reply = await grading;
    expect(reply.kind === 'ran' ? reply.verdicts.map((v) => v.status) : reply).toEqual(['pass', 'pass']);

    const loop = await gradeWithRecovery(pool, job('function add(a, b) { while (a === 3) {} return a + b; }'));
    expect(loop.kind === 'ran' ? loop.verdicts.map((v) => v.status) : loop).toEqual(['pass', 'timeout']);
  }, 60_000);
});
