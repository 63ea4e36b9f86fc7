/**
 * Deep equality without a type, iterative so that values nested thousands
 * of levels deep cannot exhaust the stack: a stack of {@link Frame}s, one
 * per container being walked. Numbers compare exactly when both are
 * integers and within tolerance otherwise; dict key order is ignored.
 * Python's sets and dict tags met on the way get a typed comparison.
 */

import { ANY, isNull, MAX_TYPED_DEPTH, type Judge } from './compare-judge.js';
import { kindOf, show, stringDifference, type Mismatch, type Outcome, type Segment } from './compare-messages.js';
import { exactInteger, sameNumber } from './compare-numbers.js';
import { sequenceItems, tagOf } from './py-tags.js';
import type { TypeNode } from './type-node.js';

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

export function compareStructure(judge: Judge, expected: unknown, actual: unknown): Outcome {
  const first = step(judge, expected, actual, undefined, undefined);
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
    const outcome = step(judge, e, a, frame, segment);
    if (outcome instanceof Frame) stack.push(outcome);
    else if (outcome !== undefined) return outcome;
  }
  return undefined;
}

/** The kind a value is compared as without a type; tagged containers get a typed comparison. */
function structuralKind(judge: Judge, value: unknown): string {
  const kind = kindOf(value);
  if (kind === 'boolean' && judge.equality === 'python') return 'number';
  if (kind === 'object' && tagOf(value) === 'dict') return 'tagged-object';
  return kind;
}

/** Compares one pair: a mismatch, undefined when equal, or a Frame to descend into. */
function step(judge: Judge, expected: unknown, actual: unknown, parent: Frame | undefined, segment: Segment | undefined): Outcome | Frame {
  const fail = (reason: () => string): Mismatch => ({ segments: pathOf(parent, segment), reason });
  if (expected === actual) return undefined;
  if (isNull(expected) && isNull(actual)) return undefined;
  // A tuple equals a list with the same items.
  if (tagOf(expected) === 'tuple') expected = sequenceItems(expected);
  if (tagOf(actual) === 'tuple') actual = sequenceItems(actual);
  let kind = structuralKind(judge, expected);
  const actualKind = structuralKind(judge, actual);
  // A list returned where a set is expected is judged as set(list) would be (a set kept as `kind`); a set returned where a list is expected is no list.
  if (kind !== actualKind && !(kind === 'set' && actualKind === 'array')) {
    const pair = new Set([kind, actualKind]);
    if (pair.has('tagged-object') && pair.has('object')) kind = 'tagged-object';
    else return fail(() => `expected ${show(expected)}, got ${kindOf(actual)} ${show(actual)}`);
  }
  switch (kind) {
    case 'number': {
      const e = judge.numeric(expected)!;
      const a = judge.numeric(actual)!;
      if (judge.equality === 'strict' && (e.kind === 'float') !== (a.kind === 'float')) {
        return fail(() => `expected ${e.kind} ${show(expected)}, got ${a.kind} ${show(actual)}`);
      }
      // Python compares an int with a float exactly (1000000000 == 1000000000.5 is False): the tolerance is for an expected float,
      // whatever its value (1e16 is a float, and 1e16 * (1 + 1e-12) is within the tolerance of it though both are whole numbers).
      // JavaScript has one kind of number, so there an int as written is no promise that the answer is one, and only
      // whole numbers the file did not write as floats meet exactly.
      const exact = judge.equality === 'javascript' ? exactInteger(e) && exactInteger(a) : e.kind !== 'float';
      const equal = exact ? sameNumber(e.n, a.n) : judge.close(Number(e.n), Number(a.n));
      return equal ? undefined : fail(() => `expected ${show(expected)}, got ${show(actual)}`);
    }
    case 'set':
    case 'tagged-object': {
      // Python's kinds nest rarely; they are compared by a type standing for Any.
      const type: TypeNode = kind === 'set' ? { kind: 'set', item: ANY } : { kind: 'dict', key: ANY, value: ANY };
      const mismatch = judge.compare(expected, actual, type, MAX_TYPED_DEPTH - 100);
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

/** One container being walked by {@link compareStructure}. */
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
