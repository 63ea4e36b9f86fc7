/**
 * JavaScript's measured runs against candidates that try to lower their
 * figures (docs/METERING-JS.md): every attempt either still counts the work
 * or makes the run fail; and a measured run's verdicts are a normal run's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JsEngine } from '../../src/engines/javascript/engine.js';
import type { CandidateOutcome, TestMeasure, TestOutcome } from '../../src/sandbox-host/protocol.js';
import { jsJob } from './js-job.js';

const engine = new JsEngine();
afterAll(() => engine.dispose());

async function ran(code: string, tests: unknown[][], measured = true, timeoutMs?: number) {
  const outcome: CandidateOutcome = await engine.run(jsJob(code, tests, { repetitions: measured ? 2 : 0, ...(timeoutMs === undefined ? {} : { timeoutMs }) }));
  if (outcome.kind !== 'ran') throw new Error(`did not run: ${outcome.message}`);
  return outcome;
}

function measureOf(test: TestOutcome | undefined): TestMeasure {
  if (test?.kind !== 'returned' || test.measure === undefined) throw new Error(`no measure: ${JSON.stringify(test)}`);
  return test.measure;
}

async function returned(code: string, args: unknown[]): Promise<{ json: string; cost: number }> {
  const test = (await ran(code, [args])).tests[0];
  return { json: test?.kind === 'returned' ? test.json : JSON.stringify(test), cost: measureOf(test).cost };
}

const DATA = Array.from({ length: 1000 }, (_, i) => i);
const LOOP = 'let n = 0; for (let i = 0; i < 1000; i++) if (a.includes(i)) n++; return n;';

describe('the meter is out of reach', () => {
  it.each([
    ['reassigning the counter', `__evalrun_c = () => {}; function f(a) { ${LOOP} }`],
    ['declaring it first', `var __evalrun_c = () => {}; function f(a) { ${LOOP} }`],
    ['shadowing it in a function', `function f(a) { const __evalrun_c = () => {}; ${LOOP} }`],
    ['shadowing the spread helper', 'function f(a, __evalrun_s = (x) => x) { return Math.max(...a); }'],
    ['a with statement', `function f(a) { with ({}) { ${LOOP} } }`],
  ])('%s: the code is refused', async (_name, code) => {
    const outcome = await engine.run(jsJob(code, [[DATA]], { repetitions: 2 }));
    expect(outcome).toMatchObject({ kind: 'load-error', message: expect.stringMatching(/^cannot be measured: /) as unknown });
  });

  it('a with statement still runs in a normal run', async () => {
    const outcome = await ran('function f(a) { with ({ k: 2 }) { return a * k; } }', [[3]], false);
    expect(outcome.tests[0]).toMatchObject({ kind: 'returned', json: '6' });
  });

  it('the meter is no property of the global object', async () => {
    const code =
      "function f() { return Object.getOwnPropertyNames(globalThis).filter((n) => n.startsWith('__evalrun')).length + typeof globalThis['__evalrun_' + 'c']; }";
    expect((await returned(code, [])).json).toBe('"0undefined"');
  });

  it.each([
    ['eval', 'eval("1 + 1")'],
    ['indirect eval', '(0, eval)("1 + 1")'],
    ['the Function constructor', 'new Function("return 2")()'],
    ["a function's constructor", '(function () {}).constructor("return 2")()'],
    ["an async function's constructor", 'Object.getPrototypeOf(async function () {}).constructor("return 2")'],
    ["a generator's constructor", 'Object.getPrototypeOf(function* () {}).constructor("yield 2")'],
  ])('code made from strings with %s is refused', async (_name, expression) => {
    const outcome = await ran(`function f() { return ${expression}; }`, [[]]);
    expect(outcome.tests[0]).toMatchObject({ kind: 'threw', message: expect.stringMatching(/^EvalError: .* not available in a measured run/) as unknown });
  });

  it('replacing a built-in with code of its own is counted as that code', async () => {
    const plain = await returned(`function f(a) { ${LOOP} }`, [DATA]);
    const own = await returned(
      'Array.prototype.includes = function (x) { for (let i = 0; i < this.length; i++) if (this[i] === x) return true; return false; };\n' +
        `function f(a) { ${LOOP} }`,
      [DATA],
    );
    expect(own.json).toBe(plain.json);
    expect(own.cost).toBeGreaterThanOrEqual(plain.cost);
  });

  it('spoiling the intrinsics the meter uses changes nothing of its count', async () => {
    const body = `${LOOP.replace('return n;', '')} return n + a.slice().sort()[0];`;
    const plain = await returned(`function f(a) { ${body} }`, [DATA]);
    const spoiled = await returned(
      'function f(a) { Reflect.apply = () => 0; Function.prototype.apply = () => 0; Object.defineProperty = () => 0; ' +
        'Object.getOwnPropertyDescriptor = () => undefined; Array.isArray = () => false; Math.clz32 = () => 32; ' +
        `Array.prototype[Symbol.iterator] = function* () {}; ${body} }`,
      [DATA],
    );
    expect(spoiled.json).toBe(plain.json);
    expect(spoiled.cost).toBeGreaterThanOrEqual(plain.cost);
  });

  it('reaching the original through another name or a call is charged the same', async () => {
    const plain = await returned(`function f(a) { ${LOOP} }`, [DATA]);
    for (const alias of [
      'const inc = Object.getOwnPropertyDescriptor(Array.prototype, "includes").value; const has = (a, i) => inc.call(a, i);',
      'const has = (a, i) => Reflect.apply(Array.prototype.includes, a, [i]);',
      'const has = (a, i) => [].includes.apply(a, [i]);',
    ]) {
      const disguised = await returned(`${alias}\nfunction f(a) { let n = 0; for (let i = 0; i < 1000; i++) if (has(a, i)) n++; return n; }`, [DATA]);
      expect(disguised.json).toBe(plain.json);
      expect(disguised.cost).toBeGreaterThanOrEqual(plain.cost);
    }
  });

  it('a String method called on an object is charged the string it goes over', async () => {
    const text = 'a'.repeat(20000) + 'b';
    const plain = await returned('function f(s) { let n = 0; for (let i = 0; i < 20; i++) n += s.indexOf("b"); return n; }', [text]);
    const boxed = await returned(
      'function f(s) { const o = { toString: () => s }; let n = 0; for (let i = 0; i < 20; i++) n += String.prototype.indexOf.call(o, "b"); return n; }',
      [text],
    );
    expect(boxed.json).toBe(plain.json);
    expect(boxed.cost).toBeGreaterThanOrEqual(plain.cost);
  });

  it('work hidden in a getter of the returned value is counted', async () => {
    const direct = await returned('function f() { let s = 0; for (let i = 0; i < 10000; i++) s += i; return { x: s }; }', []);
    const hidden = await returned('function f() { return { get x() { let s = 0; for (let i = 0; i < 10000; i++) s += i; return s; } }; }', []);
    expect(hidden.json).toBe(direct.json);
    expect(hidden.cost).toBeGreaterThanOrEqual(direct.cost);
  });

  it('work deferred to a promise job at load time is counted in load', async () => {
    const outcome = await ran(
      'const t = []; Promise.resolve().then(() => { for (let i = 0; i < 10000; i++) t.push(i); });\nfunction f() { return t.length; }',
      [[]],
    );
    expect(outcome.tests[0]).toMatchObject({ kind: 'returned', json: '10000' });
    expect(outcome.load?.cost).toBeGreaterThan(10000);
  });

  it('work after an await is counted', async () => {
    const sync = await returned(`function f(a) { ${LOOP} }`, [DATA]);
    const deferred = await returned(`async function f(a) { await null; ${LOOP} }`, [DATA]);
    expect(deferred.json).toBe(sync.json);
    expect(deferred.cost).toBeGreaterThanOrEqual(sync.cost);
  });
});

describe('verdicts in a measured run', () => {
  const code = 'function f(x) { if (x === 1) throw new Error("one"); if (x === 2) for (;;); if (x === 3) return () => 1; return x * 2; }';

  it('are those of a normal run, and only returned tests carry figures', async () => {
    const tests = [[1], [2], [3], [4]];
    const measured = await ran(code, tests, true, 300);
    const normal = await ran(code, tests, false, 300);
    expect(measured.tests.map((t) => t.kind)).toEqual(['threw', 'timeout', 'unserializable', 'returned']);
    expect(normal.tests.map((t) => t.kind)).toEqual(measured.tests.map((t) => t.kind));
    expect(measured.tests[3]).toMatchObject({ json: '8', measure: { cost: expect.any(Number) as unknown } });
    for (const test of measured.tests.slice(0, 3)) expect(test).not.toHaveProperty('measure');
  });

  it('a normal run carries no figures', async () => {
    const normal = await ran('const big = Array.from({ length: 10 }, (_, i) => i);\nfunction f(x) { return big.map((v) => v * x); }', [[2]], false);
    expect(normal).not.toHaveProperty('load');
    expect(normal.tests[0]).toEqual({ kind: 'returned', json: '[0,2,4,6,8,10,12,14,16,18]', durationMs: expect.any(Number) as unknown });
  });
});
