/**
 * Measured runs of the Python engine (CandidateJob.measure,
 * docs/METERING.md): counts that repeat exactly, see the work done in
 * CPython's C code and at import, grow with the input, start every test
 * from the state after loading, and stay out of the candidate's reach. The
 * snapshot and metered module go to a folder of this test's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import type { CandidateOutcome, TestMeasure } from '../../src/sandbox-host/protocol.js';
import { py } from '../python-source.js';
import { pyJob, testsOf, type JobOptions } from './helpers.js';

let cacheDir: string;
let engine: PythonEngine;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'evalrun-meter-test-'));
  engine = await PythonEngine.create({ memoryMb: 256, cacheDir });
});

afterAll(() => {
  engine?.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

const measured = (code: string, tests: unknown[][], repetitions = 1, options: JobOptions = {}, on = engine): Promise<CandidateOutcome> =>
  on.run({ ...pyJob(code, tests, { memoryMb: 256, timeoutMs: 20_000, ...options }), measure: { repetitions } });

/** Each test's measure; fails unless every test returned with one. */
async function measures(code: string, tests: unknown[][], repetitions = 1): Promise<TestMeasure[]> {
  return testsOf(await measured(code, tests, repetitions)).map((t) => {
    if (t.kind !== 'returned' || t.measure === undefined) throw new Error(`expected a measured return, got ${JSON.stringify(t)}`);
    return t.measure;
  });
}

const costs = async (code: string, tests: unknown[][]): Promise<number[]> => (await measures(code, tests)).map((m) => m.cost);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const shuffled = (n: number): number[] => range(n).map((i) => (i * 7919) % n);
const membership = (n: number): unknown[] => [range(n), range(2 * n).filter((x) => x % 2 === 0)];

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

describe('a measured run', () => {
  it('gives the same cost and memory on every repetition, every run and another engine with another memory limit', async () => {
    const code = py`
      def f(xs):
          return sorted(x * 3 % 101 for x in xs)[:5]
    `;
    const tests = [[range(2000)], [range(50)]];
    const first = await measures(code, tests, 3);
    const second = await measures(code, tests, 3);
    // Another memory limit for the interpreter (what --memory sets) moves nothing the counts see.
    const other = await PythonEngine.create({ memoryMb: 512, wasmMemoryMb: 1024, cacheDir });
    let third: CandidateOutcome;
    try {
      third = await measured(code, tests, 3, {}, other);
    } finally {
      other.dispose();
    }
    const figures = (ms: TestMeasure[]): number[][] => ms.map((m) => [m.cost, m.memory]);
    expect(figures(second)).toEqual(figures(first));
    expect(testsOf(third).map((t) => (t.kind === 'returned' ? [t.measure?.cost, t.measure?.memory] : null))).toEqual(figures(first));
    for (const m of first) {
      expect(m.cost).toBeGreaterThan(0);
      expect(m.wallMs).toHaveLength(3);
      expect(m.cpuMs).toHaveLength(3);
    }
    expect(first[0]!.cost).toBeGreaterThan(first[1]!.cost);
  });

  it('counts and traces allocation-heavy tests the same on every pass', async () => {
    // Every pass of a test is counted under tracemalloc, whose own work is
    // left uncounted; a test carries a measure only when every pass counted
    // and peaked the same, so each must come back measured. The candidates
    // allocate, grow, shrink and free blocks of every size class
    // (pymalloc's small ones, the raw allocator's large ones, reallocations
    // in place and moved).
    const code = py`
      class Node:
          def __init__(self, value, rest):
              self.value = value
              self.rest = rest

      def f(kind, n):
          if kind == 'append':
              out = []
              for i in range(n):
                  out.append(i * i)
              return len(out)
          if kind == 'dict':
              d = {}
              for i in range(n):
                  d[str(i)] = [i] * (i % 7)
              return len(d)
          if kind == 'text':
              s = ''
              for i in range(n):
                  s += chr(65 + i % 26)
              return len(s.lower().split('a'))
          if kind == 'big':
              blocks = [bytes(1000 + i) for i in range(n // 10)]
              del blocks[::2]
              return sum(len(b) for b in blocks)
          if kind == 'sort':
              return sorted(range(n), key=lambda x: (x * 7919) % n)[:3]
          if kind == 'nodes':
              head = None
              for i in range(n):
                  head = Node(i, head)
              total = 0
              while head is not None:
                  total += head.value
                  head = head.rest
              return total
          if kind == 'sets':
              a = set(range(n))
              b = {x * 2 for x in range(n)}
              return len(a & b) + len(a | b)
          if kind == 'raise':
              caught = 0
              for i in range(n // 10):
                  try:
                      raise KeyError(i)
                  except KeyError:
                      caught += 1
              return caught
          return None
    `;
    const kinds = ['append', 'dict', 'text', 'big', 'sort', 'nodes', 'sets', 'raise'];
    const tests = kinds.flatMap((kind) => [
      [kind, 300],
      [kind, 5_000],
    ]);
    const figures = await measures(code, tests, 3);
    expect(figures).toHaveLength(tests.length);
    for (const m of figures) expect(m.wallMs).toHaveLength(3);
    const big = figures[kinds.indexOf('big') * 2 + 1];
    expect(big?.memory).toBeGreaterThan(200 * 1000);
  });

  it('ranks `x in a_list` in a loop above `x in a_set`', async () => {
    const [list = 0] = await costs(IN_LIST, [membership(300)]);
    const [set = 0] = await costs(IN_SET, [membership(300)]);
    expect(list).toBeGreaterThan(5 * set);
  });

  it('ranks sorted() of a large list above min(), though both are one call into C', async () => {
    const [sorted = 0] = await costs('def f(xs):\n    return sorted(xs)[0]\n', [[shuffled(20_000)]]);
    const [min = 0] = await costs('def f(xs):\n    return min(xs)\n', [[shuffled(20_000)]]);
    expect(sorted).toBeGreaterThan(min);
  });

  it('grows with the input: about 4 times for 4n, more for a quadratic candidate', async () => {
    const [n = 0, n4 = 0] = await costs('def f(n):\n    return sum(range(n))\n', [[10_000], [40_000]]);
    expect(n4 / n).toBeGreaterThan(3.5);
    expect(n4 / n).toBeLessThan(4.5);
    const [m = 0, m4 = 0] = await costs(IN_LIST, [membership(200), membership(800)]);
    expect(m4 / m).toBeGreaterThan(12);
  });

  it('starts every test from the state after loading: a memoized function costs the same on its second test', async () => {
    const code = py`
      import functools

      @functools.lru_cache(maxsize=None)
      def fib(n):
          return n if n < 2 else fib(n - 1) + fib(n - 2)

      def f(n):
          return fib(n)
    `;
    const [a, b] = await measures(code, [[25], [25]]);
    expect(b?.cost).toBe(a?.cost);
    expect(b?.memory).toBe(a?.memory);
    // Without the restore, the second call would be one cache hit, which costs about what fib(1) does.
    const [hit] = await measures(code, [[1]]);
    expect(b?.cost).toBeGreaterThan(3 * (hit?.cost ?? Infinity));
  });

  it('counts module-level work in the load, not in the tests', async () => {
    const heavy = await measured('TABLE = sorted(range(50_000), key=lambda x: -x)\n\ndef f():\n    return 1\n', [[]]);
    const light = await measured('def f():\n    return 1\n', [[]]);
    if (heavy.kind !== 'ran' || light.kind !== 'ran') throw new Error('expected both to run');
    expect(heavy.load?.cost).toBeGreaterThan(100 * (light.load?.cost ?? Infinity));
    expect(heavy.load?.memory).toBeGreaterThan(50_000 * 4);
    expect(heavy.load?.wallMs).toHaveLength(1);
    const [heavyTest, lightTest] = [testsOf(heavy)[0], testsOf(light)[0]];
    expect(heavyTest?.kind === 'returned' && heavyTest.measure?.cost).toBe(lightTest?.kind === 'returned' && lightTest.measure?.cost);
  });

  it('measures memory as the peak of traced allocations, growing with what a test allocates', async () => {
    const code = 'def f(n):\n    a = [0] * n\n    return len(a)\n';
    const [small, large] = await measures(code, [[1_000], [100_000]]);
    expect(large?.memory).toBeGreaterThanOrEqual(100_000 * 4);
    expect(large?.memory).toBeGreaterThan(50 * (small?.memory ?? Infinity));
  });

  it('keeps tracemalloc out of reach: a candidate cannot stop it or lower its peak', async () => {
    const code = py`
      import sys

      def f(n):
          a = [0] * n
          reached = []
          for name in ('tracemalloc', '_tracemalloc'):
              try:
                  m = __import__(name)
                  m.stop(); m.reset_peak(); m.clear_traces()
                  reached.append(name)
              except ModuleNotFoundError:
                  pass
              if name in sys.modules:
                  reached.append('sys.modules: ' + name)
          import importlib.machinery
          if importlib.machinery.BuiltinImporter.find_spec('_tracemalloc') is not None:
              reached.append('BuiltinImporter')
          del a
          return reached
    `;
    const outcome = await measured(code, [[100_000]]);
    const [test] = testsOf(outcome);
    expect(test).toMatchObject({ kind: 'returned', json: '[]' });
    expect(test?.kind === 'returned' && test.measure?.memory).toBeGreaterThanOrEqual(100_000 * 4);
  });

  it('keeps the counter out of reach: no module holds it, and the routes to JavaScript are sealed', async () => {
    const code = py`
      import sys

      def f():
          out = []
          for name in ('js', 'pyodide_js', 'pyodide.ffi', '_pyodide_core'):
              try:
                  __import__(name)
                  out.append(name)
              except ModuleNotFoundError:
                  pass
          for name, module in list(sys.modules.items()):
              if module is not None and hasattr(module, 'evalrun_meter'):
                  out.append(name)
          return out
    `;
    const [test] = testsOf(await measured(code, [[]]));
    expect(test).toMatchObject({ kind: 'returned', json: '[]' });
  });

  it('gives failing and timing-out tests their normal verdict, and measures the tests around them', async () => {
    const code = py`
      def f(kind):
          if kind == 'raise':
              raise ValueError('no')
          if kind == 'loop':
              while True:
                  pass
          return kind
    `;
    const tests = testsOf(await measured(code, [['a'], ['raise'], ['loop'], ['b']], 2, { timeoutMs: 1000 }));
    expect(tests.map((t) => t.kind)).toEqual(['returned', 'threw', 'timeout', 'returned']);
    expect(tests[1]).toMatchObject({ message: expect.stringContaining('ValueError') as unknown });
    for (const t of [tests[0], tests[3]]) expect(t?.kind === 'returned' && t.measure?.cost).toBeGreaterThan(0);
  });

  it('leaves a run that is not measured without figures', async () => {
    const outcome = await engine.run(pyJob('def f():\n    return 1\n', [[]]));
    expect(outcome.kind === 'ran' && outcome.load).toBeUndefined();
    expect(testsOf(outcome)[0]).not.toHaveProperty('measure');
  });
});
