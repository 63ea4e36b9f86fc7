/**
 * `whenReady`: the pool says when some worker has started, which is how
 * long the supervisor reads problem files on its own before it hands the
 * rest to the workers.
 */
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/sandbox-host/pool.js';

const settledWithin = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('WorkerPool.whenReady', () => {
  it('waits for a worker to start, then answers at once', async () => {
    const pool = new WorkerPool({ size: 1 });
    try {
      // Nothing is started before warm() or a first request: nothing can be ready.
      const early = pool.whenReady();
      expect(await settledWithin(early, 300)).toBe(false);
      pool.warm();
      await early;
      expect(await settledWithin(pool.whenReady(), 0)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('resolves when the pool is closed, so that nothing waits for a worker forever', async () => {
    const pool = new WorkerPool({ size: 1 });
    const waiting = pool.whenReady();
    await pool.close();
    await expect(waiting).resolves.toBeUndefined();
    await expect(pool.whenReady()).resolves.toBeUndefined();
  });
});
