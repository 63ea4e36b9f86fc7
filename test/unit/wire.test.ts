import { describe, expect, it } from 'vitest';
import { parseExactJson } from '../../src/problems/exact-json.js';
import { dict, floatTag, tuple, tupleKeyedDict } from '../../src/values/py-tags.js';
import type { Value } from '../../src/values/type-node.js';
import { decodeTrustedWire, decodeWire, encodeWire, recordJson } from '../../src/values/wire.js';

const FL = (value: string): Value => ({ $evalrun: 'float', value });

describe('wire format', () => {
  it('round-trips plain values and the values JSON cannot hold', () => {
    const value = {
      a: [1, 2.5, floatTag(NaN), floatTag(Infinity), floatTag(-Infinity), floatTag(3), floatTag(-0), 2n ** 70n],
      b: 'x',
      c: null,
      d: { e: [true, false] },
    } as unknown as Value;
    expect(decodeWire(encodeWire(value))).toEqual({ ok: true, value });
    expect(decodeWire(encodeWire(value, 'javascript'))).toEqual({
      ok: true,
      // An argument keeps -0.0's sign: JavaScript has -0.
      value: { ...(value as object), a: [1, 2.5, FL('NaN'), FL('Infinity'), FL('-Infinity'), 3, -0, 2n ** 70n] },
    });
  });

  it('keeps every float a float: integral, negative zero and non-finite ones decode to float tags', () => {
    expect(decodeWire('{"$evalrun":"float","value":"3.0"}')).toEqual({ ok: true, value: FL('3.0') });
    expect(decodeWire('[{"$evalrun":"float","value":"-0.0"}, 3]')).toEqual({ ok: true, value: [FL('-0.0'), 3] });
    expect(decodeWire('{"$evalrun":"float","value":"1e16"}')).toEqual({ ok: true, value: FL('1e+16') });
    // A float JSON keeps a float comes back a plain number.
    expect(decodeWire('{"$evalrun":"float","value":"2.5"}')).toEqual({ ok: true, value: 2.5 });
    expect(decodeTrustedWire('{"$evalrun":"float","value":"-Infinity"}', 'a value')).toEqual(FL('-Infinity'));
    expect(() => decodeTrustedWire('{"$evalrun":"float","value":"x"}', 'a value')).toThrow(/a value did not decode/);
  });

  it('decodes text without tags to the same value as the checked path', () => {
    const text = '{"__proto__":1,"list":[[1],{"k":"v"}],"s":"é"}';
    const decoded = decodeWire(text);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(Object.keys(decoded.value as object)).toEqual(['__proto__', 'list', 's']);
    expect(Object.getPrototypeOf(decoded.value)).toBe(Object.prototype);
    expect((decoded.value as Record<string, unknown>)['__proto__']).toBe(1);
  });

  it('rejects unknown tags, also when the tag is spelled with escapes', () => {
    expect(decodeWire('{"$evalrun":"sets","items":[]}')).toMatchObject({ ok: false });
    expect(decodeWire('{"$evalrun":"set","items":[],"extra":1}')).toMatchObject({ ok: false });
    expect(decodeWire('{"\\u0024evalrun":"bogus"}')).toMatchObject({ ok: false });
    expect(decodeWire('[1, {"$evalrun":"float","value":"NaN"}]')).toEqual({ ok: true, value: [1, FL('NaN')] });
  });

  it('encodes values that need no tag as plain JSON, and tags them wherever they are nested', () => {
    const plain = { a: [1, -0, 2.5e300], b: 'x"y', c: null, d: [[true], {}] };
    expect(encodeWire(plain)).toBe(JSON.stringify(plain));
    expect(JSON.parse(encodeWire({ deep: [[{ x: floatTag(NaN) }]] }))).toEqual({ deep: [[{ x: { $evalrun: 'float', value: 'NaN' } }]] });
    expect(JSON.parse(encodeWire([floatTag(-Infinity)]))).toEqual([{ $evalrun: 'float', value: '-Infinity' }]);
    // A real null, or "null" inside a string, beside a non-finite float: still tagged.
    expect(JSON.parse(encodeWire(['null', null, floatTag(NaN)]))).toEqual(['null', null, { $evalrun: 'float', value: 'NaN' }]);
    // The kind comes from the value, not from a declared type: 3 is an int, 3.0 a float.
    expect(encodeWire([3, floatTag(3), floatTag(-0), 2.5])).toBe('[3,{"$evalrun":"float","value":"3.0"},{"$evalrun":"float","value":"-0.0"},2.5]');
    expect(encodeWire(2n ** 64n)).toBe('{"$evalrun":"int","value":"18446744073709551616"}');
  });

  it('writes floats for JavaScript arguments as plain numbers, non-finite ones tagged; an expected value keeps every float tag', () => {
    const value = [floatTag(3), floatTag(-0), floatTag(NaN), floatTag(Infinity), 2.5, { $evalrun: 'tuple', items: [floatTag(1)] }] as unknown as Value;
    // An argument keeps -0.0's sign (JSON.parse reads -0 as -0).
    expect(encodeWire(value, 'javascript')).toBe('[3,-0,{"$evalrun":"float","value":"NaN"},{"$evalrun":"float","value":"Infinity"},2.5,[1]]');
    // An expected value is judged as the float the file wrote: 1e16's tag meets a JavaScript 1.0000000000000002e16 within the tolerance.
    expect(encodeWire(value, 'javascript-result')).toBe(
      '[{"$evalrun":"float","value":"3.0"},{"$evalrun":"float","value":"-0.0"},{"$evalrun":"float","value":"NaN"},{"$evalrun":"float","value":"Infinity"},2.5,[{"$evalrun":"float","value":"1.0"}]]',
    );
    expect(encodeWire([floatTag(3)], 'python')).toBe('[{"$evalrun":"float","value":"3.0"}]');
  });

  it('tells a JavaScript candidate that a dict with tuple keys is a Map, an empty one too', () => {
    const empty = tupleKeyedDict([]);
    expect(encodeWire(empty, 'javascript')).toBe('{"$evalrun":"dict","entries":[],"map":true}');
    expect(encodeWire([tupleKeyedDict([[tuple([1, 2]), 3]])], 'javascript')).toBe('[{"$evalrun":"dict","entries":[[[1,2],3]],"map":true}]');
    // Python and the records read the dict as it is; an untyped dict says nothing more.
    expect(encodeWire(empty)).toBe('{"$evalrun":"dict","entries":[]}');
    expect(encodeWire(dict([]), 'javascript')).toBe('{"$evalrun":"dict","entries":[]}');
    expect(empty).toEqual(dict([]));
  });

  it('writes each Python kind in the form its reader takes', () => {
    const value = [
      { $evalrun: 'tuple', items: [1, 2] },
      { $evalrun: 'frozenset', items: [3] },
    ] as never;
    expect(encodeWire(value, 'python')).toBe('[{"$evalrun":"tuple","items":[1,2]},{"$evalrun":"frozenset","items":[3]}]');
    expect(encodeWire(value)).toBe(encodeWire(value, 'python'));
    expect(encodeWire(value, 'javascript')).toBe('[[1,2],{"$evalrun":"set","items":[3]}]');
    // A set keeps its kind: under Any, a list would be judged in its order.
    expect(encodeWire(value, 'javascript-result')).toBe('[[1,2],{"$evalrun":"frozenset","items":[3]}]');
  });

  it('writes records with bigints as int tags, which parseExactJson reads back as bigints', () => {
    const record = { a: [2n ** 80n, -(2n ** 60n), 5], b: 'x', c: { d: 10n ** 20n }, f: floatTag(3) };
    const text = recordJson(record);
    expect(text).toBe(
      '{"a":[{"$evalrun":"int","value":"1208925819614629174706176"},{"$evalrun":"int","value":"-1152921504606846976"},5],"b":"x",' +
        '"c":{"d":{"$evalrun":"int","value":"100000000000000000000"}},"f":{"$evalrun":"float","value":"3.0"}}',
    );
    expect(parseExactJson(text)).toEqual(record);
    expect(parseExactJson(recordJson(record, 2))).toEqual(record);
    expect(recordJson({ a: 1 })).toBe('{"a":1}');
    expect(recordJson({ a: 1 }, 2)).toBe(JSON.stringify({ a: 1 }, null, 2));
    // Records of earlier releases wrote long integers bare, with every digit.
    expect(parseExactJson('{"a":[1208925819614629174706176,-5]}')).toEqual({ a: [2n ** 80n, -5] });
    // A string that spells a tag is a string.
    expect(parseExactJson(recordJson(['{"$evalrun":"int","value":"5"}', 1n]))).toEqual(['{"$evalrun":"int","value":"5"}', 1]);
  });

  it('reports malformed text', () => {
    expect(decodeWire('{')).toMatchObject({ ok: false });
  });
});
