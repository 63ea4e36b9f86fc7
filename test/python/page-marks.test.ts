/**
 * Restores of only the pages written (sandbox/python/page-marks.js): on a
 * metered interpreter booted with diagnostics, after every measured pass
 * the restore to the state after loading takes the marked path and leaves
 * every byte of the memory as it was right after the load, and the reset
 * leaves it as it was after boot. Candidates that write through each way
 * JavaScript writes into the memory (strings handed in, the clock, random
 * bytes, memory growth, deep recursion, big allocations) are covered, and
 * so is the fall back to a full restore when an import writes without
 * marks. The snapshot and metered module go to a folder of this test's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPython } from '../../src/engines/python/engine.js';
import type { Interpreter } from '../../src/engines/python/boot.js';
import { py } from '../python-source.js';

let cacheDir: string;
let interpreter: Interpreter;
let booted: string;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'evalrun-page-marks-test-'));
  interpreter = (await startPython({ memoryMb: 256, cacheDir, meter: 'blocks' }, true)).interpreter;
  booted = digest();
}, 180_000);

afterAll(() => {
  interpreter?.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

function digest(): string {
  const d = interpreter.memoryDigest();
  if (d === null) throw new Error('the interpreter is gone');
  return d;
}

async function ok(result: Promise<{ kind: string; text?: string }>): Promise<string> {
  const r = await result;
  if (r.kind !== 'ok' || r.text === undefined) throw new Error(`expected an answer, got ${JSON.stringify(r)}`);
  return r.text;
}

/**
 * Loads `code` measured, then runs each test measured `rounds` times, each
 * from a restore; returns how every restore was made. Fails unless the
 * memory after each restore is the memory right after the load, and after
 * the reset the memory after boot.
 */
async function passes(code: string, tests: unknown[][], rounds = 2): Promise<string[]> {
  const loaded = await ok(interpreter.prepare(code, 'f', 7, 256, 20_000, 'both'));
  expect(loaded).toMatch(/ ok /);
  const afterLoad = digest();
  const kinds: string[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const test of tests) {
      const out = await ok(interpreter.measureTest(JSON.stringify(test), 'both', 20_000));
      expect(out).toMatch(/^\d+\/\d+ r/);
      expect(await ok(interpreter.restoreLoaded(20_000))).toBe('clean');
      kinds.push(interpreter.lastRestore());
      expect(digest()).toBe(afterLoad);
    }
  }
  expect(await ok(interpreter.reset(20_000))).toBe('clean');
  kinds.push(interpreter.lastRestore());
  expect(digest()).toBe(booted);
  return kinds;
}

describe('restores of the pages written', () => {
  it('puts back exactly the state after loading, by the marks, for allocation-heavy code', async () => {
    const kinds = await passes(
      py`
        cache = {}
        def f(n):
            xs = [str(i) * 3 for i in range(n)]
            cache[n] = xs
            return len(''.join(xs))
      `,
      [[10], [5000], [200000]],
    );
    expect(kinds.every((k) => k === 'marked')).toBe(true);
  });

  it('covers strings handed in, deep recursion, memory growth and big buffers', async () => {
    const kinds = await passes(
      py`
        import sys
        sys.setrecursionlimit(5000)
        def depth(k):
            return 0 if k == 0 else 1 + depth(k - 1)
        def f(s, n):
            big = bytearray(n * 1024 * 1024)
            big[-1] = 1
            return [s.upper() * 2, depth(900), len(big), list(s.encode('utf-8')[:3])]
      `,
      [
        ['héllo wörld ✓ 𝄞', 1],
        ['x'.repeat(100_000), 20],
        ['', 3],
      ],
    );
    expect(kinds.every((k) => k === 'marked')).toBe(true);
  });

  it('covers the clock and random bytes, which JavaScript writes', async () => {
    const kinds = await passes(
      py`
        import os, random, time
        def f(k):
            t = time.time() + time.monotonic() + time.perf_counter()
            return [len(os.urandom(k)), random.random() < 2, t > 0]
      `,
      [[16], [3000]],
    );
    expect(kinds.every((k) => k === 'marked')).toBe(true);
  });

  it('falls back to a full restore after an import that writes without marks, and is exact either way', async () => {
    const kinds = await passes(
      py`
        import os
        def f(k):
            return os.stat('/').st_mode > 0 and k
      `,
      [[1], [2]],
    );
    expect(kinds.some((k) => k.startsWith('full: '))).toBe(true);
    // JavaScript copies a device's bytes straight into a buffer made at load:
    // no WebAssembly store touches those pages, so only the fall back to a
    // full restore puts them back.
    const read = await passes(
      py`
        import os
        buf = bytearray(200000)
        def f(k):
            with open('/dev/urandom', 'rb', buffering=0) as fh:
                return fh.readinto(buf) > k
      `,
      [[1], [2]],
    );
    expect(read.slice(0, -1).every((k) => k.startsWith('full: '))).toBe(true);
    // The next candidate's restores are marked again.
    const after = await passes('def f(x):\n    return [x] * 3\n', [[1], [2]]);
    expect(after.slice(0, -1).every((k) => k === 'marked')).toBe(true);
  });
});
