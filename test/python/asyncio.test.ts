import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { pyJob, summaries } from './helpers.js';

/**
 * asyncio in a Python candidate, as CPython runs it: asyncio.run, a loop of
 * its own, timers, tasks, gather and queues. Pyodide's own loop schedules
 * through JavaScript, which the sandbox seals; the sandbox's loop has no I/O,
 * so a program whose every task waits forever is told so rather than hung.
 */

let engine: PythonEngine;

beforeAll(async () => {
  engine = await PythonEngine.create({ memoryMb: 256 });
});

afterAll(() => engine?.dispose());

async function outcomes(code: string, args: unknown[][] = [[]]): Promise<string[]> {
  return summaries(await engine.run(pyJob(code, args)));
}

describe('asyncio in a candidate', () => {
  it('runs asyncio.run with timers, tasks, gather, queues and wait_for, test after test', async () => {
    const code = `
import asyncio

async def main(n):
    await asyncio.sleep(0.01)
    parts = await asyncio.gather(*(asyncio.sleep(0, result=i) for i in range(n)))
    queue = asyncio.Queue()
    await queue.put(100)
    task = asyncio.create_task(asyncio.wait_for(queue.get(), 1))
    return sum(parts) + await task

def f(n):
    return asyncio.run(main(n))
`;
    expect(await outcomes(code, [[4], [0]])).toEqual(['106', '100']);
  });

  it('runs a loop the candidate makes itself, and a wait_for that times out', async () => {
    const code = `
import asyncio

async def slow():
    await asyncio.sleep(5)

def f():
    loop = asyncio.new_event_loop()
    try:
        first = loop.run_until_complete(asyncio.sleep(0, result='done'))
        try:
            loop.run_until_complete(asyncio.wait_for(slow(), 0.01))
            second = 'no timeout'
        except TimeoutError:
            second = 'timed out'
        return [first, second]
    finally:
        loop.close()
`;
    expect(await outcomes(code)).toEqual(['["done","timed out"]']);
  });

  it('says so when every task waits and nothing can wake one', async () => {
    const code = `
import asyncio

async def forever():
    await asyncio.Event().wait()

def f():
    return asyncio.run(forever())
`;
    expect(await outcomes(code)).toEqual(['threw: RuntimeError: the event loop has nothing left to run: every task waits, and nothing can wake it']);
  });
});
