/**
 * Dicts compared by key: every expected key present, no other, and each
 * value compared by the value type. Keys are matched by a canonical text,
 * equal for keys that are equal under the key type and the equality rule,
 * whether a key arrives as a property name (JavaScript, JSON, problem files)
 * or as a value (a dict tag's key, from Python).
 */

import { ANY, isRecord, type Judge } from './compare-judge.js';
import { at, differ, show, SHOWN, wrongKind, type Outcome } from './compare-messages.js';
import { isIntegral } from './compare-numbers.js';
import { formatValue } from './format.js';
import { sequenceItems, tagOf, type DictTag, type FloatTag } from './py-tags.js';
import { pythonFloat, pythonFloatJson } from './python-float.js';
import type { TypeNode, Value } from './type-node.js';
import { valueKey } from './value-key.js';

export function compareDicts(judge: Judge, expected: unknown, actual: unknown, type: TypeNode & { kind: 'dict' }, depth: number): Outcome {
  const expectedTag = tagOf(expected);
  if (!isRecord(expected) || (expectedTag !== undefined && expectedTag !== 'dict')) return judge.structural(expected, actual);
  // A tuple, a set or a float arrives as an object too, and is no dict whatever its tag's fields spell.
  const actualTag = tagOf(actual);
  if (!isRecord(actual) || (actualTag !== undefined && actualTag !== 'dict')) return wrongKind(type, actual);
  if (tagOf(expected) === undefined && tagOf(actual) === undefined) return plainDict(judge, expected, actual, type, depth);
  // A JavaScript object keyed by tuples has property names, which JavaScript makes of arrays by joining their items with commas.
  const byName = judge.equality === 'javascript' && type.key.kind === 'tuple' && actualTag === undefined;
  const expectedEntries = byName ? namedEntries(expected) : entries(judge, expected, type.key);
  const actualEntries = entries(judge, actual, type.key);
  const actualByKey = new Map<string, [Value, Value]>();
  for (const entry of actualEntries) {
    // Two keys one key to this comparison (two NaNs, 1 and "1" untyped, a key whose class hashes as it likes):
    // the dict has more entries than any dict of distinct keys, and one of them would hide the other.
    if (actualByKey.has(entry.canon)) return differ(() => `two keys equal to ${show(entry.key)}`);
    actualByKey.set(entry.canon, [entry.key, entry.value]);
  }
  const expectedSet = new Set<string>();
  for (const entry of expectedEntries) {
    expectedSet.add(entry.canon);
    if (!actualByKey.has(entry.canon)) return differ(() => `missing key ${show(entry.key)}`);
  }
  for (const entry of actualEntries) {
    if (!expectedSet.has(entry.canon)) return differ(() => `unexpected key ${show(entry.key)}`);
  }
  for (const entry of expectedEntries) {
    const mismatch = judge.compare(entry.value, actualByKey.get(entry.canon)![1], type.value, depth + 1);
    if (mismatch) return at(mismatch, typeof entry.key === 'string' ? entry.key : formatValue(entry.key, SHOWN));
  }
  return undefined;
}

/** A dict's entries with each key's canonical text: equal keys (by the key type and the rule) have equal texts. */
function entries(judge: Judge, value: Record<string, unknown>, keyType: TypeNode): Array<{ key: Value; value: Value; canon: string }> {
  if (tagOf(value) === 'dict') {
    return (value as unknown as DictTag).entries.map(([key, item]) => ({ key, value: item, canon: keyCanon(judge, key, keyType) }));
  }
  return Object.keys(value).map((key) => {
    const canon = objectKeyCanon(judge, key, keyType);
    return { key: shownKey(key, canon), value: value[key] as Value, canon };
  });
}

/** A property name as the key it stands for, for messages: the number 1 rather than the text "1". */
function shownKey(name: string, canon: string): Value {
  if (canon === 'T' || canon === 'F') return canon === 'T';
  if (canon === 'N') return null;
  if (canon[0] === 'n' && /^-?\d+$/.test(canon.slice(1))) {
    const n = BigInt(canon.slice(1));
    return Number.isSafeInteger(Number(n)) ? Number(n) : n;
  }
  return name;
}

/**
 * A key of a plain object. From Python that is a str key; from JavaScript
 * (and in problem files) it is a property name, which stands for a number
 * or a bool as well: read by the key type. Without a key type, a key is
 * compared as the text JSON would give it, as the reference framework does.
 */
function objectKeyCanon(judge: Judge, key: string, keyType: TypeNode): string {
  if (keyType.kind === 'any' || keyType.kind === 'unknown') return `j${key}`;
  if (keyType.kind === 'str' || judge.equality !== 'javascript') return `s${key}`;
  // Met by the name JavaScript gives the expected key (namedEntries); "(1, 2)" or "1.0,2" is no name of [1, 2].
  if (keyType.kind === 'tuple') return `s${key}`;
  if (keyType.kind === 'int' || keyType.kind === 'float') {
    // A property name stands for the number whose name it is, as `c[1]` finds only "1": " 0x1", "01" or "1.0" is another key.
    const n = Number(key);
    return String(n) === key ? keyCanon(judge, n, keyType) : `s${key}`;
  }
  const canonical = keyCanonicaliser(keyType)(key);
  if (keyType.kind === 'bool') return canonical === 'true' || canonical === 'false' ? keyCanon(judge, canonical === 'true', keyType) : `s${key}`;
  return canonical === 'null' ? 'N' : `s${key}`;
}

/** A dict's entries, each key by the property name JavaScript gives it (`String(key)`: [1, 2] is "1,2"). */
function namedEntries(value: Record<string, unknown>): Array<{ key: Value; value: Value; canon: string }> {
  if (tagOf(value) !== 'dict') return Object.keys(value).map((key) => ({ key, value: value[key] as Value, canon: `s${key}` }));
  return (value as unknown as DictTag).entries.map(([key, item]) => ({ key, value: item, canon: `s${javascriptName(key, false)}` }));
}

/** The text JavaScript's String() makes of a key: an array's items joined by commas, null among them as nothing. */
function javascriptName(key: Value, inArray: boolean): string {
  if (key === null) return inArray ? '' : 'null';
  if (typeof key !== 'object') return String(key);
  if (tagOf(key) === 'float') return String(Number((key as unknown as FloatTag).value));
  const sequence = sequenceItems(key);
  if (sequence !== undefined) return sequence.map((item) => javascriptName(item, true)).join(',');
  return '[object Object]';
}

/** A key held as a value (a dict tag's key). */
function keyCanon(judge: Judge, key: Value, keyType: TypeNode): string {
  if (keyType.kind === 'any' || keyType.kind === 'unknown') {
    if (typeof key === 'string') return `j${key}`;
    // As json.dumps names a key: a float as Python's repr writes it (`1.0`, `1e+16`, `Infinity`).
    if (typeof key === 'number' && judge.equality !== 'javascript' && !Number.isInteger(key)) return `j${pythonFloatJson(key)}`;
    if (typeof key === 'number' || typeof key === 'bigint' || typeof key === 'boolean' || key === null) return `j${String(key)}`;
    if (tagOf(key) === 'float') return `j${pythonFloatJson(Number((key as unknown as FloatTag).value))}`;
  }
  if (typeof key === 'string') return `s${key}`;
  if (key === null) return 'N';
  const sequence = sequenceItems(key);
  if (sequence !== undefined) {
    const items = keyType.kind === 'tuple' ? keyType : undefined;
    return `(${sequence.map((item, i) => keyCanon(judge, item, items?.items[i] ?? items?.rest ?? ANY)).join(',')})`;
  }
  if (typeof key === 'boolean' && judge.equality !== 'python') return key ? 'T' : 'F';
  const n = judge.numeric(key);
  if (n !== undefined) {
    // Equal numbers are equal keys (1 == 1.0 == True in Python), whatever their form; with --strict-types a float key is not an int key.
    const prefix = judge.equality === 'strict' && n.kind === 'float' ? 'f' : 'n';
    if (isIntegral(n.n) && (typeof n.n === 'bigint' || Number.isFinite(n.n))) return `${prefix}${BigInt(n.n).toString()}`;
    return `${prefix}${String(n.n)}`;
  }
  return `v${valueKey(key) ?? Math.random()}`;
}

function plainDict(
  judge: Judge,
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  type: TypeNode & { kind: 'dict' },
  depth: number,
): Outcome {
  // A JavaScript object's property names are the keys as JavaScript finds them (`d[1]` reads "1", never "01" or "1.0").
  const canonical = judge.equality === 'javascript' ? identity : keyCanonicaliser(type.key);
  const expectedKeys = Object.keys(expected);
  const actualKeys = Object.keys(actual);
  // Canonical key -> key as written in `actual`.
  const actualByKey = new Map<string, string>();
  for (const key of actualKeys) {
    const canon = canonical(key);
    if (actualByKey.has(canon)) return differ(() => `two keys equal to ${JSON.stringify(key)}`);
    actualByKey.set(canon, key);
  }
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
    const mismatch = judge.compare(expected[key], actual[actualKey], type.value, depth + 1);
    if (mismatch) return at(mismatch, key);
  }
  return undefined;
}

const identity = (key: string): string => key;

/**
 * Keys are compared as strings, but a candidate's `{1.0: x}` arrives as
 * `"1.0"` and a `{True: x}` as `"True"` or `"true"`, depending on who
 * serialised it: for number, bool and None key types, spell keys as JSON does.
 */
export function keyCanonicaliser(keyType: TypeNode): (key: string) => string {
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
