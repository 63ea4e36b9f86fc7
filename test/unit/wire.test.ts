import { describe, expect, it } from 'vitest';
import { decodeWire, encodeWire } from '../../src/values/wire.js';

describe('wire format', () => {
  it('round-trips plain values and the values JSON cannot hold', () => {
    const value = { a: [1, 2.5, NaN, Infinity, -Infinity], b: 'x', c: null, d: { e: [true, false] } };
    expect(decodeWire(encodeWire(value))).toEqual({ ok: true, value });
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
    expect(decodeWire('[1, {"$evalrun":"float","value":"NaN"}]')).toEqual({ ok: true, value: [1, NaN] });
  });

  it('encodes values that need no tag as plain JSON, and tags them wherever they are nested', () => {
    const plain = { a: [1, -0, 2.5e300], b: 'x"y', c: null, d: [[true], {}] };
    expect(encodeWire(plain)).toBe(JSON.stringify(plain));
    expect(JSON.parse(encodeWire({ deep: [[{ x: NaN }]] }))).toEqual({ deep: [[{ x: { $evalrun: 'float', value: 'NaN' } }]] });
    expect(JSON.parse(encodeWire([-Infinity]))).toEqual([{ $evalrun: 'float', value: '-Infinity' }]);
    // A real null, or "null" inside a string, beside a non-finite float: still tagged.
    expect(JSON.parse(encodeWire(['null', null, NaN]))).toEqual(['null', null, { $evalrun: 'float', value: 'NaN' }]);
  });

  it('writes each Python kind in the form its reader takes', () => {
    const value = [{ $evalrun: 'tuple', items: [1, 2] }, { $evalrun: 'frozenset', items: [3] }] as never;
    expect(encodeWire(value, { form: 'python' })).toBe('[{"$evalrun":"tuple","items":[1,2]},{"$evalrun":"frozenset","items":[3]}]');
    expect(encodeWire(value, { form: 'javascript' })).toBe('[[1,2],{"$evalrun":"set","items":[3]}]');
    expect(encodeWire(value, { form: 'javascript-result' })).toBe('[[1,2],[3]]');
  });

  it('reports malformed text', () => {
    expect(decodeWire('{')).toMatchObject({ ok: false });
  });
});
