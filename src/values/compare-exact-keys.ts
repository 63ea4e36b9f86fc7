/**
 * Exact keys: for item types whose equality is exact, a value's canonical
 * key decides equality, so that sets of such items are compared as
 * multisets of keys in linear time (compare-sets.ts).
 */

import { keyCanonicaliser } from './compare-dicts.js';
import { ANY, isNull, isRecord } from './compare-judge.js';
import type { Equality } from './compare-numbers.js';
import { numberOf, sequenceItems, setItems } from './py-tags.js';
import type { TypeNode } from './type-node.js';

/** Types whose equality is exact, so that a canonical string decides it. */
export function isKeyExact(type: TypeNode, depth: number): boolean {
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
export type Key = string | number | boolean | null;

/** The key of a value of an exact type; undefined when the value does not have that type. */
export function exactKey(value: unknown, type: TypeNode, depth: number, equality: Equality): Key | undefined {
  switch (type.kind) {
    case 'int': {
      if (typeof value === 'bigint') return `b${value.toString()}`;
      // Python's equality: True is 1, and 3.0 is 3 (an integral float, from a float tag).
      if (equality === 'python' && typeof value === 'boolean') return value ? 1 : 0;
      const n = equality === 'python' ? numberOf(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) return undefined;
      // Past 2**53 a whole number has the key of the int it is exactly (a JavaScript 2**53 is the int 2**53).
      return Number.isSafeInteger(n) ? n : `b${BigInt(n).toString()}`;
    }
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
