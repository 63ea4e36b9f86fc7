/**
 * The Python kinds JSON cannot write, as tagged objects. The host holds
 * them in this shape, the wire carries them in it, and the scorecard
 * records them in it, so a tuple stays a tuple from the problem file to
 * the candidate and back:
 *
 *   { "$evalrun": "tuple", "items": [...] }
 *   { "$evalrun": "set" | "frozenset", "items": [...] }
 *   { "$evalrun": "dict", "entries": [[key, value], ...] }   keys not all strings, or a "$evalrun" key
 *   { "$evalrun": "int", "value": "-123..." }                wire only; the host holds a bigint
 *   { "$evalrun": "float", "value": "NaN" | "Infinity" | "-Infinity" | "3.0" }
 *                       non-finite ones are numbers on the host; integral
 *                       floats are tags only when types are judged strictly
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

const hasOwn = Object.prototype.hasOwnProperty;

/** The tag kind of a host value, or undefined for anything else. */
export function tagOf(value: unknown): Tag['$evalrun'] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (!hasOwn.call(value, WIRE_TAG)) return undefined;
  return (value as Record<string, unknown>)[WIRE_TAG] as Tag['$evalrun'];
}

export function tuple(items: Value[]): Value {
  return { [WIRE_TAG]: 'tuple', items } as unknown as Value;
}

export function pySet(items: Value[], frozen = false): Value {
  return { [WIRE_TAG]: frozen ? 'frozenset' : 'set', items } as unknown as Value;
}

export function dict(entries: [Value, Value][]): Value {
  return { [WIRE_TAG]: 'dict', entries } as unknown as Value;
}

export function floatTag(value: number): Value {
  return { [WIRE_TAG]: 'float', value: pythonFloatRepr(value) } as unknown as Value;
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

/** How Python's repr writes a float (`3.0`, `1e+20`, `0.1`). */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (Object.is(value, -0)) return '-0.0';
  const text = String(value);
  if (/[.e]/.test(text)) return text.replace(/e([+-])(\d)$/, 'e$10$2');
  // Python switches to exponent notation from 1e16 on.
  if (Math.abs(value) >= 1e16) {
    const exp = value.toExponential();
    const [mantissa, exponent] = exp.split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return `${text}.0`;
}
