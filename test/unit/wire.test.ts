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
    expect(decodeWire('{"$evalrun":"set","items":[]}')).toMatchObject({ ok: false });
    expect(decodeWire('{"\\u0024evalrun":"bogus"}')).toMatchObject({ ok: false });
    expect(decodeWire('[1, {"$evalrun":"float","value":"NaN"}]')).toEqual({ ok: true, value: [1, NaN] });
  });

  it('reports malformed text', () => {
    expect(decodeWire('{')).toMatchObject({ ok: false });
  });
});
