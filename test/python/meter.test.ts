/**
 * A metered interpreter (src/engines/python/meter/, docs/METERING.md):
 * counts that repeat exactly, see the work done in CPython's C code, and
 * grow with the input. The snapshot and metered module go to a folder of
 * this test's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Interpreter } from '../../src/engines/python/boot.js';
import { startPython } from '../../src/engines/python/engine.js';
import { py } from '../python-source.js';

const TIMEOUT_MS = 30_000;
let cacheDir: string;
let interpreter: Interpreter;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'evalrun-meter-test-'));
  interpreter = (await startPython({ memoryMb: 256, cacheDir, meter: 'blocks' })).interpreter;
});

afterAll(() => {
  interpreter?.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

/** The counts of one candidate's tests, on an interpreter restored first. */
async function costs(code: string, tests: unknown[][]): Promise<bigint[]> {
  const reset = await interpreter.reset(TIMEOUT_MS);
  expect(reset).toMatchObject({ kind: 'ok', text: 'clean' });
  const loaded = await interpreter.prepare(code, 'f', 7, 256, TIMEOUT_MS);
  expect(loaded).toMatchObject({ kind: 'ok', text: expect.stringMatching(/^ok /) as unknown });
  const ran = await interpreter.runTests(
    tests.map((t) => JSON.stringify(t)),
    TIMEOUT_MS,
    TIMEOUT_MS,
  );
  expect(ran.kind).toBe('ok');
  const counted = interpreter.meterCosts();
  expect(counted?.load).toBeGreaterThan(0n);
  return (counted?.tests ?? []).map((c) => {
    if (c === null) throw new Error('a test was not counted');
    return c;
  });
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const shuffled = (n: number): number[] => range(n).map((i) => (i * 7919) % n);

const IN_LIST = py`
  def f(xs, qs):
      s = list(xs)
      return sum(1 for q in qs if q in s)
`;
const IN_SET = py`
  def f(xs, qs):
      s = set(xs)
      return sum(1 for q in qs if q in s)
`;
const membership = (n: number): unknown[] => [range(n), range(n).map((i) => 2 * i)];

describe('a metered interpreter', () => {
  it('counts the same in a fresh interpreter as in one whose memory an earlier candidate grew', async () => {
    // First in the file: the interpreter has just booted, and this call grows its memory.
    const code = 'def f(n):\n    return len([i for i in range(n)])\n';
    const fresh = await costs(code, [[1_000_000]]);
    const grown = await costs(code, [[1_000_000]]);
    expect(grown).toEqual(fresh);
  });

  it('gives the same count to the same call, every time', async () => {
    const tests = [[shuffled(2000)], [shuffled(50)]];
    const first = await costs('def f(xs):\n    return sorted(xs)[0]\n', tests);
    const again = await costs('def f(xs):\n    return sorted(xs)[0]\n', tests);
    expect(again).toEqual(first);
  });

  it('ranks `x in a_list` in a loop above `x in a_set`', async () => {
    const [list = 0n] = await costs(IN_LIST, [membership(300)]);
    const [set = 0n] = await costs(IN_SET, [membership(300)]);
    expect(list).toBeGreaterThan(5n * set);
  });

  it('ranks sorted() of a large list above min(), though both are one call into C', async () => {
    const [sorted = 0n] = await costs('def f(xs):\n    return sorted(xs)[0]\n', [[shuffled(20_000)]]);
    const [min = 0n] = await costs('def f(xs):\n    return min(xs)\n', [[shuffled(20_000)]]);
    expect(sorted).toBeGreaterThan(min);
  });

  it('grows with the input: about 4 times for 4n, about 16 times for a quadratic candidate', async () => {
    const [n = 0n, n4 = 0n] = await costs('def f(n):\n    return sum(range(n))\n', [[10_000], [40_000]]);
    const linear = Number(n4) / Number(n);
    expect(linear).toBeGreaterThan(3.5);
    expect(linear).toBeLessThan(4.5);
    const [m = 0n, m4 = 0n] = await costs(IN_LIST, [membership(200), membership(800)]);
    expect(Number(m4) / Number(m)).toBeGreaterThan(12);
  });

  it('is out of the candidate’s reach: the routes to JavaScript are sealed', async () => {
    const probe = py`
      def f():
          out = []
          for name in ('js', 'pyodide_js', 'pyodide.ffi', '_pyodide_core'):
              try:
                  __import__(name)
                  out.append(name)
              except ModuleNotFoundError:
                  pass
          return out
    `;
    await costs(probe, [[]]);
    const ran = await interpreter.runTests(['[]'], TIMEOUT_MS, TIMEOUT_MS);
    // One frame: returned, and the list of modules that imported is empty.
    expect(ran).toMatchObject({ kind: 'ok', text: expect.stringMatching(/^r[0-9]+,2,\[\]$/) as unknown });
  });
});

describe('an interpreter that is not metered', () => {
  it('boots from the same snapshot and reports no counts', async () => {
    const plain = (await startPython({ memoryMb: 256, cacheDir })).interpreter;
    try {
      expect(plain.meterCosts()).toBeNull();
    } finally {
      plain.dispose();
    }
  });
});
