/**
 * Sets compared unordered, by the cheapest route the item type allows:
 * exact item types as multisets of keys, floats by a sorted walk, anything
 * else by matching items pairwise (compare-set-matching.ts).
 */

import { isKeyExact, exactKey, type Key } from './compare-exact-keys.js';
import type { Judge } from './compare-judge.js';
import { at, differ, setReason, wrongKind, type Outcome } from './compare-messages.js';
import { exactInteger, numberOrder, sameNumber, type Numeric } from './compare-numbers.js';
import { compareByMatching } from './compare-set-matching.js';
import { numberOf, sequenceItems, setItems, tagOf } from './py-tags.js';
import type { TypeNode } from './type-node.js';
import { distinctItems } from './value-key.js';

export function compareSets(judge: Judge, expectedValue: unknown, actualValue: unknown, type: TypeNode & { kind: 'set' }, depth: number): Outcome {
  const expected = setItems(expectedValue);
  if (expected === undefined) return judge.structural(expectedValue, actualValue);
  const actual = returnedSetItems(judge, actualValue);
  if (actual === undefined) return wrongKind(type, actualValue);
  if (actual.length !== expected.length) {
    return differ(() => `expected set of size ${expected.length}, got size ${actual.length}`);
  }
  if (expected.length === 0) return undefined;
  const item = type.item;
  if (isKeyExact(item, 0)) {
    const outcome = setByKeys(judge, expected, actual, item);
    if (outcome !== 'not-applicable') return outcome;
  }
  // Strict types also match kinds item by item, which the sorted walk does not.
  if (item.kind === 'float' && judge.equality !== 'strict') {
    const numbers = expected.map((e) => judge.numeric(e));
    if (numbers.every((n) => n !== undefined)) return floatSet(judge, numbers, actual, item);
  }
  return compareByMatching(judge, expected, actual, item, depth);
}

/**
 * The items of what a candidate returned for a declared set, or undefined
 * when it cannot stand for one. Python's rule: a list or a tuple is judged
 * as `set(value)` would be, duplicates collapsed (the reference framework's
 * sets crossed as lists); strict types take only a set or a frozenset.
 * JavaScript's array is judged as `new Set(array)` would be.
 */
function returnedSetItems(judge: Judge, value: unknown): unknown[] | undefined {
  const tag = tagOf(value);
  if (tag === 'set' || tag === 'frozenset') return setItems(value);
  if (judge.equality === 'strict') return undefined;
  const items = sequenceItems(value);
  if (items === undefined) return undefined;
  return judge.equality === 'python' ? distinctItems(items) : distinctPrimitives(items);
}

/** An array as `new Set(array)` keeps it: equal primitives once (NaN once, 0 and -0 alike), every object. */
function distinctPrimitives(items: readonly unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return items.filter((item) => {
    // NaN and the infinities cross the wire as float tags, and are numbers to new Set(array).
    const primitive = tagOf(item) === 'float' ? numberOf(item) : item;
    if (primitive !== null && typeof primitive === 'object') return true;
    if (seen.has(primitive)) return false;
    seen.add(primitive);
    return true;
  });
}

/**
 * Exact item types: equal elements have equal canonical keys, so the sets
 * are compared as multisets of keys in linear time.
 */
function setByKeys(judge: Judge, expected: unknown[], actual: unknown[], item: TypeNode): Outcome | 'not-applicable' {
  const counts = new Map<Key, number>();
  const expectedKeys: Key[] = [];
  for (const element of expected) {
    const key = exactKey(element, item, 0, judge.equality);
    // An expected value that does not fit its own type: let matching sort it out.
    if (key === undefined) return 'not-applicable';
    expectedKeys.push(key);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let unexpected: unknown;
  let anyUnexpected = false;
  for (let i = 0; i < actual.length; i++) {
    const key = exactKey(actual[i], item, 0, judge.equality);
    if (key === undefined) return at(wrongKind(item, actual[i]), i);
    const count = counts.get(key) ?? 0;
    if (count > 0) {
      counts.set(key, count - 1);
    } else if (!anyUnexpected) {
      anyUnexpected = true;
      unexpected = actual[i];
    }
  }
  if (!anyUnexpected) return undefined;
  const missingIndex = expectedKeys.findIndex((key) => (counts.get(key) ?? 0) > 0);
  return differ(() => setReason(expected[missingIndex], unexpected));
}

/**
 * Sorted order pairs numbers within tolerance whenever any pairing does
 * (closeness is monotone along the number line), in O(n log n).
 */
function floatSet(judge: Judge, expected: Numeric[], actualValues: unknown[], item: TypeNode): Outcome {
  const actual: Numeric[] = [];
  for (let i = 0; i < actualValues.length; i++) {
    const a = judge.numeric(actualValues[i]);
    if (a === undefined) return at(wrongKind(item, actualValues[i]), i);
    actual.push(a);
  }
  // Ints past 2**53 that round to one double are told apart by their exact values.
  const byValue = (x: Numeric, y: Numeric): number => numberOrder(Number(x.n), Number(y.n)) || (x.n < y.n ? -1 : x.n > y.n ? 1 : 0);
  const sortedExpected = [...expected].sort(byValue);
  const sortedActual = [...actual].sort(byValue);
  // Two ints meet exactly, as they do in a list of floats: the tolerance forgives a float's rounding.
  const meet = (e: Numeric, a: Numeric): boolean => (exactInteger(e) && exactInteger(a) ? sameNumber(e.n, a.n) : judge.close(Number(e.n), Number(a.n)));
  let missing: number | bigint | undefined;
  let unexpected: number | bigint | undefined;
  let i = 0;
  let j = 0;
  while (i < sortedExpected.length && j < sortedActual.length) {
    const e = sortedExpected[i]!;
    const a = sortedActual[j]!;
    if (meet(e, a)) {
      i++;
      j++;
    } else if (byValue(e, a) < 0) {
      missing ??= e.n;
      i++;
    } else {
      unexpected ??= a.n;
      j++;
    }
  }
  if (i < sortedExpected.length) missing ??= sortedExpected[i]!.n;
  if (j < sortedActual.length) unexpected ??= sortedActual[j]!.n;
  if (missing === undefined && unexpected === undefined) return undefined;
  return differ(() => setReason(missing, unexpected));
}
