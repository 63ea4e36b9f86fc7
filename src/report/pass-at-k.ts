/**
 * pass@k, the unbiased estimator of Chen et al. 2021 ("Evaluating Large
 * Language Models Trained on Code"): with n samples of which c are correct,
 * the chance that at least one of k samples drawn without replacement is
 * correct, 1 - C(n-c, k) / C(n, k).
 */

/**
 * pass@k for one problem; null when k > n (k samples cannot be drawn).
 * The ratio of binomials is the product of (1 - k/i) for i = n-c+1 .. n,
 * which never forms the huge binomials themselves (n = 200, k = 100 would overflow).
 * Throws a RangeError for inputs that are not counts (negative, fractional,
 * c > n, k < 1): those are caller bugs, not data.
 */
export function passAtK(n: number, c: number, k: number): number | null {
  assertCount('n', n);
  assertCount('c', c);
  assertCount('k', k);
  assertAtMost(c, n);
  if (k < 1) throw new RangeError(`pass@k: k must be at least 1, got ${k}`);
  return countsPassAtK(n, c, k);
}

/** passAtK of counts n and c, c <= n, and a count k from 1, checked by the caller (`passAtK` checks each; a table checks k once). */
function countsPassAtK(n: number, c: number, k: number): number | null {
  if (k > n) return null;
  // Fewer than k wrong samples: every draw of k contains a correct one.
  if (n - c < k) return 1;
  // pass@1 is exactly the fraction correct; the product below would round it (0.4 → 0.3999…).
  if (k === 1) return c / n;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}

/**
 * Mean pass@k over groups (one group per problem, or per problem × prompt),
 * for each k, keyed `pass@1`, `pass@10`, … in ascending k (duplicates merged).
 * A value is null when it cannot be computed for every group: when any group
 * has fewer than k samples (n < k), or when there are no groups at all.
 * Averaging only the groups that do have k samples would silently compare
 * models on different problem sets.
 *
 * The groups are given as columns: group i of the mean is the one at
 * `order[i]` of `n` and `c`, the groups summed in that order. A run's
 * roll-ups call it once per model over every task at the very end of the
 * run, code that runs too seldom to be optimized, where an object and a few
 * calls per task were work the supervisor did per candidate (a self-check
 * has a task per candidate).
 */
export function passAtKTableOf(order: ArrayLike<number>, n: ArrayLike<number>, c: ArrayLike<number>, ks: readonly number[]): Record<string, number | null> {
  for (const k of ks) {
    if (!Number.isSafeInteger(k) || k < 1) throw new RangeError(`pass@k: k must be a positive integer, got ${k}`);
  }
  const table: Record<string, number | null> = {};
  for (const k of [...new Set(ks)].sort((a, b) => a - b)) {
    table[`pass@${k}`] = meanPassAtK(order, n, c, k);
  }
  return table;
}

function meanPassAtK(order: ArrayLike<number>, n: ArrayLike<number>, c: ArrayLike<number>, k: number): number | null {
  if (order.length === 0) return null;
  let sum = 0;
  for (let i = 0; i < order.length; i++) {
    const g = order[i]!;
    const samples = n[g]!;
    const correct = c[g]!;
    if (!isCount(samples)) assertCount('n', samples);
    if (!isCount(correct)) assertCount('c', correct);
    assertAtMost(correct, samples);
    const value = countsPassAtK(samples, correct, k);
    if (value === null) return null;
    sum += value;
  }
  return sum / order.length;
}

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

function assertAtMost(c: number, n: number): void {
  if (c > n) throw new RangeError(`pass@k: c (${c}) exceeds n (${n})`);
}

function assertCount(name: string, value: number): void {
  if (!isCount(value)) {
    throw new RangeError(`pass@k: ${name} must be a non-negative integer, got ${value}`);
  }
}
