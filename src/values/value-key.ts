/** A canonical key for values, equal for values Python holds equal as set items and dict keys. */

import { tagOf, type FloatTag, type TupleTag } from './py-tags.js';

/** Past this depth {@link valueKey} gives up; callers then treat the value as unique. */
const MAX_KEY_DEPTH = 200;

/**
 * A canonical string for a value, equal for values Python holds equal as
 * set items and dict keys: `1`, `1.0` and `True` coincide, as do `0` and
 * `-0.0`; a tuple differs from a list, and a frozenset's order does not
 * count. NaN equals nothing, not even itself (two NaNs in a set literal are
 * two items). Undefined for NaN, for values that are not {@link Value}s and
 * for values nested too deeply; callers treat such values as distinct from
 * everything.
 */
export function valueKey(value: unknown): string | undefined {
  return keyOf(value, 0);
}

/**
 * The items as `set()` keeps them: the first of each group of items equal by
 * {@link valueKey}, in order. Items without a key (NaN) are all kept.
 */
export function distinctItems<T>(items: readonly T[]): T[] {
  const seen = new Set<string>();
  const distinct: T[] = [];
  for (const item of items) {
    const key = valueKey(item);
    if (key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    distinct.push(item);
  }
  return distinct;
}

function numberKey(n: number): string | undefined {
  if (Number.isNaN(n)) return undefined;
  return Number.isInteger(n) ? `n${BigInt(n).toString()}` : `n${String(n)}`;
}

function keyOf(value: unknown, depth: number): string | undefined {
  if (value === null) return 'N';
  switch (typeof value) {
    case 'boolean':
      return value ? 'n1' : 'n0';
    case 'number':
      return numberKey(value);
    case 'bigint':
      return `n${value.toString()}`;
    case 'string':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (depth >= MAX_KEY_DEPTH) return undefined;
  const keysOf = (items: readonly unknown[]): string[] | undefined => {
    const parts: string[] = [];
    for (const item of items) {
      const key = keyOf(item, depth + 1);
      if (key === undefined) return undefined;
      parts.push(key);
    }
    return parts;
  };
  if (Array.isArray(value)) {
    const parts = keysOf(value);
    return parts === undefined ? undefined : `[${parts.join(',')}]`;
  }
  const tag = tagOf(value);
  if (tag === 'float') return numberKey(Number((value as FloatTag).value));
  if (tag === 'tuple' || tag === 'set' || tag === 'frozenset') {
    const parts = Array.isArray((value as TupleTag).items) ? keysOf((value as TupleTag).items) : undefined;
    if (parts === undefined) return undefined;
    return tag === 'tuple' ? `(${parts.join(',')})` : `{${parts.sort().join(',')}}`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const name of Object.keys(record).sort()) {
    const key = keyOf(record[name], depth + 1);
    if (key === undefined) return undefined;
    parts.push(`${JSON.stringify(name)}:${key}`);
  }
  return `{${parts.join(',')}}`;
}
