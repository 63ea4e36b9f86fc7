/**
 * Type-guided deep equality between an expected value and what a candidate
 * returned. The declared type decides what "equal" means: floats within a
 * tolerance, ints exactly at any size, sets unordered, dicts by key (read
 * by the key type), tuples equal to lists. `Any` and unknown types fall back
 * to structural equality. The equality rule decides how numbers meet:
 *
 * - `python`: as Python's `==` (True == 1 == 1.0), for Python candidates;
 * - `strict`: bool, int and float are distinct (`--strict-types`);
 * - `javascript`: bools are never numbers, ints and floats are both numbers.
 *
 * An int compared with an int, or with a float where an int is declared, is
 * compared exactly, as Python does: float(10**20 + 1) != 10**20 + 1.
 *
 * This runs once per test case, so equal values take the cheap route: no
 * paths are built and no messages formatted until a difference is found.
 *
 * The parts, one job each: the typed rules (compare-typed.ts), the walk
 * without a type (compare-structural.ts), sets (compare-sets.ts, with
 * compare-set-matching.ts and compare-exact-keys.ts), dicts
 * (compare-dicts.ts), numbers (compare-numbers.ts) and what a difference
 * says (compare-messages.ts); compare-judge.ts is what they call back into.
 */

import { renderPath } from './compare-messages.js';
import { DEFAULT_TOLERANCE, type Equality, type Tolerance } from './compare-numbers.js';
import { Comparer } from './compare-typed.js';
import type { TypeNode, Value } from './type-node.js';

export { DEFAULT_TOLERANCE, type Equality, type Tolerance } from './compare-numbers.js';

export type Comparison = { equal: true } | { equal: false; path: string; reason: string };

/**
 * Compares `actual` with `expected` as values of `type`. On a difference,
 * `path` locates the first one (`$`, `$[2]`, `$.key`, `$["odd key"][0]`)
 * and `reason` says what it is (`expected 3, got 4`, `missing key "b"`).
 */
export function compareValues(
  expected: Value,
  actual: Value,
  type: TypeNode,
  tolerance: Tolerance = DEFAULT_TOLERANCE,
  equality: Equality = 'javascript',
): Comparison {
  const mismatch = new Comparer(tolerance, equality).compare(expected, actual, type, 0);
  if (mismatch === undefined) return { equal: true };
  return { equal: false, path: renderPath(mismatch.segments), reason: mismatch.reason() };
}
