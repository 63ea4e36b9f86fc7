import { describe, expect, it } from 'vitest';
import { type Comparison, compareValues, DEFAULT_TOLERANCE, type Equality } from '../../src/values/compare.js';
import { dict, floatTag, floatValue, pySet, tuple } from '../../src/values/py-tags.js';
import { parseType } from '../../src/values/type-grammar.js';
import type { TypeNode, Value } from '../../src/values/type-node.js';

function compare(expected: Value, actual: Value, type: string, tolerance = DEFAULT_TOLERANCE): Comparison {
  return compareValues(expected, actual, parseType(type), tolerance);
}

/** A Python float in its one host form: a plain number when finite and not integral, else a float tag. */
const fl = (n: number): Value => floatValue(n);

function compareWith(expected: Value, actual: Value, type: string, equality: Equality): Comparison {
  return compareValues(expected, actual, parseType(type), DEFAULT_TOLERANCE, equality);
}

const equal: Comparison = { equal: true };
const differs = (path: string, reason: string): Comparison => ({ equal: false, path, reason });

describe('compareValues: defaults', () => {
  it('has the documented default tolerance', () => {
    expect(DEFAULT_TOLERANCE).toEqual({ relative: 1e-9, absolute: 1e-9 });
  });
});

describe('compareValues: int', () => {
  it.each<[Value, Value, Comparison]>([
    [3, 3, equal],
    [0, -0, equal],
    [3, 3.0, equal],
    [-7, -7, equal],
    [3, 4, differs('$', 'expected 3, got 4')],
    [3, 3.5, differs('$', 'expected 3, got 3.5')],
    [3, 3 + 1e-12, differs('$', 'expected 3, got 3.000000000001')],
    [3, '3', differs('$', 'expected int, got string "3"')],
    [1, true, differs('$', 'expected int, got boolean true')],
    [0, null, differs('$', 'expected int, got null')],
    [3, [3], differs('$', 'expected int, got array [3]')],
    [2 ** 53, 2 ** 53 + 2, differs('$', 'expected 9007199254740992, got 9007199254740994')],
  ])('%j vs %j', (expected, actual, result) => {
    expect(compare(expected, actual, 'int')).toEqual(result);
  });
});

describe('compareValues: float', () => {
  // Both sides are Python floats, in their host form (1e6 and NaN are float tags).
  it.each<[number, number, boolean]>([
    [0.3, 0.1 + 0.2, true],
    [1, 1, true],
    [2, 2.0, true],
    [0, 1e-10, true],
    [0, -1e-10, true],
    [0, 5e-9, false],
    [1e6, 1e6 + 1e-4, true],
    [1e6, 1e6 + 1e-2, false],
    [1e20, 1e20 * (1 + 5e-10), true],
    [1e20, 1e20 * (1 + 5e-9), false],
    [-1.5, -1.5000000000001, true],
    [-1.5, 1.5, false],
    [NaN, NaN, true],
    [NaN, 0, false],
    [0, NaN, false],
    [Infinity, Infinity, true],
    [-Infinity, -Infinity, true],
    [Infinity, -Infinity, false],
    [Infinity, Number.MAX_VALUE, false],
    [Number.MAX_VALUE, Infinity, false],
    [0, -0, true],
  ])('%d vs %d: equal=%s', (expected, actual, isEqual) => {
    expect(compare(fl(expected), fl(actual), 'float').equal).toBe(isEqual);
  });

  // An int where a float is declared (`List[float]` holding 5) meets a float by value.
  it.each<[Value, Value, boolean]>([
    [1, 1, true],
    [2, fl(2), true],
    [fl(2), 2, true],
    [1, 1 + 1e-12, true],
    [1, fl(NaN), false],
    [fl(-0), 0, true],
  ])('%j vs %j: equal=%s', (expected, actual, isEqual) => {
    expect(compare(expected, actual, 'float').equal).toBe(isEqual);
  });

  it('meets two ints exactly where a float is declared: the tolerance forgives rounding, which ints have none of', () => {
    expect(compare(1000000000, 1000000001, 'float')).toEqual(differs('$', 'expected 1000000000, got 1000000001'));
    expect(compare([1000000000], [1000000001], 'List[float]').equal).toBe(false);
    expect(compare({ a: 1000000000 }, { a: 1000000001 }, 'Dict[str, float]').equal).toBe(false);
    expect(compare(10n ** 20n, 10n ** 20n + 1n, 'Union[int, float]').equal).toBe(false);
    expect(compare(10n ** 20n, 10n ** 20n, 'Union[int, float]').equal).toBe(true);
    // Python: an int written under a union with int is an int, met exactly, as == meets it; JavaScript has one number.
    expect(compareWith(1000000000, 1000000000.5, 'Union[float, int]', 'python').equal).toBe(false);
    expect(compareWith([5], [5 + 1e-12], 'List[Union[int, float]]', 'python').equal).toBe(false);
    expect(compareWith(5, floatTag(5), 'Union[int, float]', 'python')).toEqual(equal);
    expect(compareWith(fl(2.5), 2.5 + 1e-12, 'Union[int, float]', 'python')).toEqual(equal);
    expect(compareWith(1000000000, 1000000000.5, 'Union[float, int]', 'javascript')).toEqual(equal);
    // An option the expected value does not belong to is not asked: Union[int, str]'s int is met as an int.
    expect(compareWith(1000000000, 1000000000.5, 'Union[int, str]', 'javascript').equal).toBe(false);
    expect(compareWith(7, 7.000000001, 'Union[bool, int]', 'javascript').equal).toBe(false);
    expect(compareWith('7', '7', 'Union[int, str]', 'javascript')).toEqual(equal);
    // A float on either side is still met within the tolerance.
    expect(compare(fl(1e9), 1000000001, 'float').equal).toBe(true);
    expect(compare([1000000000], [1000000000.5], 'List[float]').equal).toBe(true);
    // JavaScript: whole numbers exactly, at any size; a float the file wrote within the tolerance.
    expect(compareWith([1000000000], [1000000001], 'List[float]', 'javascript').equal).toBe(false);
    expect(compareWith([10n ** 20n], [1e20 + 32768], 'List[float]', 'javascript').equal).toBe(false);
    expect(compareWith(10n ** 20n, 1e20 + 32768, 'Union[int, float]', 'javascript').equal).toBe(false);
    expect(compareWith(floatTag(1e21), 1e21 + 2 ** 20, 'float', 'javascript').equal).toBe(true);
  });

  it('is symmetric around the boundary and honours a custom tolerance', () => {
    const loose = { relative: 1e-3, absolute: 0 };
    expect(compare(100, 100.09, 'float', loose).equal).toBe(true);
    expect(compare(100, 100.2, 'float', loose).equal).toBe(false);
    expect(compare(100.09, 100, 'float', loose).equal).toBe(true);
    const absolute = { relative: 0, absolute: 0.5 };
    expect(compare(1, 1.4, 'float', absolute).equal).toBe(true);
    expect(compare(1, 1.6, 'float', absolute).equal).toBe(false);
    const exact = { relative: 0, absolute: 0 };
    expect(compare(0.3, 0.1 + 0.2, 'float', exact).equal).toBe(false);
  });

  it('explains a difference', () => {
    expect(compare(0.5, 0.25, 'float')).toEqual(differs('$', 'expected 0.5, got 0.25'));
    expect(compare(0.5, '0.5', 'float')).toEqual(differs('$', 'expected float, got string "0.5"'));
    expect(compare(floatTag(1), false, 'float')).toEqual(differs('$', 'expected float, got boolean false'));
    // Outside strict types the message names the declared type, whatever kind the expected number is written in.
    expect(compare(1, false, 'float')).toEqual(differs('$', 'expected float, got boolean false'));
    expect(compare(floatTag(2), 2.5, 'float')).toEqual(differs('$', 'expected 2.0, got 2.5'));
    expect(compare(floatTag(NaN), 0, 'float')).toEqual(differs('$', 'expected NaN, got 0'));
    expect(compare(floatTag(Infinity), floatTag(-Infinity), 'float')).toEqual(differs('$', 'expected Infinity, got -Infinity'));
  });

  it("matches the expected value's own kind with strict types, and only the value otherwise", () => {
    expect(compareWith(floatTag(1), 1, 'float', 'strict')).toEqual(differs('$', 'expected float, got number 1'));
    expect(compareWith(1, floatTag(1), 'float', 'strict')).toEqual(differs('$', 'expected int, got number 1.0'));
    expect(compareWith(1, 1, 'float', 'strict')).toEqual(equal);
    expect(compareWith(floatTag(1), floatTag(1), 'float', 'strict')).toEqual(equal);
    expect(compareWith(floatTag(1), true, 'float', 'strict')).toEqual(differs('$', 'expected float, got boolean true'));
    expect(compareWith(3, floatTag(3), 'int', 'strict')).toEqual(differs('$', 'expected int, got number 3.0'));
    expect(compareWith(floatTag(3), 3, 'int', 'strict')).toEqual(differs('$', 'expected float, got number 3'));
    expect(compareWith(floatTag(3), floatTag(3), 'int', 'strict')).toEqual(equal);
    expect(compareWith(floatTag(NaN), floatTag(NaN), 'float', 'strict')).toEqual(equal);
    expect(compareWith([3], [floatTag(3)], 'Any', 'strict')).toEqual(differs('$[0]', 'expected int 3, got float 3.0'));
    for (const equality of ['python', 'javascript'] as const) {
      expect(compareWith(floatTag(1), 1, 'float', equality)).toEqual(equal);
      expect(compareWith(floatTag(3), 3, 'int', equality)).toEqual(equal);
      expect(compareWith([3], [floatTag(3)], 'Any', equality)).toEqual(equal);
    }
    expect(compareWith(floatTag(1), true, 'float', 'python')).toEqual(equal);
    expect(compareWith(floatTag(-0), 0, 'float', 'python')).toEqual(equal);
  });
});

describe('compareValues: bool, str, None', () => {
  it.each<[Value, Value, string, Comparison]>([
    [true, true, 'bool', equal],
    [true, false, 'bool', differs('$', 'expected true, got false')],
    [true, 1, 'bool', differs('$', 'expected bool, got number 1')],
    [false, 0, 'bool', differs('$', 'expected bool, got number 0')],
    [false, null, 'bool', differs('$', 'expected bool, got null')],
    ['abc', 'abc', 'str', equal],
    ['', '', 'str', equal],
    ['abc', 'abd', 'str', differs('$', 'expected "abc", got "abd"')],
    ['abc', 'ABC', 'str', differs('$', 'expected "abc", got "ABC"')],
    ['Hi ', 'Hi', 'str', differs('$', 'expected "Hi ", got "Hi"')],
    ['1', 1, 'str', differs('$', 'expected str, got number 1')],
    [null, null, 'None', equal],
    [null, 0, 'None', differs('$', 'expected None, got number 0')],
    [null, 'None', 'None', differs('$', 'expected None, got string "None"')],
  ])('%j vs %j as %s', (expected, actual, type, result) => {
    expect(compare(expected, actual, type)).toEqual(result);
  });

  it('treats undefined as None', () => {
    expect(compareValues(null, undefined as unknown as Value, parseType('None'))).toEqual(equal);
    expect(compareValues(null, undefined as unknown as Value, parseType('Optional[int]'))).toEqual(equal);
    expect(compareValues(null, undefined as unknown as Value, parseType('Any'))).toEqual(equal);
  });

  it('points at the first difference of long strings', () => {
    const expected = 'a'.repeat(100) + 'X' + 'b'.repeat(100);
    const actual = 'a'.repeat(100) + 'Y' + 'b'.repeat(100);
    const result = compare(expected, actual, 'str');
    expect(result).toEqual(differs('$', 'strings differ at index 100: expected …"aaaaaaaaaaaaXbbbbbbbbbbb"…, got …"aaaaaaaaaaaaYbbbbbbbbbbb"…'));
    const shorter = compare('x'.repeat(80), 'x'.repeat(79), 'str');
    expect(shorter.equal === false && shorter.reason).toBe('strings differ at index 79: expected …"xxxxxxxxxxxxx", got …"xxxxxxxxxxxx" (length 80 vs 79)');
  });
});

describe('compareValues: lists', () => {
  it.each<[Value, Value, string, Comparison]>([
    [[1, 2, 3], [1, 2, 3], 'List[int]', equal],
    [[], [], 'List[int]', equal],
    [[1, 2, 3], [1, 2], 'List[int]', differs('$', 'expected list of length 3, got length 2')],
    [[1, 2], [1, 2, 3], 'List[int]', differs('$', 'expected list of length 2, got length 3')],
    [[1, 2, 3], [1, 5, 3], 'List[int]', differs('$[1]', 'expected 2, got 5')],
    [[1, 2, 3], [3, 2, 1], 'List[int]', differs('$[0]', 'expected 1, got 3')],
    [[1, 2], [1, '2'], 'List[int]', differs('$[1]', 'expected int, got string "2"')],
    [[1, 2], '[1, 2]', 'List[int]', differs('$', 'expected List[int], got string "[1, 2]"')],
    [[1, 2], { 0: 1, 1: 2 }, 'List[int]', differs('$', 'expected List[int], got object {"0": 1, "1": 2}')],
    [
      [
        [1, 2],
        [3, 4],
      ],
      [
        [1, 2],
        [3, 5],
      ],
      'List[List[int]]',
      differs('$[1][1]', 'expected 4, got 5'),
    ],
    [
      [[1, 2], [3]],
      [
        [1, 2],
        [3, 4],
      ],
      'List[List[int]]',
      differs('$[1]', 'expected list of length 1, got length 2'),
    ],
    [[0.1, 0.2], [0.1, 0.2 + 1e-12], 'List[float]', equal],
    [[0.1, 0.2], [0.1, 0.3], 'List[float]', differs('$[1]', 'expected 0.2, got 0.3')],
    [[0.1, 0.2], [0.1, null], 'List[float]', differs('$[1]', 'expected float, got null')],
    [['a', 'b'], ['a', 'c'], 'List[str]', differs('$[1]', 'expected "b", got "c"')],
  ])('%j vs %j as %s', (expected, actual, type, result) => {
    expect(compare(expected, actual, type)).toEqual(result);
  });

  it('compares a million integers, and finds the one that differs at the end', () => {
    const expected = Array.from({ length: 1_000_000 }, (_, i) => i);
    const actual = [...expected];
    expect(compare(expected, actual, 'List[int]')).toEqual(equal);
    actual[999_999] = -1;
    expect(compare(expected, actual, 'List[int]')).toEqual(differs('$[999999]', 'expected 999999, got -1'));
  });

  it('compares a million floats within tolerance', () => {
    const expected = Array.from({ length: 1_000_000 }, (_, i) => i / 7);
    const actual = expected.map((x) => x * (1 + 1e-12));
    expect(compare(expected, actual, 'List[float]')).toEqual(equal);
  });
});

describe('compareValues: tuples', () => {
  it.each<[Value, Value, string, Comparison]>([
    [[1, 'a'], [1, 'a'], 'Tuple[int, str]', equal],
    [[1, 'a'], [1, 'b'], 'Tuple[int, str]', differs('$[1]', 'expected "a", got "b"')],
    [[1, 2], [1, 2, 3], 'Tuple[int, int]', differs('$', 'expected tuple of length 2, got length 3')],
    [[1, 2], 5, 'Tuple[int, int]', differs('$', 'expected Tuple[int, int], got number 5')],
    [[1.5, 2], [1.5 + 1e-12, 2], 'Tuple[float, int]', equal],
    [[1, 2], [1, 2.5], 'Tuple[float, int]', differs('$[1]', 'expected 2, got 2.5')],
    [[1, 2, 3], [1, 2, 3], 'Tuple[int, ...]', equal],
    [[1, 2, 3], [1, 2, 4], 'Tuple[int, ...]', differs('$[2]', 'expected 3, got 4')],
    [['x', 0.5, 0.25], ['x', 0.5, 0.25 + 1e-13], 'Tuple[str, float, ...]', equal],
    [[1, 'x'], [1, 'x'], 'tuple', equal],
  ])('%j vs %j as %s', (expected, actual, type, result) => {
    expect(compare(expected, actual, type)).toEqual(result);
  });
});

describe('compareValues: a returned dict with two keys that are one key to the comparison', () => {
  it('fails, whichever of the two holds the expected value', () => {
    const expected = dict([[1, 'right']]);
    expect(
      compareWith(
        expected,
        dict([
          [1, 'wrong'],
          [1, 'right'],
        ]),
        'Dict[int, str]',
        'python',
      ),
    ).toEqual(differs('$', 'two keys equal to 1'));
    expect(
      compareWith(
        expected,
        dict([
          [fl(NaN), 'wrong'],
          [fl(NaN), 'right'],
        ]),
        'Dict[float, str]',
        'python',
      ).equal,
    ).toBe(false);
    expect(
      compareWith(
        { '1': 'right' },
        dict([
          [1, 'wrong'],
          ['1', 'right'],
        ]),
        'Dict[Any, str]',
        'python',
      ).equal,
    ).toBe(false);
    expect(
      compareWith(
        { '1': 'right' },
        dict([
          [tuple([1]), 'a'],
          [tuple([1]), 'right'],
        ]),
        'Dict[Tuple[int], str]',
        'javascript',
      ).equal,
    ).toBe(false);
  });
});

describe('compareValues: sets', () => {
  it('meets a whole number past 2**53 as the int it is, two ints exactly under Set[float], and NaN or Infinity repeated once', () => {
    const big = 2n ** 53n;
    for (const equality of ['python', 'javascript'] as const) {
      expect(compareWith(pySet([big, 5]), pySet([5, 2 ** 53]), 'Set[int]', equality)).toEqual(equal);
      expect(compareWith(pySet([2n ** 63n]), [2 ** 63], 'Set[int]', equality)).toEqual(equal);
      expect(compareWith(pySet([1000000000]), pySet([1000000001]), 'Set[float]', equality).equal).toBe(false);
      expect(compareWith(pySet([2n ** 60n, 100]), pySet([2n ** 60n + 1n, 100]), 'FrozenSet[float]', equality).equal).toBe(false);
      expect(compareWith(pySet([2n ** 60n + 1n, 2n ** 60n]), pySet([2n ** 60n, 2n ** 60n + 1n]), 'Set[float]', equality)).toEqual(equal);
      expect(compareWith(pySet([fl(1e9)]), pySet([1000000001]), 'Set[float]', equality)).toEqual(equal);
    }
    expect(compareWith(pySet([1.5, fl(Infinity)]), [fl(Infinity), 1.5, fl(Infinity)], 'Set[float]', 'javascript')).toEqual(equal);
    expect(compareWith(pySet([fl(NaN)]), [fl(NaN), fl(NaN)], 'Set[float]', 'javascript')).toEqual(equal);
  });

  it.each<[Value, Value, string, Comparison]>([
    [[1, 2, 3], [3, 1, 2], 'Set[int]', equal],
    [[], [], 'Set[int]', equal],
    [[1, 2], [2, 1, 2], 'Set[int]', equal],
    [[1, 2, 3], [2, 1, 1], 'Set[int]', differs('$', 'expected set of size 3, got size 2')],
    [[1, 2, 3], [1, 2, 4], 'Set[int]', differs('$', 'missing element 3, unexpected element 4')],
    [[1, 2, 3], [1, 2], 'Set[int]', differs('$', 'expected set of size 3, got size 2')],
    [[1, 2], [1, '2'], 'Set[int]', differs('$[1]', 'expected int, got string "2"')],
    [[1], [true], 'Set[int]', differs('$[0]', 'expected int, got boolean true')],
    [[0], [-0], 'Set[int]', equal],
    [['a', 'b'], ['b', 'a'], 'Set[str]', equal],
    [['1'], [1], 'Set[str]', differs('$[0]', 'expected str, got number 1')],
    [[true, false], [false, true], 'Set[bool]', equal],
    [[1, null], [null, 1], 'Set[Optional[int]]', equal],
    [[1, 'a'], ['a', 1], 'Set[Union[int, str]]', equal],
    [[1, 'a'], ['1', 'a'], 'Set[Union[int, str]]', differs('$', 'missing element 1, unexpected element "1"')],
    [
      [
        [1, 2],
        [3, 4],
      ],
      [
        [3, 4],
        [1, 2],
      ],
      'Set[Tuple[int, int]]',
      equal,
    ],
    [
      [
        [1, 2],
        [3, 4],
      ],
      [
        [4, 3],
        [1, 2],
      ],
      'Set[Tuple[int, int]]',
      differs('$', 'missing element [3, 4], unexpected element [4, 3]'),
    ],
    [[[1, 2], [3]], [[2, 1], [3]], 'Set[FrozenSet[int]]', equal],
    [[{ a: 1, b: 2 }], [{ b: 2, a: 1 }], 'Set[Dict[str, int]]', equal],
    [[['a', 'b']], [['a,b']], 'Set[List[str]]', differs('$', 'missing element ["a", "b"], unexpected element ["a,b"]')],
    [[0.1, 0.2], [0.2, 0.1 + 1e-12], 'Set[float]', equal],
    [[0.1, 0.2, 0.3], [0.2, 0.1, 0.1], 'Set[float]', differs('$', 'expected set of size 3, got size 2')],
    [[0.1, 0.2, 0.3], [0.2, 0.1, 0.4], 'Set[float]', differs('$', 'missing element 0.3, unexpected element 0.4')],
    [[fl(NaN), fl(Infinity), fl(1)], [fl(1), fl(NaN), fl(Infinity)], 'Set[float]', equal],
    [[0], [fl(-0)], 'Set[float]', equal],
    [[0.1], ['0.1'], 'Set[float]', differs('$[0]', 'expected float, got string "0.1"')],
    [[[0.1], [0.2]], [[0.2], [0.1 + 1e-12]], 'Set[List[float]]', equal],
    [[[0.1], [0.2]], [[0.2], [0.3]], 'Set[List[float]]', differs('$', 'missing element [0.1], unexpected element [0.3]')],
    [[1, 'a', [1]], [[1], 1, 'a'], 'set', equal],
    [[1], [1], 'Set[Any]', equal],
  ])('%j vs %j as %s', (expected, actual, type, result) => {
    expect(compare(expected, actual, type)).toEqual(result);
  });

  it('judges a list or tuple returned for a set as set(value) with Python equality, and refuses it with strict types', () => {
    const expected = pySet([5, 6, 8]);
    // Duplicates collapse, as set([8, 6, 5, 5]) == {5, 6, 8}.
    expect(compareWith(expected, [8, 6, 5, 5], 'Set[int]', 'python')).toEqual(equal);
    expect(compareWith(expected, tuple([8, 6, 5, 5]), 'Set[int]', 'python')).toEqual(equal);
    expect(compareWith(expected, [8, 6, 5, 5, 7], 'Set[int]', 'python')).toEqual(differs('$', 'expected set of size 3, got size 4'));
    expect(compareWith(expected, [8, 6, 4, 4], 'Set[int]', 'python')).toEqual(differs('$', 'missing element 5, unexpected element 4'));
    // By Python's hash equality: 1, True and 1.0 are one item.
    expect(compareWith(pySet([1]), [1, true, floatTag(1)], 'Set[int]', 'python')).toEqual(equal);
    expect(compareWith(pySet([floatTag(1), 2.5]), [2.5, 1, 2.5], 'Set[float]', 'python')).toEqual(equal);
    expect(compareWith(pySet([tuple([1, 2])]), [tuple([1, 2]), tuple([1, 2])], 'Set[Tuple[int, int]]', 'python')).toEqual(equal);
    expect(compareWith([pySet([1, 2])], [[2, 1, 1]], 'List[Set[int]]', 'python')).toEqual(equal);
    // Strict types take only a set or a frozenset.
    expect(compareWith(expected, [8, 6, 5], 'Set[int]', 'strict')).toEqual(differs('$', 'expected Set[int], got array [8, 6, 5]'));
    expect(compareWith(expected, tuple([8, 6, 5]), 'Set[int]', 'strict').equal).toBe(false);
    expect(compareWith(expected, pySet([8, 6, 5]), 'Set[int]', 'strict')).toEqual(equal);
    expect(compareWith(expected, pySet([8, 6, 5], true), 'Set[int]', 'strict')).toEqual(equal);
    // JavaScript: an array is judged as new Set(array) keeps it, equal primitives once (true and 1 are two).
    expect(compareWith(expected, [8, 6, 5], 'Set[int]', 'javascript')).toEqual(equal);
    expect(compareWith(expected, [8, 6, 5, 5], 'Set[int]', 'javascript')).toEqual(equal);
    expect(compareWith(pySet([1]), [1, true], 'Set[int]', 'javascript').equal).toBe(false);
    expect(compareWith(expected, [8, 6, 5, 5, 7], 'Set[int]', 'javascript')).toEqual(differs('$', 'expected set of size 3, got size 4'));
  });

  it('finds a pairing that greedy matching misses when tolerance is not transitive', () => {
    const tolerance = { relative: 0, absolute: 1e-9 };
    // [0.45e-9] is close to both actual items, [-0.9e-9] only to [0]: greedy pairs [0.45e-9] with [0] first.
    const expected = [[0.45e-9], [-0.9e-9]];
    const actual = [[0], [0.9e-9]];
    expect(compare(expected, actual, 'Set[List[float]]', tolerance)).toEqual(equal);
    expect(compare(expected.flat(), actual.flat(), 'Set[float]', tolerance)).toEqual(equal);
    expect(compare([[-0.9e-9], [-0.9e-9]], actual, 'Set[List[float]]', tolerance).equal).toBe(false);
  });

  it('compares large sets of primitives in about linear time', () => {
    const expected = Array.from({ length: 200_000 }, (_, i) => i);
    const actual = [...expected].reverse();
    expect(compare(expected, actual, 'Set[int]')).toEqual(equal);
    actual[5] = -1;
    expect(compare(expected, actual, 'Set[int]')).toEqual(differs('$', 'missing element 199994, unexpected element -1'));
    const floats = expected.map((x) => x / 3);
    expect(compare(floats, [...floats].reverse(), 'Set[float]')).toEqual(equal);
    const pairs = expected.slice(0, 50_000).map((x) => [x, -x]);
    expect(compare(pairs, [...pairs].reverse(), 'Set[Tuple[int, int]]')).toEqual(equal);
  });
});

describe('compareValues: dicts', () => {
  it.each<[Value, Value, string, Comparison]>([
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, 'Dict[str, int]', equal],
    [{}, {}, 'Dict[str, int]', equal],
    [{ a: 1, b: 2 }, { a: 1 }, 'Dict[str, int]', differs('$', 'missing key "b"')],
    [{ a: 1 }, { a: 1, c: 3 }, 'Dict[str, int]', differs('$', 'unexpected key "c"')],
    [{ a: 1, b: 2 }, { a: 1, b: 3 }, 'Dict[str, int]', differs('$.b', 'expected 2, got 3')],
    [{ 'odd key': 1 }, { 'odd key': 2 }, 'Dict[str, int]', differs('$["odd key"]', 'expected 1, got 2')],
    [{ '1': 1 }, { '1': 2 }, 'Dict[int, int]', differs('$["1"]', 'expected 1, got 2')],
    [{ a: [1, 2] }, { a: [1, 3] }, 'Dict[str, List[int]]', differs('$.a[1]', 'expected 2, got 3')],
    [{ a: 0.1 }, { a: 0.1 + 1e-12 }, 'Dict[str, float]', equal],
    [{ a: 1 }, [1], 'Dict[str, int]', differs('$', 'expected Dict[str, int], got array [1]')],
    [{ a: 1 }, null, 'Dict[str, int]', differs('$', 'expected Dict[str, int], got null')],
    // A JavaScript object's property names as JavaScript finds them: d[1] reads "1", never "1.0" or "01".
    [{ '1': 'x' }, { '1.0': 'x' }, 'Dict[int, str]', differs('$', 'missing key "1"')],
    [{ '1': 'x' }, { '01': 'x' }, 'Dict[int, str]', differs('$', 'missing key "1"')],
    [{ '1': 'x' }, { '1': 'x' }, 'Dict[int, str]', equal],
    [{ '0.5': 1 }, { '.5': 1 }, 'Dict[float, int]', differs('$', 'missing key "0.5"')],
    [{ Infinity: 1 }, { Infinity: 1 }, 'Dict[float, int]', equal],
    [{ true: 1 }, { True: 1 }, 'Dict[bool, int]', differs('$', 'missing key "true"')],
    [{ null: 1 }, { null: 1 }, 'Dict[None, int]', equal],
    [{ '1': 'x' }, { '1.0': 'x' }, 'Dict[str, str]', differs('$', 'missing key "1"')],
    [{ a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }, 'Dict[str, Dict[str, Dict[str, int]]]', differs('$.a.b.c', 'expected 1, got 2')],
  ])('%j vs %j as %s', (expected, actual, type, result) => {
    expect(compare(expected, actual, type)).toEqual(result);
  });
});

describe('compareValues: what is no dict, and dict keys by kind', () => {
  it('takes no tuple, set or float for a dict, whatever its tag spells: the file wrote a dict', () => {
    const spelled = dict([
      ['$evalrun', 'tuple'],
      ['items', [1]],
    ]);
    expect(compare(spelled, tuple([1]), 'Dict[str, Any]').equal).toBe(false);
    expect(compare(spelled, pySet([1]), 'Dict[str, Any]').equal).toBe(false);
    expect(compare(spelled, floatTag(NaN), 'Dict[str, str]').equal).toBe(false);
    expect(compare(spelled, spelled, 'Dict[str, Any]')).toEqual(equal);
  });

  it('tells a float key from an int key with strict types, as it tells the values apart', () => {
    const intKey = dict([[1, 2]]);
    const floatKey = dict([[floatTag(1), 2]]);
    expect(compareWith(intKey, floatKey, 'Dict[int, int]', 'python')).toEqual(equal);
    expect(compareWith(intKey, floatKey, 'Dict[int, int]', 'strict').equal).toBe(false);
    expect(compareWith(dict([[tuple([1, 2]), 2]]), dict([[tuple([floatTag(1), 2]), 2]]), 'Dict[Tuple[int, int], int]', 'strict').equal).toBe(false);
    expect(compareWith(floatKey, floatKey, 'Dict[float, int]', 'strict')).toEqual(equal);
  });

  it('names a float key without a key type as json.dumps does', () => {
    expect(compareWith({ '1.0': 2 }, dict([[floatTag(1), 2]]), 'dict', 'python')).toEqual(equal);
    expect(compareWith({ Infinity: 2 }, dict([[floatTag(Infinity), 2]]), 'Dict[Any, int]', 'python')).toEqual(equal);
    expect(compareWith({ '1e+16': 2 }, dict([[floatTag(1e16), 2]]), 'dict', 'python')).toEqual(equal);
    expect(compareWith({ '1e-05': 2 }, dict([[0.00001, 2]]), 'dict', 'python')).toEqual(equal);
    expect(compareWith({ '1': 2 }, dict([[floatTag(1), 2]]), 'dict', 'python').equal).toBe(false);
  });
});

describe('compareValues: a JavaScript object for a dict with number keys', () => {
  // Property names stand for numbers only as JavaScript names them: c[1] finds "1", not " 0x1", "01" or "1.0".
  it.each<[Value, Comparison]>([
    [{ '1': 'x', '2': 'y' }, equal],
    [{ ' 0x1': 'x', '2': 'y' }, differs('$', 'missing key 1')],
    [{ '01': 'x', '2': 'y' }, differs('$', 'missing key 1')],
    [{ '1.0': 'x', '2': 'y' }, differs('$', 'missing key 1')],
    [{ '+1': 'x', '2': 'y' }, differs('$', 'missing key 1')],
  ])('%j', (actual, result) => {
    expect(
      compareWith(
        dict([
          [1, 'x'],
          [2, 'y'],
        ]),
        actual,
        'Dict[int, str]',
        'javascript',
      ),
    ).toEqual(result);
  });
});

describe('compareValues: Optional and Union', () => {
  it.each<[Value, Value, string, Comparison]>([
    [null, null, 'Optional[int]', equal],
    [3, 3, 'Optional[int]', equal],
    [null, 3, 'Optional[int]', differs('$', 'expected None, got number 3')],
    [3, null, 'Optional[int]', differs('$', 'expected 3, got null')],
    [3, 4, 'Optional[int]', differs('$', 'expected 3, got 4')],
    [[1, null], [1, null], 'List[Optional[int]]', equal],
    [[1, null], [1, 0], 'List[Optional[int]]', differs('$[1]', 'expected None, got number 0')],
    [7, 7, 'Union[int, str]', equal],
    ['7', '7', 'Union[int, str]', equal],
    [7, '7', 'Union[int, str]', differs('$', 'expected int, got string "7"')],
    ['7', 7, 'Union[int, str]', differs('$', 'expected str, got number 7')],
    [0.5, 0.5 + 1e-12, 'Union[int, float]', equal],
    [[1, 2], [2, 1], 'Union[List[int], Set[int]]', equal],
    [['a', 'b'], ['a', 'c'], 'Union[List[int], List[str]]', differs('$[1]', 'expected "b", got "c"')],
  ])('%j vs %j as %s', (expected, actual, type, result) => {
    expect(compare(expected, actual, type)).toEqual(result);
  });
});

describe('compareValues: Any and unknown types', () => {
  it.each<[Value, Value, string, Comparison]>([
    [1, 1, 'Any', equal],
    [[1, 'a', null, true], [1, 'a', null, true], 'Any', equal],
    [{ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, 'Any', equal],
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, 'Any', equal],
    [0.3, 0.1 + 0.2, 'Any', equal],
    [3, 3.0000000001, 'Any', equal],
    [1e17, 1e17 + 16, 'Any', differs('$', 'expected 100000000000000000, got 100000000000000020')],
    [[1, 2], [2, 1], 'Any', differs('$[0]', 'expected 1, got 2')],
    [1, true, 'Any', differs('$', 'expected 1, got boolean true')],
    [1, '1', 'Any', differs('$', 'expected 1, got string "1"')],
    [[1], { 0: 1 }, 'Any', differs('$', 'expected [1], got object {"0": 1}')],
    [{ a: 1 }, { a: 1, b: 2 }, 'Any', differs('$', 'unexpected key "b"')],
    [{ a: 1, b: 2 }, { a: 1 }, 'Any', differs('$', 'missing key "b"')],
    [{ x: [{ 'y z': [1, 2] }] }, { x: [{ 'y z': [1, 3] }] }, 'Any', differs('$.x[0]["y z"][1]', 'expected 2, got 3')],
    [[[1], [2, [3, 4]]], [[1], [2, [3, 5]]], 'Foo', differs('$[1][1][1]', 'expected 4, got 5')],
    [[[1, 2], 9], [[1, 3], 8], 'Any', differs('$[0][1]', 'expected 2, got 3')],
    [[fl(NaN)], [fl(NaN)], 'Any', equal],
    [[fl(3)], [3], 'Any', equal],
    [fl(3), 3.5, 'Any', differs('$', 'expected 3.0, got 3.5')],
    [true, false, 'Any', differs('$', 'expected true, got false')],
    ['a', 'b', 'Any', differs('$', 'expected "a", got "b"')],
    [[1, 2], [1, 2, 3], 'List[Any]', differs('$', 'expected list of length 2, got length 3')],
  ])('%j vs %j as %s', (expected, actual, type, result) => {
    expect(compare(expected, actual, type)).toEqual(result);
  });

  // Python's == compares an int with a float exactly; the tolerance is for an expected float. JavaScript has one kind of number.
  it.each<[Value, Value, Equality, Comparison]>([
    [1000000000, 1000000000.5, 'python', differs('$', 'expected 1000000000, got 1000000000.5')],
    [[3], [2.9999999999], 'python', differs('$[0]', 'expected 3, got 2.9999999999')],
    [{ k: 3 }, { k: 3.0000000001 }, 'python', differs('$.k', 'expected 3, got 3.0000000001')],
    [3, 3.0000000001, 'strict', differs('$', 'expected int 3, got float 3.0000000001')],
    [true, 0.9999999999, 'python', differs('$', 'expected true, got 0.9999999999')],
    [3, fl(3), 'python', equal],
    [true, fl(1), 'python', equal],
    [0.3, 0.1 + 0.2, 'python', equal],
    [fl(3), 3.0000000001, 'python', equal],
    [2.5, 2.5000000001, 'python', equal],
    [3, 3.0000000001, 'javascript', equal],
    // A float is a float at any size: past 2**52 every float is a whole number, and the tolerance still applies to one expected.
    [fl(1e16), fl(1e16 * (1 + 1e-12)), 'python', equal],
    [[fl(2 ** 53)], [2 ** 53 + 2], 'python', equal],
    [{ k: fl(1e22) }, { k: fl(1e22 * (1 + 1e-10)) }, 'python', equal],
    [fl(1e16), fl(1.1e16), 'python', differs('$', 'expected 1e+16, got 1.1e+16')],
    [fl(1e16), fl(1e16 * (1 + 1e-12)), 'strict', equal],
    [1e16, fl(1e16 * (1 + 1e-12)), 'python', differs('$', 'expected 10000000000000000, got 1.000000000001e+16')],
  ])('%j vs %j as Any, %s equality', (expected, actual, equality, result) => {
    expect(compareWith(expected, actual, 'Any', equality)).toEqual(result);
  });

  // A list returned where a set is expected is judged as set(list); a set is not a list.
  it.each<[Value, Value, Equality, Comparison]>([
    [pySet([1, 2, 3]), [3, 1, 2, 2], 'python', equal],
    [[3, 1, 2], pySet([1, 2, 3]), 'python', differs('$', 'expected [3, 1, 2], got set {1, 2, 3}')],
    [[[3, 1, 2]], [pySet([1, 2, 3])], 'python', differs('$[0]', 'expected [3, 1, 2], got set {1, 2, 3}')],
    [[3, 1, 2], pySet([1, 2, 3]), 'javascript', differs('$', 'expected [3, 1, 2], got set {1, 2, 3}')],
  ])('%j vs %j as Any, %s equality', (expected, actual, equality, result) => {
    expect(compareWith(expected, actual, 'Any', equality)).toEqual(result);
  });

  it('handles 10,000 levels of nesting without overflowing the stack', () => {
    const nest = (depth: number, leaf: Value): Value => {
      let value: Value = leaf;
      for (let i = 0; i < depth; i++) value = { k: [value] };
      return value;
    };
    expect(compare(nest(10_000, 1), nest(10_000, 1), 'Any')).toEqual(equal);
    const result = compare(nest(10_000, 1), nest(10_000, 2), 'Any');
    expect(result.equal).toBe(false);
    if (!result.equal) {
      expect(result.reason).toBe('expected 1, got 2');
      expect(result.path).toBe('$' + '.k[0]'.repeat(10_000));
    }
    expect(compare([nest(10_000, 1)], [nest(10_000, 1)], 'List[Any]')).toEqual(equal);
  });

  it('falls back to structural equality for a cyclic type built in code', () => {
    const recursive = { kind: 'list', item: { kind: 'int' } } as { kind: 'list'; item: TypeNode };
    recursive.item = recursive;
    let expected: Value = [];
    let actual: Value = [7];
    for (let i = 0; i < 10_000; i++) {
      expected = [expected];
      actual = [actual];
    }
    const result = compareValues(expected, actual, recursive);
    expect(result.equal).toBe(false);
    if (!result.equal) {
      expect(result.reason).toBe('expected list of length 0, got length 1');
      expect(result.path).toBe('$' + '[0]'.repeat(10_000));
    }
  });

  it('falls back to structural equality when the expected value does not fit its type', () => {
    expect(compare('7', '7', 'int')).toEqual(equal);
    expect(compare('7', '8', 'int')).toEqual(differs('$', 'expected "7", got "8"'));
    expect(compare({ a: 1 }, { a: 1 }, 'List[int]')).toEqual(equal);
  });
});
