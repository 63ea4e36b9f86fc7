/**
 * Set items equal only up to tolerance (floats inside containers, Any):
 * each expected item needs an actual item of its own, which is a bipartite
 * matching between the two sets.
 */

import type { Judge } from './compare-judge.js';
import { differ, setReason, type Outcome } from './compare-messages.js';
import type { TypeNode } from './type-node.js';

/** Sets up to this size get an exact matching when the greedy one fails. */
const MAX_EXACT_MATCHING = 1000;

/**
 * A greedy pairing, confirmed by a maximum matching when greedy is stuck,
 * since tolerance is not transitive and greedy can choose badly.
 */
export function compareByMatching(judge: Judge, expected: unknown[], actual: unknown[], item: TypeNode, depth: number): Outcome {
  const n = expected.length;
  const cache = n <= MAX_EXACT_MATCHING ? new Int8Array(n * n) : undefined;
  const equal = (i: number, j: number): boolean => {
    if (cache === undefined) return judge.compare(expected[i], actual[j], item, depth + 1) === undefined;
    const index = i * n + j;
    if (cache[index] === 0) cache[index] = judge.compare(expected[i], actual[j], item, depth + 1) ? 2 : 1;
    return cache[index] === 1;
  };
  const owner = new Int32Array(n).fill(-1);
  const unmatched: number[] = [];
  let firstFree = 0;
  for (let i = 0; i < n; i++) {
    while (firstFree < n && owner[firstFree]! >= 0) firstFree++;
    let found = false;
    for (let j = firstFree; j < n; j++) {
      if (owner[j]! < 0 && equal(i, j)) {
        owner[j] = i;
        found = true;
        break;
      }
    }
    if (!found) unmatched.push(i);
  }
  if (unmatched.length === 0) return undefined;
  if (cache !== undefined && completeMatching(n, owner, unmatched, equal)) return undefined;
  const freeActual = owner.findIndex((claimedBy) => claimedBy < 0);
  return differ(() => setReason(expected[unmatched[0]!], actual[freeActual]));
}

/** Kuhn's augmenting paths from each element greedy left unmatched. */
function completeMatching(n: number, owner: Int32Array, unmatched: number[], equal: (i: number, j: number) => boolean): boolean {
  const visited = new Uint8Array(n);
  const augment = (i: number): boolean => {
    for (let j = 0; j < n; j++) {
      if (visited[j] || !equal(i, j)) continue;
      visited[j] = 1;
      if (owner[j]! < 0 || augment(owner[j]!)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (const i of unmatched) {
    visited.fill(0);
    if (!augment(i)) return false;
  }
  return true;
}
