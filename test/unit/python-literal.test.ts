import { describe, expect, it } from 'vitest';
import { MAX_LITERAL_DEPTH, parsePythonLiteral } from '../../src/values/python-literal.js';
import type { Value } from '../../src/values/type-node.js';
import { Rng } from '../../bench/rng.js';

const T = (...items: Value[]): Value => ({ $evalrun: 'tuple', items });
const S = (...items: Value[]): Value => ({ $evalrun: 'set', items });
const F = (...items: Value[]): Value => ({ $evalrun: 'frozenset', items });
const D = (...entries: [Value, Value][]): Value => ({ $evalrun: 'dict', entries });
/** A float tag as the host holds a Python float that JSON would not keep a float (py-tags.ts), with repr's text. */
const FL = (value: string): Value => ({ $evalrun: 'float', value });

function value(text: string): Value {
  const result = parsePythonLiteral(text);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${result.error}`);
  return result.value;
}

function error(text: string): string {
  const result = parsePythonLiteral(text);
  if (result.ok) throw new Error(`expected ${JSON.stringify(text)} to fail, got ${JSON.stringify(result.value)}`);
  return result.error;
}

describe('parsePythonLiteral: numbers', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['7', 7],
    ['3', 3],
    ['-5', -5],
    ['+5', 5],
    ['- 5', -5],
    ['1_000', 1000],
    ['1_000_000', 1_000_000],
    ['00', 0],
    ['0x1F', 31],
    ['0o17', 15],
    ['0b101', 5],
    ['0x_ff', 255],
    ['  42  ', 42],
  ])('%j -> the int %d', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  // A float written with a fraction that JSON keeps a float is a plain number.
  it.each<[string, number]>([
    ['1.5', 1.5],
    ['-2.25', -2.25],
    ['.5', 0.5],
    ['-.5', -0.5],
    ['1E-3', 0.001],
    ['1_0.0_1', 10.01],
    ['1e-5', 0.00001],
  ])('%j -> the float %d', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  // A float with an integral value, or not finite, keeps its kind as a float tag holding repr's text.
  it.each<[string, string]>([
    ['3.0', '3.0'],
    ['3e0', '3.0'],
    ['5.', '5.0'],
    ['1e3', '1000.0'],
    ['2.5e+2', '250.0'],
    ['1.e2', '100.0'],
    ['0.0', '0.0'],
    ['1e16', '1e+16'],
    ['1e999', 'Infinity'],
    ['-1e999', '-Infinity'],
  ])('%j -> the float tag %s', (text, repr) => {
    expect(value(text)).toEqual(FL(repr));
  });

  it('keeps the sign of negative zero for a float, and reads the int -0 as 0', () => {
    expect(value('-0.0')).toEqual(FL('-0.0'));
    expect(value('-0.')).toEqual(FL('-0.0'));
    expect(value('-0')).toBe(0);
    expect(value('- 0')).toBe(0);
    expect(value('[-0, -0.0]')).toEqual([0, FL('-0.0')]);
  });

  it.each<[string, Value]>([
    ["float('inf')", FL('Infinity')],
    ['float("inf")', FL('Infinity')],
    ['float("-inf")', FL('-Infinity')],
    ["float('+inf')", FL('Infinity')],
    ["float('Infinity')", FL('Infinity')],
    ["float(' -INF ')", FL('-Infinity')],
    ["-float('inf')", FL('-Infinity')],
    ["float('1.5')", 1.5],
    ["float('1_0')", FL('10.0')],
    ['float(2)', FL('2.0')],
    ['float(3.0)', FL('3.0')],
    ['float(-2.5)', -2.5],
    ["float('-0')", FL('-0.0')],
    ['-float(0)', FL('-0.0')],
    ['inf', FL('Infinity')],
    ['-inf', FL('-Infinity')],
    ['Infinity', FL('Infinity')],
    ['-Infinity', FL('-Infinity')],
  ])('%j -> %j', (text, expected) => {
    expect(value(text)).toEqual(expected);
  });

  it.each(["float('nan')", 'float("NaN")', 'nan', 'NaN', '-nan'])('%j is the float tag NaN', (text) => {
    expect(value(text)).toEqual(FL('NaN'));
  });

  it.each<[string, RegExp]>([
    ['007', /leading zeros .* at column 1/],
    ['1__0', /invalid number '1__0' at column 1/],
    ['1_', /invalid number/],
    ['1e', /invalid number '1e' at column 1/],
    ['1e+', /invalid number/],
    ['0x', /invalid number '0x'/],
    ['0xg', /invalid number '0xg'/],
    ['0b2', /invalid number/],
    ['12abc', /invalid number '12a'/],
    ['1j', /complex numbers are not supported at column 1/],
    ['--5', /unexpected '-' at column 2 \(expected a number after '-'\)/],
    ['-True', /unexpected name 'True' after '-' at column 2/],
    ["float('abc')", /could not convert string to float: "abc" at column 6/],
    ['float()', /float\(\) needs a string or a number/],
    ['float([1])', /float\(\) needs a string or a number/],
    ['float', /unexpected end of input at column 6 \(expected '\(' after 'float'\)/],
  ])('%j fails: %s', (text, message) => {
    expect(error(text)).toMatch(message);
  });
});

describe('parsePythonLiteral: strings', () => {
  it.each<[string, string]>([
    ["'abc'", 'abc'],
    ['"abc"', 'abc'],
    ["''", ''],
    ['""', ''],
    ["'Hi '", 'Hi '],
    [`"it's"`, "it's"],
    [`'say "hi"'`, 'say "hi"'],
    [String.raw`'a\nb'`, 'a\nb'],
    [String.raw`'a\tb'`, 'a\tb'],
    [String.raw`'a\\b'`, 'a\\b'],
    [String.raw`'it\'s'`, "it's"],
    [String.raw`"\"q\""`, '"q"'],
    [String.raw`'\x41\x42'`, 'AB'],
    [String.raw`'\u00e9'`, 'é'],
    [String.raw`'\U0001F600'`, '😀'],
    [String.raw`"\ud83d\ude00"`, '😀'],
    [String.raw`'\101'`, 'A'],
    [String.raw`'\0'`, '\0'],
    [String.raw`'\a\b\f\v\r'`, '\x07\b\f\v\r'],
    [String.raw`'\d'`, '\\d'],
    [String.raw`"a\/b"`, 'a/b'],
    ["'line\\\nnext'", 'linenext'],
    ["'''triple'''", 'triple'],
    ['"""multi\nline"""', 'multi\nline'],
    ["'''it's'''", "it's"],
    ["'a' 'b'", 'ab'],
    [`'a' "b" 'c'`, 'abc'],
    ["'a'\n  'b'", 'ab'],
    ["u'unicode'", 'unicode'],
    [String.raw`r'\d+\n'`, '\\d+\\n'],
    [String.raw`R"\"quoted"`, '\\"quoted'],
    ['"日本語"', '日本語'],
  ])('%s -> %j', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it.each<[string, RegExp]>([
    ["'abc", /unterminated string at column 1/],
    ['"abc', /unterminated string at column 1/],
    ["'a\nb'", /unterminated string at line 1, column 1/],
    ["'''abc''", /unterminated string/],
    ["'abc\\", /unterminated string/],
    [String.raw`'\x4'`, /truncated \\x escape at column 2/],
    [String.raw`'\u12'`, /truncated \\u escape/],
    [String.raw`'\U00110000'`, /invalid \\U escape/],
    [String.raw`'\N{DASH}'`, /\\N\{\.\.\.\} escapes \(characters by name\) are not supported/],
    [String.raw`'\Nope'`, /malformed \\N character escape/],
    ["b'bytes'", /bytes literals are not supported at column 1/],
    ["f'{x}'", /f-strings are not literals at column 1/],
  ])('%j fails: %s', (text, message) => {
    expect(error(text)).toMatch(message);
  });
});

describe('parsePythonLiteral: constants', () => {
  it.each<[string, Value]>([
    ['True', true],
    ['False', false],
    ['None', null],
    ['true', true],
    ['false', false],
    ['null', null],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it.each(['TRUE', 'none', 'undefined', 'x', '__import__', 'os'])('rejects the name %j', (text) => {
    expect(error(text)).toBe(`unexpected name '${text}' at column 1`);
  });
});

describe('parsePythonLiteral: containers', () => {
  it.each<[string, Value]>([
    ['[]', []],
    ['[1, 2, 3]', [1, 2, 3]],
    ['[1, 2, 3,]', [1, 2, 3]],
    ['[ 1 ,2 , 3 ]', [1, 2, 3]],
    ['[[1, 0]]', [[1, 0]]],
    [
      '[[1,2,5],[1,7],[2,6]]',
      [
        [1, 2, 5],
        [1, 7],
        [2, 6],
      ],
    ],
    ["['AAAAACCCCC', 'CCCCCAAAAA']", ['AAAAACCCCC', 'CCCCCAAAAA']],
    ['[1, "a", None, True, 2.5]', [1, 'a', null, true, 2.5]],
    ['()', T()],
    ['(1,)', T(1)],
    ['(1, 2)', T(1, 2)],
    ['(1, 2,)', T(1, 2)],
    ['(1)', 1],
    ['((1, 2), (3,))', T(T(1, 2), T(3))],
    ['1, 2', T(1, 2)],
    ['1,', T(1)],
    ['{1, 2}', S(1, 2)],
    ['{3, 1, 3, 2, 1}', S(3, 1, 2)],
    ["{'a', 'a'}", S('a')],
    ['{(1, 2), (1, 2)}', S(T(1, 2))],
    ['set()', S()],
    ['frozenset()', F()],
    ['set([1, 2, 2])', S(1, 2)],
    ['frozenset({1})', F(1)],
    ['tuple()', T()],
    ['list((1, 2))', [1, 2]],
    ['dict()', {}],
    ['{}', {}],
    ["{'a': 1}", { a: 1 }],
    ['{"a": 1, "b": [1, 2]}', { a: 1, b: [1, 2] }],
    ["{'a': 1,}", { a: 1 }],
    ["{'a': 1, 'a': 2}", { a: 2 }],
    ["{'x': {'y': (1, 2)}}", { x: { y: T(1, 2) } }],
    ['{1: 2}', D([1, 2])],
    ['{(1, 2): 3}', D([T(1, 2), 3])],
    ['12345678901234567890', 12345678901234567890n],
    ['-9999999999999999', -9999999999999999n],
    ['[9007199254740993]', [9007199254740993n]],
    ['0x20000000000001', 9007199254740993n],
    ['{-1: 2, 1.5: 3}', D([-1, 2], [1.5, 3])],
    ['{True: 1, False: 0, None: 2}', D([true, 1], [false, 0], [null, 2])],
    ["{float('inf'): 1}", D([FL('Infinity'), 1])],
    ['[1.0, 2]', [FL('1.0'), 2]],
    ['(1.0,)', T(FL('1.0'))],
    ['{1: 1.0}', D([1, FL('1.0')])],
    // Python's hash equality: 1 == 1.0 == True and 0 == -0.0 collapse to the first written; NaN equals nothing.
    ['{1, 1.0, True}', S(1)],
    ['{1.0, 1}', S(FL('1.0'))],
    ['{-0.0, 0}', S(FL('-0.0'))],
    ['{nan, nan}', S(FL('NaN'), FL('NaN'))],
    ["{1.0: 'a', 1: 'b'}", D([FL('1.0'), 'b'])],
    ['{True: 1, 1: 2}', D([true, 2])],
    ['[1, # a comment\n 2]', [1, 2]],
    ['[\n  1,\n  2,\n]', [1, 2]],
    ['{"a": true, "b": null, "c": [false]}', { a: true, b: null, c: [false] }],
  ])('%s', (text, expected) => {
    expect(value(text)).toEqual(expected);
  });

  it('keeps dict keys in written order', () => {
    expect(Object.keys(value("{'b': 1, 'a': 2}") as object)).toEqual(['b', 'a']);
    expect(value("{'b': 1, 'a': 2, 3: 4}")).toEqual(D(['b', 1], ['a', 2], [3, 4]));
  });

  it('stores a __proto__ key as data without touching any prototype', () => {
    const parsed = value("{'__proto__': {'polluted': 1}}") as Record<string, Value>;
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(parsed)).toBe('{"__proto__":{"polluted":1}}');
  });

  it.each<[string, string]>([
    ['[1, 2)', "unexpected ')' at column 6 (expected ',' or ']')"],
    ['[1 2]', "unexpected number '2' at column 4 (expected ',' or ']')"],
    ['[1,,2]', "unexpected ',' at column 4"],
    ['[', 'unexpected end of input at column 2'],
    ['[1,', 'unexpected end of input at column 4'],
    ['(1 2)', "unexpected number '2' at column 4 (expected ',' or ')')"],
    ['(1, 2', "unexpected end of input at column 6 (expected ',' or ')')"],
    ['{1: 2', "unexpected end of input at column 6 (expected ',' or '}')"],
    ['{1: 2, 3}', "unexpected '}' at column 9 (expected ':')"],
    ['{1, 2: 3}', "unexpected ':' at column 6 (expected ',' or '}')"],
    ['{[1]: 2}', 'dict key must be hashable (str, int, float, bool, None or a tuple of them), got [1] at column 2'],
    ['{([1], 2): 3}', 'dict key must be hashable (str, int, float, bool, None or a tuple of them), got ([1], 2) at column 2'],
    ["{'a': 1, {}: 2}", 'dict key must be hashable (str, int, float, bool, None or a tuple of them), got {} at column 10'],
    ['[1] 2', "unexpected number '2' at column 5"],
    ['[1]]', "unexpected ']' at column 4"],
    ['', 'empty input at column 1'],
    ['   ', 'empty input at column 4'],
    ['# only a comment', 'empty input at column 17'],
    ['[1,\n 2,\n x]', "unexpected name 'x' at line 3, column 2"],
    ['set(1)', 'set() needs a list, tuple or set literal at column 4'],
    ['set([1], [2])', "unexpected '[' at column 10 (expected ')')"],
    ['dict(a=1)', "unexpected name 'a' at column 6"],
    ['1 + 2', "unexpected '+' at column 3"],
    ['[1] * 10**9', "unexpected '*' at column 5"],
    ["__import__('os').system('ls')", "unexpected name '__import__' at column 1"],
    ['lambda: 1', "unexpected name 'lambda' at column 1"],
    ['{**a}', "unexpected '*' at column 2"],
    ['@', "unexpected '@' at column 1"],
  ])('%j fails: %s', (text, message) => {
    expect(error(text)).toBe(message);
  });
});

describe('parsePythonLiteral: nesting limits', () => {
  it(`accepts ${MAX_LITERAL_DEPTH} levels of nesting`, () => {
    let parsed = value('['.repeat(MAX_LITERAL_DEPTH) + ']'.repeat(MAX_LITERAL_DEPTH));
    let depth = 0;
    while (Array.isArray(parsed) && parsed.length > 0) {
      parsed = parsed[0]!;
      depth++;
    }
    expect(depth).toBe(MAX_LITERAL_DEPTH - 1);
  });

  it(`refuses ${MAX_LITERAL_DEPTH + 1} levels with a message`, () => {
    const text = '['.repeat(MAX_LITERAL_DEPTH + 1) + ']'.repeat(MAX_LITERAL_DEPTH + 1);
    expect(error(text)).toBe(`nesting deeper than ${MAX_LITERAL_DEPTH} levels at column ${MAX_LITERAL_DEPTH + 1}`);
  });

  it.each([
    ['lists', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['tuples', '('.repeat(10_000) + ')'.repeat(10_000)],
    ['dicts', "{'a': ".repeat(10_000) + '1' + '}'.repeat(10_000)],
    ['sets', '{'.repeat(10_000) + '1' + '}'.repeat(10_000)],
    ['unclosed lists', '['.repeat(100_000)],
    ['calls', 'set('.repeat(10_000)],
  ])('returns an error, not a crash, for 10,000 nested %s', (_, text) => {
    expect(error(text)).toMatch(/^nesting deeper than 1000 levels at column \d+$/);
  });
});

describe('parsePythonLiteral: robustness', () => {
  it('never throws on random input', () => {
    const pieces = [
      '[',
      ']',
      '(',
      ')',
      '{',
      '}',
      ',',
      ':',
      "'",
      '"',
      '\\',
      '1',
      '-',
      '.',
      'e',
      'True',
      'None',
      'x',
      ' ',
      '\n',
      '#',
      'float(',
      'set(',
      '0x',
      '_',
      'u',
      'r',
      'inf',
    ];
    const rng = new Rng(987654321);
    const random = (n: number): number => rng.int(0, n - 1);
    let parsed = 0;
    for (let i = 0; i < 5000; i++) {
      const text = Array.from({ length: 1 + random(16) }, () => pieces[random(pieces.length)]).join('');
      const result = parsePythonLiteral(text);
      if (result.ok) parsed++;
      else expect(result.error).toMatch(/ at (line \d+, )?column \d+/);
    }
    expect(parsed).toBeGreaterThan(50);
  });

  it('rejects non-string input instead of throwing', () => {
    expect(parsePythonLiteral(42 as unknown as string)).toEqual({ ok: false, error: 'a literal must be a string' });
  });

  it('parses a large list quickly', () => {
    const text = `[${Array.from({ length: 200_000 }, (_, i) => (i % 2 ? `'s${i}'` : String(i))).join(', ')}]`;
    const started = performance.now();
    const parsed = value(text) as Value[];
    expect(parsed).toHaveLength(200_000);
    expect(parsed[199_999]).toBe('s199999');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
