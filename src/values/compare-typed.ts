/**
 * The typed rules: the declared type decides what "equal" means at each
 * level, and the equality rule how numbers meet (compare-numbers.ts).
 * Containers recurse item by item; sets and dicts have files of their own,
 * and a value that does not fit its type is compared structurally.
 */

import { compareDicts } from './compare-dicts.js';
import { ANY, isNull, isRecord, MAX_TYPED_DEPTH, type Judge } from './compare-judge.js';
import { at, differ, show, stringDifference, wrongKind, type Mismatch, type Outcome } from './compare-messages.js';
import { exactInteger, isIntegral, sameNumber, type Equality, type Numeric, type Tolerance } from './compare-numbers.js';
import { compareSets } from './compare-sets.js';
import { compareStructure } from './compare-structural.js';
import { numberOf, sequenceItems, setItems, tagOf, type DictTag } from './py-tags.js';
import type { TypeNode } from './type-node.js';

export class Comparer implements Judge {
  constructor(
    private readonly tolerance: Tolerance,
    readonly equality: Equality = 'javascript',
  ) {}

  numeric(value: unknown): Numeric | undefined {
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
        if (exactInteger(e) && exactInteger(a) ? sameNumber(e.n, a.n) : this.close(Number(e.n), Number(a.n))) return undefined;
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
        return compareSets(this, expected, actual, type, depth);
      case 'dict':
        return compareDicts(this, expected, actual, type, depth);
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

  structural(expected: unknown, actual: unknown): Outcome {
    return compareStructure(this, expected, actual);
  }

  // -- sequences ------------------------------------------------------------

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
        if (typeof e === 'number' && typeof a === 'number' && (Number.isInteger(e) && Number.isInteger(a) ? e === a : this.close(e, a))) continue;
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

  // -- unions ---------------------------------------------------------------

  /**
   * Equal under any option. When none fits, the reason comes from the option
   * the expected value itself belongs to, which is the one the author meant.
   */
  private union(expected: unknown, actual: unknown, type: TypeNode & { kind: 'union' }, depth: number): Outcome {
    // Python: an int the file wrote, where the union has int, is an int, and an int meets a float exactly
    // (`Union[int, float]`'s 5 is not 5.000000000001), rather than within the float option's tolerance.
    const intOption = this.equality === 'javascript' || typeof expected === 'boolean' ? undefined : type.options.find((option) => option.kind === 'int');
    if (intOption !== undefined && this.numeric(expected)?.kind === 'int') return this.compare(expected, actual, intOption, depth + 1);
    // Only the options the expected value belongs to: Union[int, str]'s 7 is no str, to be compared by any rule a str would allow.
    const fitting = type.options.filter((option) => conforms(expected, option, 0));
    const options = fitting.length > 0 ? fitting : type.options;
    const mismatches: Mismatch[] = [];
    for (const option of options) {
      const mismatch = this.compare(expected, actual, option, depth + 1);
      if (mismatch === undefined) return undefined;
      mismatches.push(mismatch);
    }
    return mismatches[0];
  }
}

/** Whether a value has the shape of a type; says which union option a value belongs to. */
function conforms(value: unknown, type: TypeNode, depth: number): boolean {
  if (depth > MAX_TYPED_DEPTH) return true;
  const fits = (item: unknown, itemType: TypeNode): boolean => conforms(item, itemType, depth + 1);
  switch (type.kind) {
    case 'int':
      return (
        (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint' || (tagOf(value) === 'float' && Number.isInteger(numberOf(value)))
      );
    case 'float':
      return typeof value === 'number' || typeof value === 'bigint' || tagOf(value) === 'float';
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
      return sequenceItems(value)?.every((item) => fits(item, type.item)) === true;
    case 'set':
      return setItems(value)?.every((item) => fits(item, type.item)) === true;
    case 'tuple': {
      const items = sequenceItems(value);
      return (
        items !== undefined &&
        (type.rest === undefined ? items.length === type.items.length : items.length >= type.items.length) &&
        items.every((item, i) => fits(item, type.items[i] ?? type.rest ?? ANY))
      );
    }
    case 'dict': {
      if (!isRecord(value)) return false;
      const tag = tagOf(value);
      if (tag === 'dict') return (value as unknown as DictTag).entries.every(([, item]) => fits(item, type.value));
      return tag === undefined && Object.values(value).every((item) => fits(item, type.value));
    }
    case 'any':
    case 'unknown':
      return true;
  }
}
