import { floatValue, normalInt, orderedDict } from '../values/py-tags.js';
import type { Value } from '../values/type-node.js';
import { reviveRecordInts } from '../values/wire.js';
import { checkJsonStructure, MAX_JSON_DEPTH, type ExactNumber, type OrderedObject } from './json-structure.js';
import type { PathSegment } from './json-path.js';

/**
 * Puts each number JSON.parse misread back as Python reads it, wherever it
 * is: an integer beyond 2**53 as the exact integer written (a bigint), `-0`
 * as 0, and a float with an integral value as a float (a float tag).
 */
export function restoreExactNumbers(root: unknown, exactNumbers: readonly ExactNumber[]): unknown {
  let document = root;
  for (const { path, text } of exactNumbers) {
    const exact = isIntegerLiteral(text) ? normalInt(BigInt(text)) : floatValue(Number(text));
    if (path.length === 0) {
      document = exact;
      continue;
    }
    const parent = parentAt(document, path);
    const last = path[path.length - 1]!;
    if (parent !== undefined && typeof parent[last] === 'number') replace(parent, last, exact);
  }
  return document;
}

export function isIntegerLiteral(text: string): boolean {
  return /^-?\d+$/.test(text);
}

/** The container holding the value at `path` (not empty), or undefined when the path leads nowhere. */
function parentAt(root: unknown, path: readonly PathSegment[]): Record<string | number, unknown> | undefined {
  let parent: unknown = root;
  for (let i = 0; i < path.length - 1 && parent !== null && typeof parent === 'object'; i++) {
    parent = (parent as Record<string | number, unknown>)[path[i]!];
  }
  return parent !== null && typeof parent === 'object' ? (parent as Record<string | number, unknown>) : undefined;
}

/** Sets an own data property, so that a key such as `__proto__` stays data. */
function replace(parent: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Puts each object whose key order JSON.parse lost (a key such as `"7"`
 * moves to the front of a JavaScript object) back as a dict tag with its
 * entries in the order written. `objects` come innermost first, so an
 * object's values are in their final form when it is rebuilt.
 */
export function restoreKeyOrder(root: unknown, objects: readonly OrderedObject[]): void {
  for (const { path, keys } of objects) {
    if (path.length === 0) continue;
    const parent = parentAt(root, path);
    const last = path[path.length - 1]!;
    const object = parent?.[last];
    if (parent === undefined || object === null || typeof object !== 'object' || Array.isArray(object)) continue;
    const entries = keys.map((key): [Value, Value] => [key, (object as Record<string, Value>)[key]!]);
    replace(parent, last, orderedDict(entries));
  }
}

/**
 * JSON text evalrun wrote itself (a run log's line, a scorecard), parsed
 * with every integer exact: int tags come back as bigints, and so do the
 * bare long integers that records of earlier releases hold. Text without
 * either is parsed by JSON.parse alone. Records never hold a bare integral
 * float (recordJson writes float tags), so only long integers are looked for.
 */
export function parseExactJson(text: string): unknown {
  const value = reviveRecordInts(JSON.parse(text) as unknown, text);
  if (!/\d{16}/.test(text)) return value;
  const found: ExactNumber[] = [];
  checkJsonStructure(text, MAX_JSON_DEPTH, found);
  const longIntegers = found.filter((literal) => isIntegerLiteral(literal.text));
  return longIntegers.length === 0 ? value : restoreExactNumbers(value, longIntegers);
}
