/**
 * Sets compared unordered, by the cheapest route the item type allows:
 * exact item types as multisets of keys, floats by a sorted walk, anything
 * else by matching items pairwise (compare-set-matching.ts).
 */

import { isKeyExact, exactKey, type Key } from './compare-exact-keys.js';
import type { Judge } from './compare-judge.js';
import { at, differ, setReason, wrongKind, type Outcome } from './compare-messages.js';
import { numberOrder } from './compare-numbers.js';
import { compareByMatching } from './compare-set-matching.js';
import { sequenceItems, setItems, tagOf } from './py-tags.js';
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
    if (numbers.every((n) => n !== undefined))
      return floatSet(
        judge,
        numbers.map((n) => Number(n.n)),
        actual,
        item,
      );
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
    if (item !== null && typeof item === 'object') return true;
    if (seen.has(item)) return false;
    seen.add(item);
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
function floatSet(judge: Judge, expected: number[], actualValues: unknown[], item: TypeNode): Outcome {
  const actual: number[] = [];
  for (let i = 0; i < actualValues.length; i++) {
    const a = judge.numeric(actualValues[i]);
    if (a === undefined) return at(wrongKind(item, actualValues[i]), i);
    actual.push(Number(a.n));
  }
  const sortedExpected = [...expected].sort(numberOrder);
  const sortedActual = [...actual].sort(numberOrder);
  let missing: number | undefined;
  let unexpected: number | undefined;
  let i = 0;
  let j = 0;
  while (i < sortedExpected.length && j < sortedActual.length) {
    const e = sortedExpected[i]!;
    const a = sortedActual[j]!;
    if (judge.close(e, a)) {
      i++;
      j++;
    } else if (numberOrder(e, a) < 0) {
      missing ??= e;
      i++;
    } else {
      unexpected ??= a;
      j++;
    }
  }
  if (i < sortedExpected.length) missing ??= sortedExpected[i];
  if (j < sortedActual.length) unexpected ??= sortedActual[j];
  if (missing === undefined && unexpected === undefined) return undefined;
  return differ(() => setReason(missing, unexpected));
}
