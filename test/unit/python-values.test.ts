/**
 * The rules of docs/VALUES.md, one by one: exact integers from file text to
 * comparison, Python's kinds by declared type, the wire forms each language
 * reads, Python's number equality and --strict-types, and the forged-pass
 * paths that must fail.
 */
import { describe, expect, it } from 'vitest';
import { checkJsonStructure, type ExactNumber } from '../../src/problems/json-structure.js';
import { restoreExactNumbers } from '../../src/problems/exact-json.js';
import { wheelKind } from '../../src/engines/python/packages.js';
import { judge } from '../../src/sandbox-host/judge.js';
import { compareValues, DEFAULT_TOLERANCE, type Equality } from '../../src/values/compare.js';
import { decodeValue } from '../../src/values/decode.js';
import { parseExactJson } from '../../src/problems/exact-json.js';
import { floatValue, pythonFloatRepr } from '../../src/values/py-tags.js';
import { parseType } from '../../src/values/type-grammar.js';
import type { Value } from '../../src/values/type-node.js';
import { decodeWire, encodeWire, recordJson } from '../../src/values/wire.js';

const T = (...items: Value[]): Value => ({ $evalrun: 'tuple', items });
const S = (...items: Value[]): Value => ({ $evalrun: 'set', items });
const F = (...items: Value[]): Value => ({ $evalrun: 'frozenset', items });
const D = (...entries: [Value, Value][]): Value => ({ $evalrun: 'dict', entries });
const FL = (value: string): Value => ({ $evalrun: 'float', value });

function equal(expected: Value, actual: Value, type: string, equality: Equality): boolean {
  return compareValues(expected, actual, parseType(type), DEFAULT_TOLERANCE, equality).equal;
}

function decoded(raw: unknown, type: string): Value {
  const result = decodeValue(raw, parseType(type));
  if (!result.ok) throw new Error(`expected ${result.expected}, got ${result.got}`);
  return result.value;
}

describe('integers in problem files', () => {
  function parse(text: string): unknown {
    const long: ExactNumber[] = [];
    expect(checkJsonStructure(text, 1000, long)).toEqual([]);
    return restoreExactNumbers(JSON.parse(text), long);
  }

  it('keeps every digit of an integer JSON.parse would round, wherever it is', () => {
    expect(parse('{"a": [1, -9999999999999999, {"b": 100000000000000000001}]}')).toEqual({
      a: [1, -9999999999999999n, { b: 100000000000000000001n }],
    });
    expect(parse('123456789012345678901234567890')).toBe(123456789012345678901234567890n);
  });

  it('leaves alone what a double holds exactly and digits inside strings, and keeps a float with an integral value a float', () => {
    const doc = parse('{"n": 9007199254740991, "f": 1.00000000000000000001, "e": 1e30, "s": "12345678901234567890", "h": 0.5}') as Record<string, unknown>;
    expect(doc).toEqual({ n: 9007199254740991, f: FL('1.0'), e: FL('1e+30'), s: '12345678901234567890', h: 0.5 });
    expect(parse('[3.0, 3, -0, -0.0, 1e2, 2.5]')).toEqual([FL('3.0'), 3, 0, FL('-0.0'), FL('100.0'), 2.5]);
    expect(Object.is((parse('[-0]') as number[])[0], 0)).toBe(true);
    expect(parse('3.0')).toEqual(FL('3.0'));
  });

  it('reads integers written as strings or Python literals exactly too', () => {
    expect(decoded('-9999999999999999', 'int')).toBe(-9999999999999999n);
    expect(decoded('[100000000000000000001, 2]', 'List[int]')).toEqual([100000000000000000001n, 2]);
    // A bare top-level float makes an int a float (float tag 1e+20); a bare int makes an integral float an int.
    expect(decoded(100000000000000000001n, 'float')).toEqual(FL('1e+20'));
    expect(decoded(FL('1e+20'), 'int')).toBe(100000000000000000000n);
    expect(decoded(1e20, 'int')).toBe(100000000000000000000n);
    // Nested, a number keeps its kind: the bigint stays an int.
    expect(decoded([100000000000000000001n], 'List[float]')).toEqual([100000000000000000001n]);
  });
});

describe('Python kinds by declared type', () => {
  it.each<[unknown, string, Value]>([
    [[[1, 'a']], 'List[Tuple[int, str]]', [T(1, 'a')]],
    [[[1, 2]], 'Set[Tuple[int, int]]', S(T(1, 2))],
    [[1], 'FrozenSet[int]', F(1)],
    [{ '1': 'a', '2': 'b' }, 'Dict[int, str]', D([1, 'a'], [2, 'b'])],
    [{ '(1, 2)': true }, 'Dict[Tuple[int, int], bool]', D([T(1, 2), true])],
    [{ a: [[1, 2]] }, 'Dict[str, List[Tuple[int, int]]]', { a: [T(1, 2)] }],
    ['[(1, 2), {3}]', 'List[Any]', [T(1, 2), S(3)]],
    [3, 'Union[float, int]', 3],
    ['7', 'Union[float, int]', 7],
    ['7.0', 'Union[int, float]', FL('7.0')],
    ['7', 'Union[int, str]', 7],
    [3, 'float', FL('3.0')],
    [3, 'Optional[float]', FL('3.0')],
    [[5, 4], 'List[float]', [5, 4]],
    ['[3.0, 3]', 'List[Any]', [FL('3.0'), 3]],
    ['(1.0, 2)', 'Tuple[float, float]', T(FL('1.0'), 2)],
    // A problem's own "$evalrun" key is data, wherever it is written.
    [{ $evalrun: 'tuple', items: [1] }, 'Any', D(['$evalrun', 'tuple'], ['items', [1]])],
    [[{ a: { $evalrun: 1 } }], 'List[Any]', [{ a: D(['$evalrun', 1]) }]],
    ['{"$evalrun": "set", "items": []}', 'Dict[str, Any]', D(['$evalrun', 'set'], ['items', []])],
  ])('%j as %s', (raw, type, value) => {
    expect(decoded(raw, type)).toEqual(value);
  });

  it('writes an integral float as a float for Python because the value is one, and leaves JavaScript its numbers', () => {
    // The kind comes from the value: a float tag is a float, a plain integral number an int, whatever the declared type.
    const value = T(FL('3.0'), [FL('1.0'), 2.5], 4);
    expect(encodeWire(value, 'python')).toBe('{"$evalrun":"tuple","items":[{"$evalrun":"float","value":"3.0"},[{"$evalrun":"float","value":"1.0"},2.5],4]}');
    expect(encodeWire(decoded('(3.0, [1.0, 2.5], 4)', 'Tuple[float, List[float], int]'), 'python')).toBe(encodeWire(value, 'python'));
    expect(encodeWire([FL('3.0'), FL('2.0')], 'python')).toBe('[{"$evalrun":"float","value":"3.0"},{"$evalrun":"float","value":"2.0"}]');
    // An int stays an int, also where List[float] is declared (as in the problem file).
    expect(encodeWire(decoded([3, 2], 'List[float]'), 'python')).toBe('[3,2]');
    // A bare top-level float was made a float when decoded.
    expect(encodeWire(decoded(3, 'float'), 'python')).toBe('{"$evalrun":"float","value":"3.0"}');
    expect(encodeWire(value, 'javascript')).toBe('[3,[1,2.5],4]');
  });

  it('writes each kind for its reader', () => {
    const value = [T(1, 2), S(3), D([T(1, 2), 'x']), D([1, 'a']), 2n ** 70n] as Value;
    expect(encodeWire(value, 'python')).toBe(
      '[{"$evalrun":"tuple","items":[1,2]},{"$evalrun":"set","items":[3]},{"$evalrun":"dict","entries":[[{"$evalrun":"tuple","items":[1,2]},"x"]]},' +
        '{"$evalrun":"dict","entries":[[1,"a"]]},{"$evalrun":"int","value":"1180591620717411303424"}]',
    );
    // What the JavaScript harness writes back for the same values.
    expect(encodeWire(value, 'javascript-result')).toBe(
      '[[1,2],{"$evalrun":"set","items":[3]},{"$evalrun":"dict","entries":[[[1,2],"x"]]},{"1":"a"},{"$evalrun":"int","value":"1180591620717411303424"}]',
    );
  });

  it('round-trips every tag, and rejects malformed ones', () => {
    const value = [T(1, S(2)), F(), D([null, 1]), 2n ** 64n, -(2n ** 64n)] as Value;
    expect(decodeWire(encodeWire(value))).toEqual({ ok: true, value });
    expect(decodeWire('{"$evalrun":"int","value":"12"}')).toEqual({ ok: true, value: 12 });
    // A float keeps its kind on the way back, always: integral, -0.0 and non-finite ones are float tags.
    expect(decodeWire('{"$evalrun":"float","value":"3.0"}')).toEqual({ ok: true, value: FL('3.0') });
    expect(decodeWire('{"$evalrun":"float","value":"-0.0"}')).toEqual({ ok: true, value: FL('-0.0') });
    expect(decodeWire('{"$evalrun":"float","value":"NaN"}')).toEqual({ ok: true, value: FL('NaN') });
    expect(decodeWire('{"$evalrun":"float","value":"0.5"}')).toEqual({ ok: true, value: 0.5 });
    const floats = [FL('3.0'), FL('-0.0'), FL('NaN'), FL('Infinity'), FL('-Infinity'), 0.5] as Value;
    expect(decodeWire(encodeWire(floats))).toEqual({ ok: true, value: floats });
    for (const bad of [
      '{"$evalrun":"int","value":"1.5"}',
      '{"$evalrun":"tuple","items":1}',
      '{"$evalrun":"float","value":"x"}',
      '{"$evalrun":"dict","entries":[[1,2,3]]}',
    ]) {
      expect(decodeWire(bad).ok).toBe(false);
    }
  });

  it('writes Python floats as repr does', () => {
    expect([3, -0, 1e16, 1.5e-7, 1e21, 0.1].map(pythonFloatRepr)).toEqual(['3.0', '-0.0', '1e+16', '1.5e-07', '1e+21', '0.1']);
    expect([0, 1e-5, 1e-4, 123456789012345.6, 9999999999999998, 1.5e300, -2.5e-10, NaN, Infinity, -Infinity].map(pythonFloatRepr)).toEqual([
      '0.0',
      '1e-05',
      '0.0001',
      '123456789012345.6',
      '9999999999999998.0',
      '1.5e+300',
      '-2.5e-10',
      'NaN',
      'Infinity',
      '-Infinity',
    ]);
  });

  it('holds a float in one host form: a plain number only when finite and not integral', () => {
    expect(floatValue(2.5)).toBe(2.5);
    expect(floatValue(-0.1)).toBe(-0.1);
    expect(floatValue(3)).toEqual(FL('3.0'));
    expect(floatValue(-0)).toEqual(FL('-0.0'));
    expect(floatValue(0)).toEqual(FL('0.0'));
    expect(floatValue(NaN)).toEqual(FL('NaN'));
    expect(floatValue(-Infinity)).toEqual(FL('-Infinity'));
    expect(floatValue(1e16)).toEqual(FL('1e+16'));
  });

  it('writes exact integers into records as int tags with every digit, and reads them back', () => {
    const record = { a: [2n ** 80n, -5n], b: 'x' };
    const text = recordJson(record);
    expect(text).toBe('{"a":[{"$evalrun":"int","value":"1208925819614629174706176"},{"$evalrun":"int","value":"-5"}],"b":"x"}');
    // A small int written as a tag comes back a plain number, its one host form.
    expect(parseExactJson(text)).toEqual({ a: [2n ** 80n, -5], b: 'x' });
    expect(recordJson({ a: 1 })).toBe('{"a":1}');
    // A string that looks like a marker or a tag is a string.
    expect(recordJson(['\u0000evalrun-int-1:5', 1n])).toBe('["\\u0000evalrun-int-1:5",{"$evalrun":"int","value":"1"}]');
    expect(parseExactJson(recordJson(['{"$evalrun":"int","value":"5"}', 1n]))).toEqual(['{"$evalrun":"int","value":"5"}', 1]);
  });
});

describe('comparison', () => {
  it('compares integers exactly, at any size, also with a float (hostile pairs)', () => {
    const big = 10n ** 20n + 1n;
    for (const equality of ['python', 'strict', 'javascript'] as const) {
      expect(equal(big, big, 'int', equality)).toBe(true);
      expect(equal(big, big + 1n, 'int', equality)).toBe(false);
      expect(equal(big, 1e20, 'int', equality)).toBe(false);
      expect(equal(big, FL('1e+20'), 'int', equality)).toBe(false);
      expect(equal([big], [1e20], 'List[int]', equality)).toBe(false);
      expect(equal(big, 1e20, 'Any', equality)).toBe(false);
      expect(equal(S(big), S(big - 1n), 'Set[int]', equality)).toBe(false);
    }
    expect(equal(10n ** 20n, 1e20, 'int', 'python')).toBe(true);
  });

  it("judges Python numbers with Python's equality: True == 1 == 1.0", () => {
    expect(equal(true, 1, 'bool', 'python')).toBe(true);
    expect(equal(1, true, 'int', 'python')).toBe(true);
    expect(equal(3, FL('3.0'), 'int', 'python')).toBe(true);
    expect(equal(3, 3, 'float', 'python')).toBe(true);
    expect(equal(T(true, 3, 3), T(1, FL('3.0'), 3), 'Tuple[bool, float, int]', 'python')).toBe(true);
    expect(equal(true, 2, 'bool', 'python')).toBe(false);
    expect(equal(3, 3.5, 'int', 'python')).toBe(false);
    expect(equal([true], [1], 'Any', 'python')).toBe(true);
  });

  it('keeps bool, int and float apart with --strict-types', () => {
    expect(equal(true, 1, 'bool', 'strict')).toBe(false);
    expect(equal(1, true, 'int', 'strict')).toBe(false);
    expect(equal(3, FL('3.0'), 'int', 'strict')).toBe(false);
    // The expected value's own kind decides: a float 3.0 wants a float, an int 3 (List[float] holding 3) an int.
    expect(equal(FL('3.0'), 3, 'float', 'strict')).toBe(false);
    expect(equal(FL('3.0'), FL('3.0'), 'float', 'strict')).toBe(true);
    expect(equal(3, 3, 'float', 'strict')).toBe(true);
    expect(equal(3, FL('3.0'), 'float', 'strict')).toBe(false);
    expect(equal([3, FL('4.0')], [3, FL('4.0')], 'List[float]', 'strict')).toBe(true);
    expect(equal([3, FL('4.0')], [FL('3.0'), 4], 'List[float]', 'strict')).toBe(false);
    expect(equal(2.5, 2.5, 'float', 'strict')).toBe(true);
    expect(equal([3], [FL('3.0')], 'Any', 'strict')).toBe(false);
    expect(equal(FL('NaN'), FL('NaN'), 'float', 'strict')).toBe(true);
  });

  it('keeps JavaScript rules for JavaScript candidates', () => {
    expect(equal(true, 1, 'bool', 'javascript')).toBe(false);
    expect(equal(3, 3, 'float', 'javascript')).toBe(true);
  });

  it('reads dict keys by the key type: a Python str key is not an int key, a JavaScript property name is', () => {
    const expected = D([1, 'a']);
    expect(equal(expected, D([1, 'a']), 'Dict[int, str]', 'python')).toBe(true);
    expect(equal(expected, D([true, 'a']), 'Dict[int, str]', 'python')).toBe(true);
    expect(equal(expected, { '1': 'a' }, 'Dict[int, str]', 'python')).toBe(false);
    expect(equal(expected, { '1': 'a' }, 'Dict[int, str]', 'javascript')).toBe(true);
    expect(equal(D([T(1, 2), true]), D([T(1, 2), true]), 'Dict[Tuple[int, int], bool]', 'python')).toBe(true);
    expect(equal(D([T(1, 2), true]), D([[1, 2], true]), 'Dict[Tuple[int, int], bool]', 'javascript')).toBe(true);
    expect(equal(D([T(1, 2), true]), D([T(2, 1), true]), 'Dict[Tuple[int, int], bool]', 'python')).toBe(false);
    // Without a key type, keys compare as JSON writes them, as the reference framework did.
    expect(equal({ '1': 'a' }, D([1, 'a']), 'dict', 'python')).toBe(true);
  });

  it('compares sets without order, a set with a frozenset, and a tuple with a list', () => {
    expect(equal(S(T(1, 2), T(3, 4)), S(T(3, 4), T(1, 2)), 'Set[Tuple[int, int]]', 'python')).toBe(true);
    expect(equal(S(1, 2), F(2, 1), 'Set[int]', 'python')).toBe(true);
    expect(equal(S(1, 2), [2, 1], 'Set[int]', 'javascript')).toBe(true);
    // A list or tuple returned for a declared set is judged as set(value) under Python's rule, refused under strict types.
    expect(equal(S(5, 6, 8), [8, 6, 5, 5], 'Set[int]', 'python')).toBe(true);
    expect(equal(S(5, 6, 8), T(8, 6, 5, 5), 'Set[int]', 'python')).toBe(true);
    expect(equal(S(5, 6, 8), [8, 6, 5], 'Set[int]', 'strict')).toBe(false);
    expect(equal(S(5, 6, 8), T(8, 6, 5), 'Set[int]', 'strict')).toBe(false);
    expect(equal(S(5, 6, 8), F(8, 6, 5), 'Set[int]', 'strict')).toBe(true);
    expect(equal(T(1, 2), [1, 2], 'Tuple[int, int]', 'python')).toBe(true);
    expect(equal([T(1, 2)], [[1, 2]], 'List[Tuple[int, int]]', 'javascript')).toBe(true);
    expect(equal(S(T(1, 2)), [T(1, 2)], 'Any', 'python')).toBe(true);
    expect(equal(S(1, 2), S(1, 3), 'Any', 'python')).toBe(false);
  });

  it("matches sets of exact items by key, with Python's equality for Python candidates", () => {
    const n = 50_000;
    const expected = S(...Array.from({ length: n }, (_, i) => i));
    const actual = S(...Array.from({ length: n }, (_, i) => n - 1 - i));
    expect(equal(expected, actual, 'Set[int]', 'python')).toBe(true);
    expect(equal(S(1, 2), S(true, 2), 'Set[int]', 'python')).toBe(true);
    expect(equal(S(1, 2), S(true, 2), 'Set[int]', 'strict')).toBe(false);
    expect(equal(S(T(1, 2)), S(T(true, FL('2.0'))), 'Set[Tuple[int, int]]', 'python')).toBe(true);
    expect(equal(S(10n ** 20n), S(1e20), 'Set[int]', 'python')).toBe(true);
    expect(equal(S(10n ** 20n + 1n), S(1e20), 'Set[int]', 'python')).toBe(false);
  });

  it('never passes a candidate that forges a tag or returns a malformed one', () => {
    const expected = encodeWire(3);
    const verdict = (json: string) => judge({ kind: 'returned', json, durationMs: 0 }, expected, parseType('int'), DEFAULT_TOLERANCE, 'python');
    // The harnesses write a candidate's own "$evalrun" key as a dict tag: that is a dict, not 3.
    expect(verdict('{"$evalrun":"dict","entries":[["$evalrun","int"],["value","3"]]}').status).toBe('fail');
    expect(verdict('{"$evalrun":"int","value":"3","x":1}').status).toBe('error');
    expect(verdict('{"$evalrun":"int","value":"4"}').status).toBe('fail');
    expect(verdict('{"$evalrun":"int","value":"3"}').status).toBe('pass');
  });
});

describe('wheels', () => {
  it.each<[string, ReturnType<typeof wheelKind>]>([
    ['tinypkg-1.0-py3-none-any.whl', 'pure'],
    ['six-1.16.0-py2.py3-none-any.whl', 'pure'],
    ['numpy-2.4.6-cp314-cp314-pyemscripten_2026_0_wasm32.whl', 'platform'],
    ['numpy-2.4.6-cp314-cp314-manylinux_2_17_x86_64.whl', 'unusable'],
    ['notawheel.whl', 'unusable'],
  ])('%s is %s', (name, kind) => {
    expect(wheelKind(name)).toBe(kind);
  });
});
