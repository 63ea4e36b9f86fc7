/**
 * JavaScript's measured runs (CandidateJob.measure, docs/METERING-JS.md),
 * through the engine as a worker runs it: the count is deterministic, sees
 * built-ins' work, grows with the input, starts each test from the state
 * after loading, and cannot be lowered by the candidate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JsEngine } from '../../src/engines/javascript/engine.js';
import { prepareCode } from '../../src/engines/javascript/prepare.js';
import type { CandidateOutcome, TestMeasure, TestOutcome } from '../../src/sandbox-host/protocol.js';
import { jsJob } from './js-job.js';

const engine = new JsEngine();
afterAll(() => engine.dispose());

async function ran(code: string, tests: unknown[][], options: { repetitions?: number; timeoutMs?: number } = {}) {
  const outcome: CandidateOutcome = await engine.run(jsJob(code, tests, { ...options, repetitions: options.repetitions ?? 2 }));
  if (outcome.kind !== 'ran') throw new Error(`did not run: ${outcome.message}`);
  return outcome;
}

function measureOf(test: TestOutcome | undefined): TestMeasure {
  if (test?.kind !== 'returned' || test.measure === undefined) throw new Error(`no measure: ${JSON.stringify(test)}`);
  return test.measure;
}

/** Cost of the one test of `code` on `args`. */
async function cost(code: string, args: unknown[]): Promise<number> {
  return measureOf((await ran(code, [args])).tests[0]).cost;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => (i * 7919) % n);

describe('the count', () => {
  it('is the same on every run and every repetition, with a time per repetition', async () => {
    const code = 'function f(a) { let s = 0; for (const x of a) s += x; return [...a].sort((x, y) => x - y)[0] + s; }';
    const one = await ran(code, [[range(500)], [range(50)]], { repetitions: 3 });
    // The second run in an engine of its own: a new isolate, nothing shared with the first.
    const other = new JsEngine();
    const outcome = await other.run(jsJob(code, [[range(500)], [range(50)]], { repetitions: 3 }));
    other.dispose();
    if (outcome.kind !== 'ran') throw new Error('did not run');
    const two = outcome;
    for (const [i, test] of one.tests.entries()) {
      const m = measureOf(test);
      expect(m.cost).toBeGreaterThan(0);
      expect(m.cost).toBe(measureOf(two.tests[i]).cost);
      expect(m.memory).toBe(measureOf(two.tests[i]).memory);
      expect(m.wallMs).toHaveLength(3);
      expect(m.cpuMs).toHaveLength(3);
    }
  });

  it('ranks includes in a loop above Set.has', async () => {
    const data = range(2000);
    const list = await cost('function f(a) { let n = 0; for (let i = 0; i < 2000; i++) if (a.includes(i)) n++; return n; }', [data]);
    const set = await cost('function f(a) { const s = new Set(a); let n = 0; for (let i = 0; i < 2000; i++) if (s.has(i)) n++; return n; }', [data]);
    expect(list).toBeGreaterThan(10 * set);
  });

  it('ranks sort above Math.min', async () => {
    const data = range(5000);
    const sorted = await cost('function f(a) { return a.slice().sort((x, y) => x - y)[0]; }', [data]);
    const min = await cost('function f(a) { return Math.min(...a); }', [data]);
    expect(sorted).toBeGreaterThan(5 * min);
    const plainSort = await cost('function f(a) { return a.sort()[0]; }', [data]);
    expect(plainSort).toBeGreaterThan(5 * min);
  });

  it('grows with the input: n against 4n', async () => {
    const code = 'function f(a) { const seen = new Map(); for (const x of a) seen.set(x, (seen.get(x) ?? 0) + 1); return seen.size; }';
    const small = await cost(code, [range(1000)]);
    const large = await cost(code, [range(4000)]);
    expect(large).toBeGreaterThan(3.5 * small);
    expect(large).toBeLessThan(4.5 * small);
  });

  it('counts the items of a spread iterator', async () => {
    const code = 'function f(a) { const m = new Map(a.map((x, i) => [i, x])); return [Math.max(...m.values()), [...m.keys()].length]; }';
    const small = await ran(code, [[range(1000)]]);
    const large = await ran(code, [[range(4000)]]);
    expect(large.tests[0]).toMatchObject({ kind: 'returned', json: '[3999,4000]' });
    expect(measureOf(large.tests[0]).cost).toBeGreaterThan(3.5 * measureOf(small.tests[0]).cost);
  });

  it('counts built-ins that scan strings and regular expressions', async () => {
    const short = 'a'.repeat(1000) + 'b';
    const long = 'a'.repeat(4000) + 'b';
    for (const code of [
      'function f(s) { return s.indexOf("b"); }',
      'function f(s) { return /b/.test(s); }',
      'function f(s) { return s.split("").length; }',
      'function f(s) { return JSON.stringify(s).length; }',
    ]) {
      expect(await cost(code, [long])).toBeGreaterThan(3 * (await cost(code, [short])));
    }
  });
});

describe('prepared code', () => {
  it('measures a TypeScript module as the supervisor prepares it', async () => {
    const prepared = await prepareCode(
      'const seen: Set<number> = new Set();\nexport function f(a: number[]): number { for (const x of a) seen.add(x); return seen.size; }',
      'typescript',
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const outcome = await engine.run({ ...jsJob(prepared.code, [[range(100)], [range(100)]], { repetitions: 2 }), topLevelNames: prepared.topLevelNames });
    if (outcome.kind !== 'ran') throw new Error(outcome.message);
    expect(outcome.tests.map((t) => (t.kind === 'returned' ? t.json : t.kind))).toEqual(['100', '100']);
    expect(measureOf(outcome.tests[0]).cost).toBe(measureOf(outcome.tests[1]).cost);
  });
});

describe('instrumented code', () => {
  it("keeps a 'use strict' directive in force, and sloppy code sloppy", async () => {
    const probe = 'function f() { return (function () { return this === undefined; })(); }';
    const strict = await ran(`'use strict'\n${probe}`, [[]]);
    const sloppy = await ran(probe, [[]]);
    expect(strict.tests[0]).toMatchObject({ kind: 'returned', json: 'true' });
    expect(sloppy.tests[0]).toMatchObject({ kind: 'returned', json: 'false' });
  });

  it('counts the copies a rest element or an object spread makes, as the same copy by slice is', async () => {
    // Each is the same quadratic algorithm: a copy of the rest of the list, or of the object so far, per item.
    const copies = [
      'function f(xs) { if (xs.length === 0) return 0; return xs[0] + f(xs.slice(1)); }',
      'function f([h, ...t]) { return h === undefined ? 0 : h + f(t); }',
      'const f = ([h, ...t]) => (h === undefined ? 0 : h + f(t));',
      'function f(xs) { if (xs.length === 0) return 0; const [h, ...t] = xs; return h + f(t); }',
      'function f(xs) { let h, t; if (xs.length === 0) return 0; [h, ...t] = xs; return h + f(t); }',
      'function f(xs) { let acc = {}; xs.forEach((x, i) => { acc = { ...acc, [i]: x }; }); return Object.keys(acc).length; }',
      'function f(xs) { let acc = {}; for (const x of xs) { const { [x]: _, ...others } = acc; acc = others; acc[x] = 1; acc = { ...acc }; } return 1; }',
    ];
    for (const code of copies) {
      const small = await cost(code, [range(200)]);
      const large = await cost(code, [range(800)]);
      // Linear work would grow about 4 times from 200 to 800 items; the copies make it about 16.
      expect(large, code).toBeGreaterThan(10 * small);
    }
  });

  it('counts a rest binding in a loop head and a catch clause, and answers as the code does', async () => {
    const code = `
      function f(rows) {
        let n = 0;
        for (const [k, ...vs] of rows) n += vs.length;
        for (const { a: [x, ...y], ...more } of rows.map((r) => ({ a: r, b: 1 }))) n += y.length + Object.keys(more).length;
        try { throw { message: 'm', ...rows[0] }; } catch ({ message, ...others }) { n += Object.keys(others).length; }
        return n;
      }`;
    const rows = (w: number) => Array.from({ length: 4 }, (_, i) => Array.from({ length: w }, (_, j) => i + j));
    const measured = await ran(code, [[rows(10)], [rows(400)]]);
    const normal = await ran(code, [[rows(10)], [rows(400)]], { repetitions: 0 });
    expect(measured.tests.map((t) => (t.kind === 'returned' ? t.json : t.kind))).toEqual(normal.tests.map((t) => (t.kind === 'returned' ? t.json : t.kind)));
    // vs and y alone take 4 × 390 more items each in the wider rows.
    expect(measureOf(measured.tests[1]).cost).toBeGreaterThan(measureOf(measured.tests[0]).cost + 2 * 4 * 390);
  });

  it('behaves as the code does in a normal run', async () => {
    const code = `
      class Grid { static of(n) { return new Grid(n); } constructor(n) { this.cells = Array.from({ length: n }, (_, i) => [i, ...[i * 2]]); } }
      const f = (n, ...rest) => { const g = Grid.of(n); let s = 0; outer: for (const [a, b] of g.cells) { switch (a % 3) { case 0: s += b; break; default: if (a > 5) continue outer; else s -= 1; } } try { s += JSON.parse('{"k":' + s + '}').k; } catch (e) { s = -1; } finally { s++; } return [s, rest.length, \`\${s}\`.padStart(6, '*')]; };`;
    const args = [[10], [50, 1, 2]];
    const measured = await ran(code, args);
    const normal = await ran(code, args, { repetitions: 0 });
    expect(normal.tests.map((t) => t.kind)).toEqual(['returned', 'returned']);
    expect(measured.tests.map((t) => (t.kind === 'returned' ? t.json : t.kind))).toEqual(normal.tests.map((t) => (t.kind === 'returned' ? t.json : t.kind)));
  });
});

describe('the memory figure', () => {
  it('grows with what the test allocates, and is the same on every run', async () => {
    const code = 'function f(a) { const doubled = a.map((x) => x * 2); const pairs = doubled.map((x) => [x, x + 1]); return pairs.length; }';
    const figure = async (n: number) => measureOf((await ran(code, [[range(n)]])).tests[0]).memory;
    const small = await figure(1000);
    const large = await figure(4000);
    expect(large).toBeGreaterThan(3.5 * small);
    expect(await figure(1000)).toBe(small);
  });

  it('counts arrays made by Array(n) and new Array(n) alike', async () => {
    const called = measureOf((await ran('function f(n) { return Array(n).fill(0).length; }', [[4000]])).tests[0]);
    const made = measureOf((await ran('function f(n) { return new Array(n).fill(0).length; }', [[4000]])).tests[0]);
    expect(called.memory).toBeGreaterThan(8 * 4000);
    expect(called.memory).toBe(made.memory);
  });

  it('counts new entries of a Map, not updates of one', async () => {
    const fresh = measureOf((await ran('function f(n) { const m = new Map(); for (let i = 0; i < n; i++) m.set(i, i); return m.size; }', [[1000]])).tests[0]);
    const same = measureOf((await ran('function f(n) { const m = new Map(); for (let i = 0; i < n; i++) m.set(0, i); return m.size; }', [[1000]])).tests[0]);
    expect(fresh.memory).toBeGreaterThan(same.memory + 1000 * 16);
  });
});

describe('state between tests', () => {
  it('gives a memoizing candidate the same cost on its second test as on its first', async () => {
    const code = `
      const cache = new Map();
      function fib(n) { if (n < 2) return n; if (cache.has(n)) return cache.get(n); const v = fib(n - 1) + fib(n - 2); cache.set(n, v); return v; }
      function f(n) { return fib(n); }`;
    const outcome = await ran(code, [[60], [60]]);
    expect(measureOf(outcome.tests[0]).cost).toBe(measureOf(outcome.tests[1]).cost);
    expect(measureOf(outcome.tests[0]).memory).toBe(measureOf(outcome.tests[1]).memory);
  });

  it('counts module-level work in load, not in the tests', async () => {
    const lazy = await ran('function f(n) { return n; }', [[1]]);
    const eager = await ran('const table = []; for (let i = 0; i < 10000; i++) table.push(i * i);\nfunction f(n) { return table[n]; }', [[3]]);
    expect(eager.load?.cost).toBeGreaterThan(10000);
    expect(eager.load!.cost).toBeGreaterThan(100 * lazy.load!.cost);
    expect(eager.load!.memory).toBeGreaterThan(8 * 10000);
    expect(eager.load!.wallMs.length).toBeGreaterThan(0);
    expect(measureOf(eager.tests[0]).cost).toBeLessThan(100);
  });
});
