import { floatValue, normalInt, orderedDict } from '../values/py-tags.js';
import type { Value } from '../values/type-node.js';
import { reviveRecordInts } from '../values/wire.js';
import { checkJsonStructure, MAX_JSON_DEPTH, type ExactNumber, type OrderedObject } from './json-structure.js';

/**
 * Puts each number JSON.parse misread back as Python reads it, wherever it
 * is: an integer beyond 2**53 as the exact integer written (a bigint), `-0`
 * as 0, and a float with an integral value as a float (a float tag).
 */
export function restoreExactNumbers(root: unknown, exactNumbers: readonly ExactNumber[]): unknown {
  let document = root;
  for (const { path, text } of exactNumbers) {
    const exact = /^-?\d+$/.test(text) ? normalInt(BigInt(text)) : floatValue(Number(text));
    if (path.length === 0) {
      document = exact;
      continue;
    }
    let parent: unknown = document;
    for (let i = 0; i < path.length - 1 && parent !== null && typeof parent === 'object'; i++) {
      parent = (parent as Record<string | number, unknown>)[path[i]!];
    }
    const last = path[path.length - 1]!;
    if (parent !== null && typeof parent === 'object' && typeof (parent as Record<string | number, unknown>)[last] === 'number') {
      Object.defineProperty(parent, last, { value: exact, enumerable: true, writable: true, configurable: true });
    }
  }
  return document;
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
    let parent: unknown = root;
    for (let i = 0; i < path.length - 1 && parent !== null && typeof parent === 'object'; i++) {
      parent = (parent as Record<string | number, unknown>)[path[i]!];
    }
    const last = path[path.length - 1]!;
    if (parent === null || typeof parent !== 'object') continue;
    const object = (parent as Record<string | number, unknown>)[last];
    if (object === null || typeof object !== 'object' || Array.isArray(object)) continue;
    const entries = keys.map((key): [Value, Value] => [key, (object as Record<string, Value>)[key]!]);
    Object.defineProperty(parent, last, { value: orderedDict(entries), enumerable: true, writable: true, configurable: true });
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
  const exactNumbers: ExactNumber[] = [];
  checkJsonStructure(text, MAX_JSON_DEPTH, exactNumbers);
  return exactNumbers.length === 0 ? value : restoreExactNumbers(value, exactNumbers);
}
