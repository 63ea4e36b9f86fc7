import { normalInt } from '../values/py-tags.js';
import { checkJsonStructure, MAX_JSON_DEPTH, type LongInteger } from './json-structure.js';

/**
 * JSON.parse rounds integers beyond 2**53 to the nearest double: each one
 * is put back as the exact integer written (a bigint), wherever it is.
 */
export function restoreLongIntegers(root: unknown, longIntegers: readonly LongInteger[]): unknown {
  let document = root;
  for (const { path, text } of longIntegers) {
    const exact = normalInt(BigInt(text));
    if (typeof exact === 'number') continue;
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
 * JSON text evalrun wrote itself (a run log's line, a scorecard), parsed
 * with every integer exact: integers written with more digits than a double
 * holds come back as bigints. Text without a run of 16 digits holds none
 * and is parsed by JSON.parse alone.
 */
export function parseExactJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!/\d{16}/.test(text)) return value;
  const longIntegers: LongInteger[] = [];
  checkJsonStructure(text, MAX_JSON_DEPTH, longIntegers);
  return longIntegers.length === 0 ? value : restoreLongIntegers(value, longIntegers);
}
