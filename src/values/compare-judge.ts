/**
 * What the parts of a comparison (typed rules, the structural walk, sets,
 * dicts) call back into: one judge per comparison, holding the equality
 * rule and the tolerance. The typed rules implement it (compare-typed.ts);
 * the other parts know only this interface, so that they can recurse into
 * one another without importing one another.
 */

import type { Outcome } from './compare-messages.js';
import type { Equality, Numeric } from './compare-numbers.js';
import type { TypeNode } from './type-node.js';

export interface Judge {
  readonly equality: Equality;
  /**
   * The number a value stands for under the equality rule, as what kind:
   * bools are numbers only in Python's rule; a plain number is an int when
   * integral, and a float otherwise, a float tag always a float (py-tags.ts).
   */
  numeric(value: unknown): Numeric | undefined;
  /** Two floats within the tolerance (NaN equals NaN). */
  close(expected: number, actual: number): boolean;
  /** Typed comparison: `depth` counts the levels of the type followed so far. */
  compare(expected: unknown, actual: unknown, type: TypeNode, depth: number): Outcome;
  /** Comparison without a type (`Any`, and values that do not fit their type). */
  structural(expected: unknown, actual: unknown): Outcome;
}

/** Typed recursion follows the type, which is shallow unless built cyclic in code. */
export const MAX_TYPED_DEPTH = 500;

export const ANY: TypeNode = Object.freeze({ kind: 'any' });

export function isNull(value: unknown): boolean {
  return value === null || value === undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
