/**
 * Type-guided deep equality between an expected value and what a candidate
 * returned. The declared type decides what "equal" means: floats within a
 * tolerance, ints exactly at any size, sets unordered, dicts by key (read
 * by the key type), tuples equal to lists. `Any` and unknown types fall back
 * to structural equality. The equality rule decides how numbers meet:
 *
 * - `python`: as Python's `==` (True == 1 == 1.0), for Python candidates;
 * - `strict`: bool, int and float are distinct (`--strict-types`);
 * - `javascript`: bools are never numbers, ints and floats are both numbers.
 *
 * An int compared with an int, or with a float where an int is declared, is
 * compared exactly, as Python does: float(10**20 + 1) != 10**20 + 1.
 *
 * This runs once per test case, so equal values take the cheap route: no
 * paths are built and no messages formatted until a difference is found.
 */

import { DEFAULTS } from '../defaults.js';
import { distinctItems, formatValue, valueKey } from './format.js';
import { numberOf, setItems, sequenceItems, tagOf, type DictTag } from './py-tags.js';
import { parsePythonLiteral, pythonFloat } from './python-literal.js';
import { formatType } from './type-grammar.js';
import type { TypeNode, Value } from './type-node.js';

export interface Tolerance {
  relative: number;
  absolute: number;
}

/** `--float-tolerance`'s default, from the one place defaults are written. */
export const DEFAULT_TOLERANCE: Tolerance = DEFAULTS.floatTolerance;

export type Comparison = { equal: true } | { equal: false; path: string; reason: string };

export type Equality = 'python' | 'strict' | 'javascript';

/**
 * Compares `actual` with `expected` as values of `type`. On a difference,
 * `path` locates the first one (`$`, `$[2]`, `$.key`, `$["odd key"][0]`)
 * and `reason` says what it is (`expected 3, got 4`, `missing key "b"`).
 */
export function compareValues(
  expected: Value,
  actual: Value,
  type: TypeNode,
  tolerance: Tolerance = DEFAULT_TOLERANCE,
  equality: Equality = 'javascript',
): Comparison {
  const mismatch = new Comparer(tolerance, equality).compare(expected, actual, type, 0);
  if (mismatch === undefined) return { equal: true };
  return { equal: false, path: renderPath(mismatch.segments), reason: mismatch.reason() };
}

type Segment = string | number;

/**
 * Segments run innermost first: they are collected while unwinding. The
 * reason is only rendered for the mismatch that is reported: set matching
 * meets thousands of unequal pairs and must not format each of them.
 */
interface Mismatch {
  segments: Segment[];
  reason: () => string;
}

type Outcome = Mismatch | undefined;

/** Typed recursion follows the type, which is shallow unless built cyclic in code. */
const MAX_TYPED_DEPTH = 500;
/** Sets up to this size get an exact matching when the greedy one fails. */
const MAX_EXACT_MATCHING = 1000;
/** Display length of values inside reasons. */
const SHOWN = 40;

const ANY: TypeNode = Object.freeze({ kind: 'any' });

function differ(reason: () => string): Mismatch {
  return { segments: [], reason };
}

function at(mismatch: Mismatch, segment: Segment): Mismatch {
  mismatch.segments.push(segment);
  return mismatch;
}

function show(value: unknown): string {
  return formatValue(value, SHOWN);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint') return 'number';
  switch (tagOf(value)) {
    case 'tuple':
      return 'array';
    case 'set':
    case 'frozenset':
      return 'set';
    case 'float':
      return 'number';
    case 'dict':
      return 'object';
    default:
      return typeof value;
  }
}

/** Exact equality of two numbers as Python compares them (ints at any size, an int with a float). */
function sameNumber(x: number | bigint, y: number | bigint): boolean {
  if (typeof x === 'number' && typeof y === 'number') return x === y;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x === y;
  const n = (typeof x === 'number' ? x : y) as number;
  const b = (typeof x === 'bigint' ? x : y) as bigint;
  return Number.isInteger(n) && BigInt(n) === b;
}

function isIntegral(n: number | bigint): boolean {
  return typeof n === 'bigint' || Number.isInteger(n);
}

/** `expected int, got string "3"`. */
function wrongKind(expected: string | TypeNode, actual: unknown): Mismatch {
  return differ(() => {
    const kind = kindOf(actual);
    const shown = kind === 'null' || kind === 'undefined' ? kind : `${kind} ${show(actual)}`;
    return `expected ${typeof expected === 'string' ? expected : formatType(expected)}, got ${shown}`;
  });
}

function isNull(value: unknown): boolean {
  return value === null || value === undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

class Comparer {
  constructor(
    private readonly tolerance: Tolerance,
    private readonly equality: Equality = 'javascript',
  ) {}

  /**
   * The number a value stands for under the equality rule, as what kind:
   * bools are numbers only in Python's rule; a plain number is an int when
   * integral, and a float otherwise, a float tag always a float (py-tags.ts).
   */
  private numeric(value: unknown): { n: number | bigint; kind: 'int' | 'float' | 'bool' } | undefined {
    if (typeof value === 'boolean') return this.equality === 'python' ? { n: value ? 1 : 0, kind: 'bool' } : undefined;
    if (typeof value === 'bigint') return { n: value, kind: 'int' };
    if (typeof value === 'number') return { n: value, kind: Number.isInteger(value) ? 'int' : 'float' };
    const tagged = numberOf(value);
    return tagged === undefined ? undefined : { n: tagged, kind: 'float' };
  }

  compare(expected: unknown, actual: unknown, type: TypeNode, depth: number): Outcome {
    if (depth > MAX_TYPED_DEPTH) return this.structural(expected, actual);
    switch (type.kind) {
      case 'int': {
        const e = this.numeric(expected);
        if (e === undefined || !isIntegral(e.n)) return this.structural(expected, actual);
        if (actual === expected) return undefined;
        const a = this.numeric(actual);
        // Strict types: the kind the expected value is written in (an int, or an integral float) must match.
        if (a === undefined || (this.equality === 'strict' && a.kind !== e.kind)) return wrongKind(this.equality === 'strict' ? e.kind : 'int', actual);
        if (sameNumber(e.n, a.n)) return undefined;
        return differ(() => `expected ${show(expected)}, got ${show(actual)}`);
      }
      case 'float': {
        const e = this.numeric(expected);
        if (e === undefined) return this.structural(expected, actual);
        const a = this.numeric(actual);
        // Strict types: an int written where a float is declared (`List[float]` holding `5`) is an int.
        if (a === undefined || (this.equality === 'strict' && a.kind !== e.kind)) return wrongKind(this.equality === 'strict' ? e.kind : 'float', actual);
        if (this.close(Number(e.n), Number(a.n))) return undefined;
        return differ(() => `expected ${show(expected)}, got ${show(actual)}`);
      }
      case 'bool':
        if (typeof expected !== 'boolean') return this.structural(expected, actual);
        if (typeof actual !== 'boolean') {
          // Python: True == 1 == 1.0.
          const a = this.equality === 'python' ? this.numeric(actual) : undefined;
          if (a === undefined) return wrongKind('bool', actual);
          return sameNumber(a.n, expected ? 1 : 0) ? undefined : differ(() => `expected ${expected}, got ${show(actual)}`);
        }
        return actual === expected ? undefined : differ(() => `expected ${expected}, got ${actual}`);
      case 'str':
        if (typeof expected !== 'string') return this.structural(expected, actual);
        if (typeof actual !== 'string') return wrongKind('str', actual);
        return actual === expected ? undefined : differ(() => stringDifference(expected, actual));
      case 'none':
        if (!isNull(expected)) return this.structural(expected, actual);
        return isNull(actual) ? undefined : wrongKind('None', actual);
      case 'optional':
        if (isNull(expected)) return isNull(actual) ? undefined : wrongKind('None', actual);
        if (isNull(actual)) return differ(() => `expected ${show(expected)}, got null`);
        return this.compare(expected, actual, type.inner, depth + 1);
      case 'union':
        return this.union(expected, actual, type, depth);
      case 'list':
        return this.list(expected, actual, type, depth);
      case 'tuple':
        return this.tuple(expected, actual, type, depth);
      case 'set':
        return this.set(expected, actual, type, depth);
      case 'dict':
        return this.dict(expected, actual, type, depth);
      case 'any':
      case 'unknown':
        return this.structural(expected, actual);
    }
  }

  /** NaN equals NaN and infinities equal themselves: a float result may legitimately be either. */
  close(expected: number, actual: number): boolean {
    if (expected === actual) return true;
    if (Number.isNaN(expected) || Number.isNaN(actual)) return Number.isNaN(expected) && Number.isNaN(actual);
    if (!Number.isFinite(expected) || !Number.isFinite(actual)) return false;
    const { relative, absolute } = this.tolerance;
    const scale = Math.max(Math.abs(expected), Math.abs(actual));
    return Math.abs(actual - expected) <= Math.max(absolute, relative * scale);
  }

  // -- containers -----------------------------------------------------------

  private list(expectedValue: unknown, actualValue: unknown, type: TypeNode & { kind: 'list' }, depth: number): Outcome {
    const expected = sequenceItems(expectedValue);
    if (expected === undefined) return this.structural(expectedValue, actualValue);
    // A tuple for a list is equal, as the reference framework judges (its values cross as JSON).
    const actual = sequenceItems(actualValue);
    if (actual === undefined) return wrongKind(type, actualValue);
    if (actual.length !== expected.length) {
      return differ(() => `expected list of length ${expected.length}, got length ${actual.length}`);
    }
    const item = type.item;
    // Lists of numbers are the common big case: skip the generic dispatch per element.
    if (item.kind === 'int') {
      for (let i = 0; i < expected.length; i++) {
        if (actual[i] !== expected[i]) {
          const mismatch = this.compare(expected[i], actual[i], item, depth + 1);
          if (mismatch) return at(mismatch, i);
        }
      }
      return undefined;
    }
    if (item.kind === 'float') {
      for (let i = 0; i < expected.length; i++) {
        const e: unknown = expected[i];
        const a: unknown = actual[i];
        if (typeof e === 'number' && typeof a === 'number' && this.close(e, a)) continue;
        const mismatch = this.compare(e, a, item, depth + 1);
        if (mismatch) return at(mismatch, i);
      }
      return undefined;
    }
    for (let i = 0; i < expected.length; i++) {
      const mismatch = this.compare(expected[i], actual[i], item, depth + 1);
      if (mismatch) return at(mismatch, i);
    }
    return undefined;
  }

  /** A list will do for a tuple: JavaScript has no tuples, and the reference framework lets them be equal. */
  private tuple(expectedValue: unknown, actualValue: unknown, type: TypeNode & { kind: 'tuple' }, depth: number): Outcome {
    const expected = sequenceItems(expectedValue);
    if (expected === undefined) return this.structural(expectedValue, actualValue);
    const actual = sequenceItems(actualValue);
    if (actual === undefined) return wrongKind(type, actualValue);
    if (actual.length !== expected.length) {
      return differ(() => `expected tuple of length ${expected.length}, got length ${actual.length}`);
    }
    for (let i = 0; i < expected.length; i++) {
      const itemType = type.items[i] ?? type.rest ?? ANY;
      const mismatch = this.compare(expected[i], actual[i], itemType, depth + 1);
      if (mismatch) return at(mismatch, i);
    }
    return undefined;
  }

  private dict(expected: unknown, actual: unknown, type: TypeNode & { kind: 'dict' }, depth: number): Outcome {
    if (!isRecord(expected)) return this.structural(expected, actual);
    if (!isRecord(actual)) return wrongKind(type, actual);
    if (tagOf(expected) === undefined && tagOf(actual) === undefined) return this.plainDict(expected, actual, type, depth);
    const expectedEntries = this.entries(expected, type.key);
    const actualEntries = this.entries(actual, type.key);
    const actualByKey = new Map<string, [Value, Value]>();
    for (const entry of actualEntries) actualByKey.set(entry.canon, [entry.key, entry.value]);
    const expectedSet = new Set<string>();
    for (const entry of expectedEntries) {
      expectedSet.add(entry.canon);
      if (!actualByKey.has(entry.canon)) return differ(() => `missing key ${show(entry.key)}`);
    }
    for (const entry of actualEntries) {
      if (!expectedSet.has(entry.canon)) return differ(() => `unexpected key ${show(entry.key)}`);
    }
    for (const entry of expectedEntries) {
      const mismatch = this.compare(entry.value, actualByKey.get(entry.canon)![1], type.value, depth + 1);
      if (mismatch) return at(mismatch, typeof entry.key === 'string' ? entry.key : formatValue(entry.key, SHOWN));
    }
    return undefined;
  }

  /** A dict's entries with each key's canonical text: equal keys (by the key type and the rule) have equal texts. */
  private entries(value: Record<string, unknown>, keyType: TypeNode): Array<{ key: Value; value: Value; canon: string }> {
    if (tagOf(value) === 'dict') {
      return (value as unknown as DictTag).entries.map(([key, item]) => ({ key, value: item, canon: this.keyCanon(key, keyType) }));
    }
    return Object.keys(value).map((key) => ({ key, value: value[key] as Value, canon: this.objectKeyCanon(key, keyType) }));
  }

  /**
   * A key of a plain object. From Python that is a str key; from JavaScript
   * (and in problem files) it is a property name, which stands for a number
   * or a bool as well: read by the key type. Without a key type, a key is
   * compared as the text JSON would give it, as the reference framework does.
   */
  private objectKeyCanon(key: string, keyType: TypeNode): string {
    if (keyType.kind === 'any' || keyType.kind === 'unknown') return `j${key}`;
    if (keyType.kind === 'str' || this.equality !== 'javascript') return `s${key}`;
    if (keyType.kind === 'tuple') {
      const literal = parsePythonLiteral(key);
      return literal.ok ? this.keyCanon(literal.value, keyType) : `s${key}`;
    }
    const canonical = keyCanonicaliser(keyType)(key);
    if (keyType.kind === 'int' || keyType.kind === 'float') {
      const n = Number(canonical);
      return Number.isNaN(n) && canonical !== 'NaN' ? `s${key}` : this.keyCanon(n, keyType);
    }
    if (keyType.kind === 'bool') return canonical === 'true' || canonical === 'false' ? this.keyCanon(canonical === 'true', keyType) : `s${key}`;
    return canonical === 'null' ? 'N' : `s${key}`;
  }

  /** A key held as a value (a dict tag's key). */
  private keyCanon(key: Value, keyType: TypeNode): string {
    if (keyType.kind === 'any' || keyType.kind === 'unknown') {
      if (typeof key === 'string') return `j${key}`;
      if (typeof key === 'number' || typeof key === 'bigint' || typeof key === 'boolean' || key === null) return `j${String(key)}`;
    }
    if (typeof key === 'string') return `s${key}`;
    if (key === null) return 'N';
    const sequence = sequenceItems(key);
    if (sequence !== undefined) {
      const items = keyType.kind === 'tuple' ? keyType : undefined;
      return `(${sequence.map((item, i) => this.keyCanon(item, items?.items[i] ?? items?.rest ?? ANY)).join(',')})`;
    }
    if (typeof key === 'boolean' && this.equality !== 'python') return key ? 'T' : 'F';
    const n = this.numeric(key);
    if (n !== undefined) {
      // Equal numbers are equal keys (1 == 1.0 == True in Python), whatever their form.
      if (isIntegral(n.n) && (typeof n.n === 'bigint' || Number.isFinite(n.n))) return `n${BigInt(n.n).toString()}`;
      return `n${String(n.n)}`;
    }
    return `v${valueKey(key) ?? Math.random()}`;
  }

  private plainDict(expected: Record<string, unknown>, actual: Record<string, unknown>, type: TypeNode & { kind: 'dict' }, depth: number): Outcome {
    const canonical = keyCanonicaliser(type.key);
    const expectedKeys = Object.keys(expected);
    const actualKeys = Object.keys(actual);
    // Canonical key -> key as written in `actual`.
    const actualByKey = new Map<string, string>();
    for (const key of actualKeys) actualByKey.set(canonical(key), key);
    const expectedSet = new Set<string>();
    for (const key of expectedKeys) {
      const canon = canonical(key);
      expectedSet.add(canon);
      if (!actualByKey.has(canon)) return differ(() => `missing key ${JSON.stringify(key)}`);
    }
    for (const key of actualKeys) {
      if (!expectedSet.has(canonical(key))) return differ(() => `unexpected key ${JSON.stringify(key)}`);
    }
    for (const key of expectedKeys) {
      const actualKey = actualByKey.get(canonical(key))!;
      const mismatch = this.compare(expected[key], actual[actualKey], type.value, depth + 1);
      if (mismatch) return at(mismatch, key);
    }
    return undefined;
  }

  /**
   * Equal under any option. When none fits, the reason comes from the option
   * the expected value itself belongs to, which is the one the author meant.
   */
  private union(expected: unknown, actual: unknown, type: TypeNode & { kind: 'union' }, depth: number): Outcome {
    const mismatches: Mismatch[] = [];
    for (const option of type.options) {
      const mismatch = this.compare(expected, actual, option, depth + 1);
      if (mismatch === undefined) return undefined;
      mismatches.push(mismatch);
    }
    const meant = type.options.findIndex((option) => conforms(expected, option, 0));
    return mismatches[Math.max(0, meant)];
  }

  // -- sets -----------------------------------------------------------------

  private set(expectedValue: unknown, actualValue: unknown, type: TypeNode & { kind: 'set' }, depth: number): Outcome {
    const expected = setItems(expectedValue);
    if (expected === undefined) return this.structural(expectedValue, actualValue);
    const actual = this.returnedSetItems(actualValue);
    if (actual === undefined) return wrongKind(type, actualValue);
    if (actual.length !== expected.length) {
      return differ(() => `expected set of size ${expected.length}, got size ${actual.length}`);
    }
    if (expected.length === 0) return undefined;
    const item = type.item;
    if (isKeyExact(item, 0)) {
      const outcome = this.setByKeys(expected, actual, item);
      if (outcome !== 'not-applicable') return outcome;
    }
    // Strict types also match kinds item by item, which the sorted walk does not.
    if (item.kind === 'float' && this.equality !== 'strict') {
      const numbers = expected.map((e) => this.numeric(e));
      if (numbers.every((n) => n !== undefined)) return this.floatSet(numbers.map((n) => Number(n.n)), actual, item);
    }
    return this.setByMatching(expected, actual, item, depth);
  }

  /**
   * The items of what a candidate returned for a declared set, or undefined
   * when it cannot stand for one. Python's rule: a list or a tuple is judged
   * as `set(value)` would be, duplicates collapsed (the reference framework's
   * sets crossed as lists); strict types take only a set or a frozenset.
   * JavaScript returns its Sets as arrays, whose items are already distinct.
   */
  private returnedSetItems(value: unknown): unknown[] | undefined {
    const tag = tagOf(value);
    if (tag === 'set' || tag === 'frozenset') return setItems(value);
    if (this.equality === 'strict') return undefined;
    const items = sequenceItems(value);
    return items === undefined || this.equality !== 'python' ? items : distinctItems(items);
  }

  /**
   * Exact item types: equal elements have equal canonical keys, so the sets
   * are compared as multisets of keys in linear time.
   */
  private setByKeys(expected: unknown[], actual: unknown[], item: TypeNode): Outcome | 'not-applicable' {
    const counts = new Map<Key, number>();
    const expectedKeys: Key[] = [];
    for (const element of expected) {
      const key = exactKey(element, item, 0, this.equality);
      // An expected value that does not fit its own type: let matching sort it out.
      if (key === undefined) return 'not-applicable';
      expectedKeys.push(key);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    let unexpected: unknown;
    let anyUnexpected = false;
    for (let i = 0; i < actual.length; i++) {
      const key = exactKey(actual[i], item, 0, this.equality);
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
  private floatSet(expected: number[], actualValues: unknown[], item: TypeNode): Outcome {
    const actual: number[] = [];
    for (let i = 0; i < actualValues.length; i++) {
      const a = this.numeric(actualValues[i]);
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
      if (this.close(e, a)) {
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

  /**
   * Items equal only up to tolerance (floats inside containers, Any): a
   * greedy pairing, confirmed by a maximum matching when greedy is stuck,
   * since tolerance is not transitive and greedy can choose badly.
   */
  private setByMatching(expected: unknown[], actual: unknown[], item: TypeNode, depth: number): Outcome {
    const n = expected.length;
    const cache = n <= MAX_EXACT_MATCHING ? new Int8Array(n * n) : undefined;
    const equal = (i: number, j: number): boolean => {
      if (cache === undefined) return this.compare(expected[i], actual[j], item, depth + 1) === undefined;
      const index = i * n + j;
      if (cache[index] === 0) cache[index] = this.compare(expected[i], actual[j], item, depth + 1) ? 2 : 1;
      return cache[index] === 1;
    };
    const owner = new Int32Array(n).fill(-1);
    const unmatched: number[] = [];
    let firstFree = 0;
    for (let i = 0; i < n; i++) {
      while (firstFree < n && owner[firstFree]! >= 0) firstFree++;
      let found = false;
      for (let j = firstFree; j < n; j++) {
        if (owner[j]! < 0 && equal(i, j)) {
          owner[j] = i;
          found = true;
          break;
        }
      }
      if (!found) unmatched.push(i);
    }
    if (unmatched.length === 0) return undefined;
    if (cache !== undefined && completeMatching(n, owner, unmatched, equal)) return undefined;
    const freeActual = owner.findIndex((claimedBy) => claimedBy < 0);
    return differ(() => setReason(expected[unmatched[0]!], actual[freeActual]));
  }

  // -- structural (Any) -------------------------------------------------------

  /**
   * Deep equality without a type, iterative so that values nested thousands
   * of levels deep cannot exhaust the stack. Numbers compare exactly when both
   * are integers and within tolerance otherwise; dict key order is ignored.
   */
  structural(expected: unknown, actual: unknown): Outcome {
    const first = this.step(expected, actual, undefined, undefined);
    if (!(first instanceof Frame)) return first;
    const stack: Frame[] = [first];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next >= frame.size) {
        stack.pop();
        continue;
      }
      const index = frame.next++;
      const segment: Segment = frame.keys ? frame.keys[index]! : index;
      const e = frame.expectedAt(segment);
      const a = frame.actualAt(segment);
      const outcome = this.step(e, a, frame, segment);
      if (outcome instanceof Frame) stack.push(outcome);
      else if (outcome !== undefined) return outcome;
    }
    return undefined;
  }

  /** The kind a value is compared as without a type; tagged containers get a typed comparison. */
  private structuralKind(value: unknown): string {
    const kind = kindOf(value);
    if (kind === 'boolean' && this.equality === 'python') return 'number';
    if (kind === 'object' && tagOf(value) === 'dict') return 'tagged-object';
    return kind;
  }

  /** Compares one pair: a mismatch, undefined when equal, or a Frame to descend into. */
  private step(expected: unknown, actual: unknown, parent: Frame | undefined, segment: Segment | undefined): Outcome | Frame {
    const fail = (reason: () => string): Mismatch => ({ segments: pathOf(parent, segment), reason });
    if (expected === actual) return undefined;
    if (isNull(expected) && isNull(actual)) return undefined;
    // A tuple equals a list with the same items.
    if (tagOf(expected) === 'tuple') expected = sequenceItems(expected);
    if (tagOf(actual) === 'tuple') actual = sequenceItems(actual);
    let kind = this.structuralKind(expected);
    const actualKind = this.structuralKind(actual);
    if (kind !== actualKind) {
      const pair = new Set([kind, actualKind]);
      if (pair.has('set') && pair.has('array')) kind = 'set';
      else if (pair.has('tagged-object') && pair.has('object')) kind = 'tagged-object';
      else return fail(() => `expected ${show(expected)}, got ${kindOf(actual)} ${show(actual)}`);
    }
    switch (kind) {
      case 'number': {
        const e = this.numeric(expected)!;
        const a = this.numeric(actual)!;
        if (this.equality === 'strict' && (e.kind === 'float') !== (a.kind === 'float')) {
          return fail(() => `expected ${e.kind} ${show(expected)}, got ${a.kind} ${show(actual)}`);
        }
        const equal = isIntegral(e.n) && isIntegral(a.n) ? sameNumber(e.n, a.n) : this.close(Number(e.n), Number(a.n));
        return equal ? undefined : fail(() => `expected ${show(expected)}, got ${show(actual)}`);
      }
      case 'set':
      case 'tagged-object': {
        // Python's kinds nest rarely; they are compared by a type standing for Any.
        const type: TypeNode = kind === 'set' ? { kind: 'set', item: ANY } : { kind: 'dict', key: ANY, value: ANY };
        const mismatch = this.compare(expected, actual, type, MAX_TYPED_DEPTH - 100);
        if (mismatch === undefined) return undefined;
        mismatch.segments.push(...pathOf(parent, segment));
        return mismatch;
      }
      case 'string':
        return fail(() => stringDifference(expected as string, actual as string));
      case 'array': {
        const e = expected as unknown[];
        const a = actual as unknown[];
        if (e.length !== a.length) return fail(() => `expected list of length ${e.length}, got length ${a.length}`);
        return e.length === 0 ? undefined : new Frame(e, a, undefined, parent, segment);
      }
      case 'object': {
        const e = expected as Record<string, unknown>;
        const a = actual as Record<string, unknown>;
        const keys = Object.keys(e);
        for (const key of keys) if (!hasOwn(a, key)) return fail(() => `missing key ${JSON.stringify(key)}`);
        if (Object.keys(a).length !== keys.length) {
          const extra = Object.keys(a).find((key) => !hasOwn(e, key))!;
          return fail(() => `unexpected key ${JSON.stringify(extra)}`);
        }
        return keys.length === 0 ? undefined : new Frame(e, a, keys, parent, segment);
      }
      default:
        // Booleans, and anything exotic that is not identical.
        return fail(() => `expected ${show(expected)}, got ${show(actual)}`);
    }
  }
}

/** One container being walked by {@link Comparer.structural}. */
class Frame {
  next = 0;
  readonly size: number;

  constructor(
    private readonly expected: unknown[] | Record<string, unknown>,
    private readonly actual: unknown[] | Record<string, unknown>,
    readonly keys: string[] | undefined,
    readonly parent: Frame | undefined,
    readonly segment: Segment | undefined,
  ) {
    this.size = keys ? keys.length : (expected as unknown[]).length;
  }

  expectedAt(segment: Segment): unknown {
    return (this.expected as Record<string | number, unknown>)[segment];
  }

  actualAt(segment: Segment): unknown {
    return (this.actual as Record<string | number, unknown>)[segment];
  }
}

function pathOf(parent: Frame | undefined, segment: Segment | undefined): Segment[] {
  const segments: Segment[] = [];
  if (segment !== undefined) segments.push(segment);
  for (let frame = parent; frame !== undefined; frame = frame.parent) {
    if (frame.segment !== undefined) segments.push(frame.segment);
  }
  return segments;
}

/** Kuhn's augmenting paths from each element greedy left unmatched. */
function completeMatching(
  n: number,
  owner: Int32Array,
  unmatched: number[],
  equal: (i: number, j: number) => boolean,
): boolean {
  const visited = new Uint8Array(n);
  const augment = (i: number): boolean => {
    for (let j = 0; j < n; j++) {
      if (visited[j] || !equal(i, j)) continue;
      visited[j] = 1;
      if (owner[j]! < 0 || augment(owner[j]!)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (const i of unmatched) {
    visited.fill(0);
    if (!augment(i)) return false;
  }
  return true;
}

function setReason(missing: unknown, unexpected: unknown): string {
  const parts: string[] = [];
  if (missing !== undefined) parts.push(`missing element ${show(missing)}`);
  if (unexpected !== undefined) parts.push(`unexpected element ${show(unexpected)}`);
  return parts.join(', ');
}

/** Ascending with NaN last; infinities compare as themselves. */
function numberOrder(x: number, y: number): number {
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether a value has the shape of a type; says which union option a value belongs to. */
function conforms(value: unknown, type: TypeNode, depth: number): boolean {
  if (depth > MAX_TYPED_DEPTH) return true;
  const fits = (item: unknown, itemType: TypeNode): boolean => conforms(item, itemType, depth + 1);
  switch (type.kind) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number';
    case 'str':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'none':
      return isNull(value);
    case 'optional':
      return isNull(value) || fits(value, type.inner);
    case 'union':
      return type.options.some((option) => fits(value, option));
    case 'list':
    case 'set':
      return Array.isArray(value) && value.every((item) => fits(item, type.item));
    case 'tuple':
      return (
        Array.isArray(value) &&
        (type.rest === undefined ? value.length === type.items.length : value.length >= type.items.length) &&
        value.every((item, i) => fits(item, type.items[i] ?? type.rest ?? ANY))
      );
    case 'dict':
      return isRecord(value) && Object.values(value).every((item) => fits(item, type.value));
    case 'any':
    case 'unknown':
      return true;
  }
}

// -- exact keys ----------------------------------------------------------------

/** Types whose equality is exact, so that a canonical string decides it. */
function isKeyExact(type: TypeNode, depth: number): boolean {
  if (depth > 50) return false;
  switch (type.kind) {
    case 'int':
    case 'str':
    case 'bool':
    case 'none':
      return true;
    case 'optional':
      return isKeyExact(type.inner, depth + 1);
    case 'union':
      // Containers under a union could be equal under one option and not another.
      return type.options.every((option) => option.kind === 'int' || option.kind === 'str' || option.kind === 'bool');
    case 'list':
    case 'set':
      return isKeyExact(type.item, depth + 1);
    case 'tuple':
      return type.items.every((t) => isKeyExact(t, depth + 1)) && (type.rest === undefined || isKeyExact(type.rest, depth + 1));
    default:
      // Dicts too: their keys may be tagged, which only the typed comparison reads.
      return false;
  }
}

/**
 * A Map key standing for a value of an exact type: primitives stand for
 * themselves (Map keys compare by SameValueZero, so -0 is 0 and 1 is not
 * "1" or true), containers for a canonical string. Never mixed within one
 * set, since unions of containers are not exact.
 */
type Key = string | number | boolean | null;

/** The key of a value of an exact type; undefined when the value does not have that type. */
function exactKey(value: unknown, type: TypeNode, depth: number, equality: Equality): Key | undefined {
  switch (type.kind) {
    case 'int':
      if (typeof value === 'bigint') return `b${value.toString()}`;
      if (equality === 'python') {
        // Python's equality: True is 1, and 3.0 is 3 (an integral float, from a float tag).
        if (typeof value === 'boolean') return value ? 1 : 0;
        const n = numberOf(value);
        if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
        if (typeof n === 'number' && Number.isInteger(n)) return `b${BigInt(n).toString()}`;
      }
      return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
    case 'str':
      return typeof value === 'string' ? value : undefined;
    case 'bool':
      if (equality === 'python' && (value === 0 || value === 1)) return value === 1;
      return typeof value === 'boolean' ? value : undefined;
    case 'none':
      return isNull(value) ? null : undefined;
    case 'optional':
      return isNull(value) ? null : exactKey(value, type.inner, depth + 1, equality);
    case 'union':
      for (const option of type.options) {
        const key = exactKey(value, option, depth + 1, equality);
        if (key !== undefined) return key;
      }
      return undefined;
    case 'list':
    case 'tuple': {
      value = sequenceItems(value);
      if (value === undefined || !Array.isArray(value)) return undefined;
      if (type.kind === 'tuple' && type.rest === undefined && value.length !== type.items.length) return undefined;
      const parts: string[] = [];
      for (let i = 0; i < value.length; i++) {
        const itemType = type.kind === 'list' ? type.item : (type.items[i] ?? type.rest ?? ANY);
        const key = exactKey(value[i], itemType, depth + 1, equality);
        if (key === undefined) return undefined;
        parts.push(keyText(key));
      }
      return `[${parts.join(',')}]`;
    }
    case 'set': {
      value = setItems(value);
      if (value === undefined || !Array.isArray(value)) return undefined;
      const parts: string[] = [];
      for (const element of value) {
        const key = exactKey(element, type.item, depth + 1, equality);
        if (key === undefined) return undefined;
        parts.push(keyText(key));
      }
      return `S{${parts.sort().join(',')}}`;
    }
    case 'dict': {
      if (!isRecord(value)) return undefined;
      const canonical = keyCanonicaliser(type.key);
      const parts: string[] = [];
      for (const key of Object.keys(value)) {
        const valueKey = exactKey(value[key], type.value, depth + 1, equality);
        if (valueKey === undefined) return undefined;
        parts.push(`${JSON.stringify(canonical(key))}:${keyText(valueKey)}`);
      }
      return `D{${parts.sort().join(',')}}`;
    }
    default:
      return undefined;
  }
}

/** Unambiguous text for a key inside a container key: strings quoted, numbers tagged. */
function keyText(key: Key): string {
  if (typeof key === 'string') return JSON.stringify(key);
  if (typeof key === 'number') return `n${String(key)}`;
  if (key === null) return 'N';
  return key ? 'T' : 'F';
}

// -- dict keys -------------------------------------------------------------------

const identity = (key: string): string => key;

/**
 * Keys are compared as strings, but a candidate's `{1.0: x}` arrives as
 * `"1.0"` and a `{True: x}` as `"True"` or `"true"`, depending on who
 * serialised it: for number, bool and None key types, spell keys as JSON does.
 */
function keyCanonicaliser(keyType: TypeNode): (key: string) => string {
  switch (keyType.kind) {
    case 'int':
    case 'float':
      return canonicalNumberKey;
    case 'bool':
      return (key) => (key === 'True' ? 'true' : key === 'False' ? 'false' : key);
    case 'none':
      return (key) => (key === 'None' ? 'null' : key);
    default:
      return identity;
  }
}

function canonicalNumberKey(key: string): string {
  if (key.trim() === '') return key;
  const number = Number(key);
  if (!Number.isNaN(number)) return String(number);
  const python = pythonFloat(key);
  return python === undefined ? key : String(python);
}

// -- messages ----------------------------------------------------------------------

const STRING_CONTEXT = 12;

/**
 * Short strings are shown whole; for long ones, where they first differ,
 * since two truncated displays could look identical.
 */
function stringDifference(expected: string, actual: string): string {
  const whole = `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  if (whole.length <= 2 * SHOWN + 16) return whole;
  let index = 0;
  while (index < expected.length && index < actual.length && expected[index] === actual[index]) index++;
  const excerpt = (text: string): string => {
    const start = Math.max(0, index - STRING_CONTEXT);
    const end = Math.min(text.length, index + STRING_CONTEXT);
    return `${start > 0 ? '…' : ''}${JSON.stringify(text.slice(start, end))}${end < text.length ? '…' : ''}`;
  };
  const lengths = expected.length === actual.length ? '' : ` (length ${expected.length} vs ${actual.length})`;
  return `strings differ at index ${index}: expected ${excerpt(expected)}, got ${excerpt(actual)}${lengths}`;
}

function renderPath(innermostFirst: Segment[]): string {
  let path = '$';
  for (let i = innermostFirst.length - 1; i >= 0; i--) {
    const segment = innermostFirst[i]!;
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}
