/**
 * How numbers meet when values are compared: the equality rule, the float
 * tolerance, and exact equality of ints at any size.
 */

import { DEFAULTS } from '../defaults.js';

export interface Tolerance {
  relative: number;
  absolute: number;
}

/** `--float-tolerance`'s default, from the one place defaults are written. */
export const DEFAULT_TOLERANCE: Tolerance = DEFAULTS.floatTolerance;

/**
 * - `python`: as Python's `==` (True == 1 == 1.0), for Python candidates;
 * - `strict`: bool, int and float are distinct (`--strict-types`);
 * - `javascript`: bools are never numbers, ints and floats are both numbers.
 */
export type Equality = 'python' | 'strict' | 'javascript';

/** The number a value stands for, and as what kind (see Judge.numeric in compare-judge.ts). */
export interface Numeric {
  n: number | bigint;
  kind: 'int' | 'float' | 'bool';
}

/** Exact equality of two numbers as Python compares them (ints at any size, an int with a float). */
export function sameNumber(x: number | bigint, y: number | bigint): boolean {
  if (typeof x === 'number' && typeof y === 'number') return x === y;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x === y;
  const n = (typeof x === 'number' ? x : y) as number;
  const b = (typeof x === 'bigint' ? x : y) as bigint;
  return Number.isInteger(n) && BigInt(n) === b;
}

/**
 * An int that is exactly what it says: a Python int (or bool), or a whole
 * JavaScript number (JavaScript has one number type, and a whole one is met
 * exactly). Two of them meet exactly even where a float is declared
 * (`List[float]` written `[1000000000]`): the float tolerance forgives
 * rounding, and neither has any.
 */
export function exactInteger(x: Numeric): boolean {
  return x.kind !== 'float' && isIntegral(x.n);
}

export function isIntegral(n: number | bigint): boolean {
  return typeof n === 'bigint' || Number.isInteger(n);
}

/** Ascending with NaN last; infinities compare as themselves. */
export function numberOrder(x: number, y: number): number {
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x < y ? -1 : x > y ? 1 : 0;
}
