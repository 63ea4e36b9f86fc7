/**
 * The Python kinds JSON cannot write, as tagged objects. The host holds
 * them in this shape, the wire carries them in it, and the run log and the
 * scorecard record them in it, so a value keeps its Python kind from the
 * problem file to the candidate and back into the record:
 *
 *   { "$evalrun": "tuple", "items": [...] }
 *   { "$evalrun": "set" | "frozenset", "items": [...] }
 *   { "$evalrun": "dict", "entries": [[key, value], ...] }   keys not all strings, or a "$evalrun" key
 *   { "$evalrun": "int", "value": "-123..." }                beyond +-(2**53 - 1); the host holds a bigint
 *   { "$evalrun": "float", "value": "3.0" | "-0.0" | "NaN" | "Infinity" | "-Infinity" }
 *
 * A float has one host form (floatValue): a plain number when JSON would
 * read it back as a float (finite, not integral, not -0.0), the tag
 * otherwise. So a plain integral number is always an int, and no path can
 * turn 3.0 into 3 by forgetting a type.
 */
import type { Value } from './type-node.js';

export const WIRE_TAG = '$evalrun';

export interface TupleTag {
  $evalrun: 'tuple';
  items: Value[];
}
export interface SetTag {
  $evalrun: 'set' | 'frozenset';
  items: Value[];
}
export interface DictTag {
  $evalrun: 'dict';
  entries: [Value, Value][];
}
export interface FloatTag {
  $evalrun: 'float';
  value: string;
}
export type Tag = TupleTag | SetTag | DictTag | FloatTag;

/** The tag kind of a host value, or undefined for anything else. */
export function tagOf(value: unknown): Tag['$evalrun'] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (!Object.hasOwn(value, WIRE_TAG)) return undefined;
  return (value as Record<string, unknown>)[WIRE_TAG] as Tag['$evalrun'];
}

export function tuple(items: Value[]): Value {
  return { [WIRE_TAG]: 'tuple', items };
}

export function pySet(items: Value[], frozen = false): Value {
  return { [WIRE_TAG]: frozen ? 'frozenset' : 'set', items };
}

export function dict(entries: [Value, Value][]): Value {
  return { [WIRE_TAG]: 'dict', entries };
}

/** Dicts whose declared keys are tuples: a JavaScript candidate gets a Map for them, even when they are empty. */
const tupleKeyed = new WeakSet<object>();

/** A dict tag for a dict whose declared key type is a tuple (see `isTupleKeyed`). */
export function tupleKeyedDict(entries: [Value, Value][]): Value {
  const tag = dict(entries) as object;
  tupleKeyed.add(tag);
  return tag as Value;
}

/** Whether a dict tag was made for tuple keys; held beside the value, so that it never shows in its JSON or its equality. */
export function isTupleKeyed(value: unknown): boolean {
  return typeof value === 'object' && value !== null && tupleKeyed.has(value);
}

/**
 * Tags the problem loader puts into a file's values (floats, and dicts
 * whose key order a JavaScript object would lose), as opposed to a
 * problem file's own JSON object that happens to have a `"$evalrun"` key
 * (which is data: a dict).
 */
const madeTags = new WeakSet<object>();

export function floatTag(value: number): Value {
  const tag = { [WIRE_TAG]: 'float', value: pythonFloatRepr(value) };
  madeTags.add(tag);
  return tag;
}

/** A dict tag that keeps its entries' order; see madeTags. */
export function orderedDict(entries: [Value, Value][]): Value {
  const tag = dict(entries);
  madeTags.add(tag as object);
  return tag;
}

/** Whether `value` is a tag evalrun made (see madeTags). */
export function isMadeTag(value: unknown): boolean {
  return typeof value === 'object' && value !== null && madeTags.has(value);
}

/**
 * Whether a str key is one a JavaScript object puts first, in numeric
 * order, whatever order it was written in (an array index: `"0"` to
 * `"4294967294"`). A dict with such a key is held as a dict tag, whose
 * entries keep Python's order.
 */
export function isIndexKey(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
}

/** A Python float in its one host form: a number where JSON keeps it a float, else a float tag. */
export function floatValue(value: number): Value {
  return Number.isFinite(value) && !Number.isInteger(value) ? value : floatTag(value);
}

/** Whether a host value is a Python float (a non-integral number or a float tag). */
export function isFloat(value: unknown): boolean {
  return (typeof value === 'number' && !Number.isInteger(value)) || tagOf(value) === 'float';
}

/** Items of a tuple, set or frozenset tag; undefined for anything else. */
export function tagItems(value: unknown): Value[] | undefined {
  const tag = tagOf(value);
  return tag === 'tuple' || tag === 'set' || tag === 'frozenset' ? (value as TupleTag).items : undefined;
}

/** Items of a sequence: an array, or a tuple tag. */
export function sequenceItems(value: unknown): Value[] | undefined {
  if (Array.isArray(value)) return value as Value[];
  return tagOf(value) === 'tuple' ? (value as TupleTag).items : undefined;
}

/** Items of a set-like value: a set or frozenset tag, or (from JavaScript) an array. */
export function setItems(value: unknown): Value[] | undefined {
  if (Array.isArray(value)) return value as Value[];
  const tag = tagOf(value);
  return tag === 'set' || tag === 'frozenset' ? (value as SetTag).items : undefined;
}

/** The number a host value stands for, if it is a number (a float tag included). */
export function numberOf(value: unknown): number | bigint | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  if (tagOf(value) === 'float') return Number((value as FloatTag).value);
  return undefined;
}

/** An integer in its one host form: a number when safe, a bigint beyond. */
export function normalInt(value: bigint): number | bigint {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}

/**
 * How Python's repr writes a float (`3.0`, `1e+16`, `1e-05`, `0.1`), with
 * the wire's names for the non-finite ones (`NaN`, `Infinity`). Both
 * languages print the shortest digits that read back to the same double;
 * they differ only in where exponent notation starts (Python: below 1e-4
 * and from 1e16 on) and in how an exponent is spelled.
 */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const exponentSign = exponent < 0 ? '-' : '+';
    return `${sign}${digits[0]}${fraction}e${exponentSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.length > exponent + 1 ? digits.slice(0, exponent + 1) : digits.padEnd(exponent + 1, '0');
  const fraction = digits.length > exponent + 1 ? digits.slice(exponent + 1) : '0';
  return `${sign}${whole}.${fraction}`;
}
