/**
 * Which function a JavaScript candidate's tests call (README: `function_name`,
 * else a method of that name on a class, else the last function the code
 * defines), and what becomes of a value it returns that has no JSON form,
 * through the engine as a worker runs it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JsEngine } from '../../src/engines/javascript/engine.js';
import { prepareCode } from '../../src/engines/javascript/prepare.js';
import type { CandidateOutcome, TestOutcome } from '../../src/sandbox-host/protocol.js';
import { jsJob } from './js-job.js';

const engine = new JsEngine();
afterAll(() => engine.dispose());

/** Runs `code` as a worker would: prepared first, which finds the names it defines at top level. */
async function ran(code: string, tests: unknown[][], functionName = 'f'): Promise<{ entryPoint: string | undefined; tests: TestOutcome[] }> {
  const prepared = await prepareCode(code, 'javascript');
  if (!prepared.ok) throw new Error(`did not prepare: ${prepared.error}`);
  const outcome: CandidateOutcome = await engine.run({ ...jsJob(prepared.code, tests), functionName, topLevelNames: prepared.topLevelNames ?? [] });
  if (outcome.kind !== 'ran') throw new Error(`did not run: ${outcome.message}`);
  return { entryPoint: outcome.entryPoint, tests: outcome.tests };
}

const values = (tests: readonly TestOutcome[]): unknown[] => tests.map((t) => (t.kind === 'returned' ? (JSON.parse(t.json) as unknown) : `${t.kind}`));

describe('the entry point of a JavaScript candidate', () => {
  it('is a method of a class when no function has the name, called on a new instance for each test', async () => {
    const code = 'class Solution {\n  constructor() { this.calls = 0; }\n  f(x) { this.calls++; return x * 10 + this.calls; }\n}';
    const out = await ran(code, [[1], [2], [3]]);
    expect(out.entryPoint).toBe('method Solution.f');
    expect(values(out.tests)).toEqual([11, 21, 31]);
  });

  it('prefers the class method to a helper function defined after the class', async () => {
    const code = 'class Solution { f(x) { return helper(x) + 1; } }\nfunction helper(x) { return x * 2; }';
    const out = await ran(code, [[4]]);
    expect(out.entryPoint).toBe('method Solution.f');
    expect(values(out.tests)).toEqual([9]);
  });

  it('prefers a static method, and a declaration of the name, to a method', async () => {
    const statics = await ran('class A { f(x) { return "method"; } }\nclass B { static f(x) { return "static"; } }', [[0]]);
    expect(statics.entryPoint).toBe('static method B.f');
    expect(values(statics.tests)).toEqual(['static']);
    const declared = await ran('class A { f(x) { return "method"; } }\nfunction f(x) { return "declared"; }', [[0]]);
    expect(declared.entryPoint).toBe('declaration:f');
    expect(values(declared.tests)).toEqual(['declared']);
  });

  it('is the camelCase spelling of a name asked for in snake_case, before the last function', async () => {
    const declared = await ran('function sumSq(n) { return n * n; }\nfunction main() { console.log(sumSq(3)); }\nmain();', [[3]], 'sum_sq');
    expect(declared.entryPoint).toBe('declaration:sumSq');
    expect(values(declared.tests)).toEqual([9]);
    const method = await ran('class Solution { sumSq(n) { return n + 1; } }\nfunction helper() {}', [[3]], 'sum_sq');
    expect(method.entryPoint).toBe('method Solution.sumSq');
    expect(values(method.tests)).toEqual([4]);
    // Beside another function, the camelCase one may be its helper: the rules after it choose.
    const helper = await ran(
      'function toBinary(n) { return n ? toBinary(n >> 1) + (n & 1) : ""; }\nfunction convertToBinary(n) { return n ? toBinary(n) : "0"; }',
      [[0]],
      'to_binary',
    );
    expect(helper.entryPoint).toBe('last top-level function:convertToBinary');
    expect(values(helper.tests)).toEqual(['0']);
    // The name as asked wins over its camelCase spelling; a leading underscore stays.
    expect((await ran('function sum_sq(n) { return 1; }\nfunction sumSq(n) { return 2; }', [[0]], 'sum_sq')).entryPoint).toBe('declaration:sum_sq');
    expect((await ran('function _sumSq(n) { return 1; }\nfunction main() {}', [[0]], '_sum_sq')).entryPoint).toBe('declaration:_sumSq');
  });

  it('fails the test whose instance cannot be made, as the constructor threw', async () => {
    const code = 'let made = 0;\nclass Solution {\n  constructor() { if (++made === 2) throw new Error("second"); }\n  f(x) { return x; }\n}';
    const out = await ran(code, [[1], [2], [3]]);
    expect(out.tests.map((t) => t.kind)).toEqual(['returned', 'threw', 'returned']);
    const second = out.tests[1];
    expect(second?.kind === 'threw' ? second.message : '').toMatch(/second/);
  });

  it('passes over a class whose constructor takes arguments, for the function that makes one', async () => {
    const code =
      'class WordCounter {\n  constructor(text) { this.text = text; }\n  f() { return this.text.split(" ").length; }\n}\nfunction countWords(text) { return new WordCounter(text).f(); }';
    const out = await ran(code, [['a b c']]);
    expect(out.entryPoint).toBe('last top-level function:countWords');
    expect(values(out.tests)).toEqual([3]);
  });

  it('finds an inherited method only through a class that defines it', async () => {
    const code = 'class Base { f(x) { return "base"; } }\nclass Child extends Base {}';
    const out = await ran(code, [[0]]);
    expect(out.entryPoint).toBe('method Base.f');
    expect(values(out.tests)).toEqual(['base']);
  });
});

describe('a JavaScript value with no JSON form', () => {
  it('is an error that says what it is: a wrapper object, an iterator, a generator', async () => {
    const code = [
      'function f(k) {',
      '  if (k === 0) return new String("ab");',
      '  if (k === 1) return new Number(1);',
      '  if (k === 2) return (function* () { yield 1; })();',
      '  if (k === 3) return [1, 2].values();',
      '  if (k === 4) return new Map([[1, 2]]).keys();',
      '  return Object(1n);',
      '}',
    ].join('\n');
    const out = await ran(code, [[0], [1], [2], [3], [4], [5]]);
    expect(out.tests.map((t) => (t.kind === 'unserializable' ? t.message : t.kind))).toEqual([
      'returned a String object, not the primitive it wraps',
      'returned a Number object, not the primitive it wraps',
      'returned an iterator or generator, not its values',
      'returned an iterator or generator, not its values',
      'returned an iterator or generator, not its values',
      'returned a BigInt object, not the primitive it wraps',
    ]);
  });
});

describe('a JavaScript value as it is recorded', () => {
  it('is an error when it is an instance of a class, whatever its own keys', async () => {
    const code = [
      'class Point { constructor() { this.a = 1; } }',
      'function f(k) {',
      '  if (k === 0) return new Point();',
      '  if (k === 1) return Object.assign(new Error("e"), { a: 1 });',
      '  if (k === 2) return new WeakMap();',
      '  if (k === 3) return Object.assign(Object.create(null), { a: 1 });',
      '  return { a: 1 };',
      '}',
    ].join('\n');
    const out = await ran(code, [[0], [1], [2], [3], [4]]);
    expect(out.tests.map((t) => (t.kind === 'unserializable' ? t.message : t.kind === 'returned' ? t.json : t.kind))).toEqual([
      'returned an object of class Point, not a plain object',
      'returned an object of class Error, not a plain object',
      'returned an object of class WeakMap, not a plain object',
      '{"a":1}',
      '{"a":1}',
    ]);
  });

  it('writes a whole number past 2**53 with every digit of the int it is, and arrays in a Set or Map keys as tuples', async () => {
    const code = [
      'function f(k) {',
      '  if (k === 0) return 2 ** 63;',
      '  if (k === 1) return [-(2 ** 60), 2 ** 53 - 1];',
      '  if (k === 2) return new Set([[1, [2]], new Set([3])]);',
      '  if (k === 3) return new Map([[[1, 2], "a"]]);',
      '  return [1e300 * 1.001, -1e21];',
      '}',
    ].join('\n');
    const out = await ran(code, [[0], [1], [2], [3], [4]]);
    expect(out.tests.map((t) => (t.kind === 'returned' ? t.json : t.kind))).toEqual([
      '{"$evalrun":"int","value":"9223372036854775808"}',
      '[{"$evalrun":"int","value":"-1152921504606846976"},9007199254740991]',
      '{"$evalrun":"set","items":[{"$evalrun":"tuple","items":[1,{"$evalrun":"tuple","items":[2]}]},{"$evalrun":"frozenset","items":[3]}]}',
      '{"$evalrun":"dict","entries":[[{"$evalrun":"tuple","items":[1,2]},"a"]]}',
      // Past 1e21 the exponent form names the number exactly, as JavaScript writes it.
      '[1.001e+300,-1e+21]',
    ]);
  });
});
