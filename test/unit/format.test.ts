import { describe, expect, it } from 'vitest';
import { formatValue } from '../../src/values/format.js';
import { isValue } from '../../src/values/is-value.js';
import { valueKey } from '../../src/values/value-key.js';
import { dict, floatTag, pySet, tuple } from '../../src/values/py-tags.js';

describe('formatValue: values', () => {
  it.each<[unknown, string]>([
    [1, '1'],
    [-2.5, '-2.5'],
    [0, '0'],
    [-0, '-0'],
    [1e21, '1e+21'],
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
    [true, 'true'],
    [false, 'false'],
    [null, 'null'],
    [undefined, 'undefined'],
    ['abc', '"abc"'],
    ['', '""'],
    ['say "hi"', String.raw`"say \"hi\""`],
    ['a\nb\tc', String.raw`"a\nb\tc"`],
    ['日本', '"日本"'],
    [10n, '10'],
    [Symbol('tag'), 'Symbol(tag)'],
    [Symbol(), 'Symbol()'],
    [[], '[]'],
    [[1, 2, 3], '[1, 2, 3]'],
    [[1, [2, [3]]], '[1, [2, [3]]]'],
    [{}, '{}'],
    [{ a: 1 }, '{"a": 1}'],
    [{ a: 1, 'b c': [true, null] }, '{"a": 1, "b c": [true, null]}'],
    [[NaN, -Infinity, undefined], '[NaN, -Infinity, undefined]'],
    // A hole, as an array written with one is displayed.
    // eslint-disable-next-line no-sparse-arrays
    [[1, , 3], '[1, undefined, 3]'],
    [new Map([['k', 1]]), 'Map(1) {"k" => 1}'],
    [new Set([1, 2]), 'Set(2) {1, 2}'],
    [new Date(0), 'Date(1970-01-01T00:00:00.000Z)'],
    [new Date(NaN), 'Date(invalid)'],
    [/a+b/g, '/a+b/g'],
    [new TypeError('bad'), 'TypeError: bad'],
    [new Uint8Array(3), 'Uint8Array(3 bytes)'],
    [Object.create(null) as object, '{}'],
    // Float tags print their value text.
    [floatTag(3), '3.0'],
    [floatTag(-0), '-0.0'],
    [floatTag(NaN), 'NaN'],
    [floatTag(Infinity), 'Infinity'],
    [floatTag(-Infinity), '-Infinity'],
    [floatTag(1e16), '1e+16'],
    [[floatTag(1), 2, 2.5], '[1.0, 2, 2.5]'],
  ])('%s -> %s', (value, expected) => {
    expect(formatValue(value)).toBe(expected);
    expect(formatValue(value, 60, 'json')).toBe(expected);
  });

  it('describes functions', () => {
    function named(): void {}
    expect(formatValue(named)).toBe('[function named]');
    expect(formatValue(() => 1)).toBe('[function]');
    expect(formatValue(class Thing {})).toBe('[function Thing]');
  });

  it('names class instances', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    expect(formatValue(new Point(1, 2))).toBe('Point {"x": 1, "y": 2}');
  });
});

describe("formatValue: Python's repr", () => {
  it.each<[unknown, string]>([
    ['abc', "'abc'"],
    ['', "''"],
    ["it's", `"it's"`],
    ['say "hi"', `'say "hi"'`],
    [`it's "x"`, `'it\\'s "x"'`],
    ['a\nb\tc\\', String.raw`'a\nb\tc\\'`],
    ['\u0007', String.raw`'\x07'`],
    ['日本', "'日本'"],
    [true, 'True'],
    [false, 'False'],
    [null, 'None'],
    [1, '1'],
    [-2.5, '-2.5'],
    [10n ** 20n, '100000000000000000000'],
    [1e16, '10000000000000000'],
    [0.00001, '1e-05'],
    [floatTag(3), '3.0'],
    [floatTag(-0), '-0.0'],
    [floatTag(1e16), '1e+16'],
    [floatTag(NaN), 'nan'],
    [floatTag(Infinity), 'inf'],
    [floatTag(-Infinity), '-inf'],
    [[1, 'a', null, true], "[1, 'a', None, True]"],
    [tuple([]), '()'],
    [tuple([1]), '(1,)'],
    [tuple([1, 'a']), "(1, 'a')"],
    [pySet([]), 'set()'],
    [pySet([1, 2]), '{1, 2}'],
    [pySet([], true), 'frozenset()'],
    [pySet([1, 2], true), 'frozenset({1, 2})'],
    [{ a: 1, "b'": [floatTag(1)] }, `{'a': 1, "b'": [1.0]}`],
    [
      dict([
        [1, 'a'],
        [tuple([1, 2]), null],
        [floatTag(2), true],
      ]),
      "{1: 'a', (1, 2): None, 2.0: True}",
    ],
  ])('%s -> %s', (value, expected) => {
    expect(formatValue(value, Infinity, 'python')).toBe(expected);
  });

  it('truncates a repr as it truncates JSON', () => {
    const text = formatValue(
      Array.from({ length: 100 }, (_, i) => `s${i}`),
      30,
      'python',
    );
    expect(text).toHaveLength(30);
    expect(text.startsWith("['s0', 's1'")).toBe(true);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('formatValue: length', () => {
  it('truncates to 60 characters by default, ending in an ellipsis', () => {
    const text = formatValue(Array.from({ length: 100 }, (_, i) => i));
    expect(text).toHaveLength(60);
    expect(text.startsWith('[0, 1, 2, 3')).toBe(true);
    expect(text.endsWith('…')).toBe(true);
  });

  it('leaves values that fit exactly alone', () => {
    const value = 'x'.repeat(58);
    expect(formatValue(value)).toBe(`"${value}"`);
    expect(formatValue(value)).toHaveLength(60);
    expect(formatValue('x'.repeat(59))).toBe(`"${'x'.repeat(58)}…`);
  });

  it.each([1, 2, 5, 10, 25])('honours maxLength %d', (maxLength) => {
    const text = formatValue({ key: 'a long value that will not fit' }, maxLength);
    expect(text).toHaveLength(maxLength);
    expect(text.endsWith('…')).toBe(true);
  });

  it('treats Infinity as no limit and nonsense limits sensibly', () => {
    const long = Array.from({ length: 1000 }, (_, i) => i);
    expect(formatValue(long, Infinity)).toBe(`[${long.join(', ')}]`);
    expect(formatValue('abcdef', 0)).toBe('…');
    expect(formatValue('abcdef', -5)).toBe('…');
    expect(formatValue('x'.repeat(100), NaN)).toHaveLength(60);
    expect(formatValue('abc', 3.9)).toBe('"a…');
  });

  it('does not split a surrogate pair', () => {
    expect(formatValue('😀😀😀😀', 4)).toBe('"😀…');
    expect(formatValue('😀😀😀😀', 3)).toBe('"…');
    expect(formatValue('a😀😀😀', 5)).toBe('"a😀…');
    expect(formatValue('a😀😀😀', 4)).toBe('"a…');
  });

  it('stays fast and short for huge values', () => {
    const huge = Array.from({ length: 1_000_000 }, (_, i) => ({ i, text: 'x'.repeat(10) }));
    const started = performance.now();
    expect(formatValue(huge)).toHaveLength(60);
    expect(formatValue('y'.repeat(10_000_000))).toHaveLength(60);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('formatValue: hostile values', () => {
  it('marks cycles and keeps shared references', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(formatValue(cyclic)).toBe('{"a": 1, "self": [Circular]}');
    const shared = [1];
    expect(formatValue([shared, shared])).toBe('[[1], [1]]');
  });

  it('survives 10,000 levels of nesting, even without a length limit', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(formatValue(deep)).toBe('['.repeat(59) + '…');
    const unlimited = formatValue(deep, Infinity);
    expect(unlimited.startsWith('['.repeat(200) + '…')).toBe(true);
  });

  it('never throws on throwing getters and proxies', () => {
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(formatValue(getter)).toBe('{"boom": [unreadable]}');
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys');
        },
      },
    );
    expect(formatValue(proxy)).toBe('[unprintable]');
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    expect(formatValue(revocable.proxy)).toBe('[unprintable]');
  });
});

describe('valueKey', () => {
  it('is equal for structurally equal values regardless of dict key order', () => {
    expect(valueKey({ a: 1, b: [1, 2] })).toBe(valueKey({ b: [1, 2], a: 1 }));
    expect(valueKey(0)).toBe(valueKey(-0));
    expect(valueKey(pySet([1, 2]))).toBe(valueKey(pySet([2, 1])));
    expect(valueKey(pySet([1, 2], true))).toBe(valueKey(pySet([2, 1])));
  });

  it("is Python's hash equality: 1, 1.0 and True coincide, as do 0, -0.0 and False", () => {
    expect(valueKey(floatTag(1))).toBe(valueKey(1));
    expect(valueKey(true)).toBe(valueKey(1));
    expect(valueKey(floatTag(-0))).toBe(valueKey(0));
    expect(valueKey(floatTag(0))).toBe(valueKey(0));
    expect(valueKey(false)).toBe(valueKey(0));
    expect(valueKey(10n ** 20n)).toBe(valueKey(floatTag(1e20)));
    expect(valueKey(tuple([1, floatTag(2)]))).toBe(valueKey(tuple([true, 2])));
    expect(valueKey(2.5)).not.toBe(valueKey(2));
  });

  it('gives NaN no key: it equals nothing, not even itself', () => {
    expect(valueKey(NaN)).toBeUndefined();
    expect(valueKey(floatTag(NaN))).toBeUndefined();
    expect(valueKey([1, floatTag(NaN)])).toBeUndefined();
    expect(valueKey(floatTag(Infinity))).not.toBe(valueKey(floatTag(-Infinity)));
    expect(valueKey(floatTag(Infinity))).toBeDefined();
  });

  it('distinguishes values of different kinds and orders', () => {
    const keys = [
      1,
      '1',
      null,
      [1],
      [[1]],
      { '1': 1 },
      [1, 2],
      [2, 1],
      'N',
      'T',
      'n1',
      ['a,b'],
      ['a', 'b'],
      tuple([1]),
      pySet([1]),
      2.5,
      floatTag(Infinity),
    ].map(valueKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).not.toContain(undefined);
    // A tuple is not a list, nor is a set.
    expect(valueKey(tuple([1, 2]))).not.toBe(valueKey([1, 2]));
    expect(valueKey(pySet([1, 2]))).not.toBe(valueKey([1, 2]));
  });

  it('gives undefined for non-values and absurd depth', () => {
    expect(valueKey(undefined)).toBeUndefined();
    expect(valueKey([() => 1])).toBeUndefined();
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(valueKey(deep)).toBeUndefined();
  });
});

describe('isValue', () => {
  it.each<[unknown, boolean]>([
    [1, true],
    [NaN, true],
    ['s', true],
    [null, true],
    [[1, { a: [true] }], true],
    [Object.create(null) as object, true],
    [undefined, false],
    [[undefined], false],
    [{ a: () => 1 }, false],
    [new Date(), false],
    [new Map(), false],
    [10n, true],
  ])('%s -> %s', (value, expected) => {
    expect(isValue(value)).toBe(expected);
  });

  it('rejects cycles but accepts shared references and deep values', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(isValue(cyclic)).toBe(false);
    const shared = { a: 1 };
    expect(isValue([shared, shared])).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { k: deep };
    expect(isValue(deep)).toBe(true);
  });
});
