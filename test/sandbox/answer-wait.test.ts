/**
 * How long a finished item's answer waits in its worker
 * (BatchOptions.answerWithinMs): with no wait each answer goes as its item
 * ends; with a long one, a batch's answers go together when it ends, so
 * that the supervisor wakes once for the batch.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import { encodeWire } from '../../src/values/wire.js';
import type { BatchOptions, ItemMessage } from '../../src/workers/messages.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { jobOptions } from '../../src/workers/recovery.js';

/** Spins `n` times (the sandbox's clock is frozen, so work stands in for time) and returns `n`. */
function busyJob(n: number): GradeJob {
  return {
    language: 'javascript',
    code: 'function f(n) { let x = 0; for (let i = 0; i < n; i++) x = (x + i) % 7; return x >= 0 ? n : -1; }',
    functionName: 'f',
    arity: 1,
    topLevelNames: [],
    tests: [JSON.stringify([n])],
    expected: [encodeWire(n)],
    returnType: { kind: 'int' },
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    equality: 'javascript',
    limits: { memoryMb: 64, timeoutMs: 30_000, seed: 1 },
  };
}

const SPINS = 40_000_000;

describe('answers held in the worker', () => {
  const pool = new WorkerPool({ size: 1 });
  afterAll(() => pool.close());

  /** Runs three busy jobs as one batch; when each answer arrived (ms) and its verdicts. */
  async function arrivals(answerWithinMs: number): Promise<{ at: number[]; statuses: string[] }> {
    const job = busyJob(SPINS);
    const options: BatchOptions = { ...jobOptions(job), answerWithinMs };
    const at: number[] = [];
    const statuses: string[] = [];
    await pool.run({
      batch: { options, items: [0, 1, 2].map(() => ({ kind: 'job', job })) },
      ceilingMs: () => 60_000,
      onMessage: (m: ItemMessage) => {
        at.push(performance.now());
        if (m.type === 'answered' && m.reply.kind === 'ran') statuses.push(...m.reply.verdicts.map((v) => v.status));
      },
    });
    return { at, statuses };
  }

  const gaps = (at: number[]): number[] => at.slice(1).map((t, i) => t - at[i]!);

  it('sends each answer as its item ends when the batch allows no wait, and all of them at its end when it allows a long one', async () => {
    // A first batch readies the worker and its engine, so that neither run below pays for that.
    await arrivals(0);
    const prompt = await arrivals(0);
    const held = await arrivals(60_000);
    expect(prompt.statuses).toEqual(['pass', 'pass', 'pass']);
    expect(held.statuses).toEqual(['pass', 'pass', 'pass']);
    // Without a wait, the answers are as far apart as the items take; held, they come in one write.
    const item = Math.min(...gaps(prompt.at));
    expect(item).toBeGreaterThan(10);
    expect(Math.max(...gaps(held.at))).toBeLessThan(item / 4);
  });
});
