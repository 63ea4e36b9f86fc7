import { describe, expect, it } from 'vitest';
import { passAtK, passAtKTableOf } from '../../src/report/pass-at-k.js';

/** passAtKTableOf over groups given as objects, in their order. */
function passAtKTable(groups: ReadonlyArray<{ n: number; c: number }>, ks: readonly number[]): Record<string, number | null> {
  return passAtKTableOf(
    groups.map((_, i) => i),
    groups.map((g) => g.n),
    groups.map((g) => g.c),
    ks,
  );
}

/** Exact 1 - C(n-c, k)/C(n, k) with BigInt binomials, as an independent check. */
function exactPassAtK(n: number, c: number, k: number): number {
  const choose = (a: number, b: number): bigint => {
    if (b > a) return 0n;
    let r = 1n;
    for (let i = 0; i < b; i++) r = (r * BigInt(a - i)) / BigInt(i + 1);
    return r;
  };
  const wrong = choose(n - c, k);
  const all = choose(n, k);
  // Scale before dividing so the quotient keeps 15 significant digits.
  const scale = 10n ** 18n;
  return 1 - Number((wrong * scale) / all) / 1e18;
}

describe('passAtK', () => {
  it('matches hand-computed values', () => {
    // n=5, c=2, k=1: 1 - C(3,1)/C(5,1) = 1 - 3/5
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 15);
    // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 15);
    // n=8, c=3, k=3: 1 - C(5,3)/C(8,3) = 1 - 10/56
    expect(passAtK(8, 3, 3)).toBeCloseTo(1 - 10 / 56, 15);
  });

  it('computes n=200, c=13, k=10 (the shape of the Codex paper runs)', () => {
    // C(187,10)/C(200,10) = (187·186·…·178)/(200·199·…·191)
    //                     = 40934613401812863532800 / 81470204436547390464000
    // so pass@10 = 78115540005393/157000030132960 = 0.497551114730606…
    expect(passAtK(200, 13, 10)).toBeCloseTo(0.4975511147306061, 14);
    expect(passAtK(200, 13, 10)).toBeCloseTo(exactPassAtK(200, 13, 10), 14);
  });

  it('stays accurate where factorials would overflow', () => {
    // C(200,100) ≈ 9e58; 200! alone is ≈ 8e374, beyond a double.
    expect(passAtK(200, 10, 100)).toBeCloseTo(5776103793 / 5780560756, 14);
    expect(passAtK(1000, 1, 1)).toBeCloseTo(0.001, 15);
  });

  it('is 0 with no correct sample and 1 when all are correct', () => {
    expect(passAtK(10, 0, 1)).toBe(0);
    expect(passAtK(10, 0, 10)).toBe(0);
    expect(passAtK(10, 10, 1)).toBe(1);
    expect(passAtK(10, 10, 10)).toBe(1);
  });

  it('is 1 when fewer than k samples are wrong', () => {
    expect(passAtK(5, 4, 2)).toBe(1);
  });

  it('equals c/n for k = 1', () => {
    for (const [n, c] of [
      [7, 3],
      [20, 1],
      [3, 2],
    ] as const)
      expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 15);
  });

  it('is null when k > n', () => {
    expect(passAtK(5, 2, 6)).toBeNull();
    expect(passAtK(0, 0, 1)).toBeNull();
  });

  it('rejects inputs that are not counts', () => {
    expect(() => passAtK(5, 6, 1)).toThrow(RangeError);
    expect(() => passAtK(-1, 0, 1)).toThrow(RangeError);
    expect(() => passAtK(5, 2, 0)).toThrow(RangeError);
    expect(() => passAtK(5, 1.5, 1)).toThrow(RangeError);
    expect(() => passAtK(Number.NaN, 0, 1)).toThrow(RangeError);
  });
});

describe('passAtKTableOf', () => {
  it('averages over groups, keyed pass@k in ascending k', () => {
    const table = passAtKTable(
      [
        { n: 5, c: 2 },
        { n: 5, c: 0 },
        { n: 5, c: 5 },
      ],
      [2, 1, 2],
    );
    expect(Object.keys(table)).toEqual(['pass@1', 'pass@2']);
    expect(table['pass@1']).toBeCloseTo((0.4 + 0 + 1) / 3, 15);
    expect(table['pass@2']).toBeCloseTo((0.7 + 0 + 1) / 3, 15);
  });

  it('gives null for a k that some group has too few samples for', () => {
    const table = passAtKTable(
      [
        { n: 10, c: 3 },
        { n: 2, c: 1 },
      ],
      [1, 5],
    );
    expect(table['pass@1']).toBeCloseTo((0.3 + 0.5) / 2, 15);
    expect(table['pass@5']).toBeNull();
  });

  it('gives null with no groups at all', () => {
    expect(passAtKTable([], [1])).toEqual({ 'pass@1': null });
  });

  it('rejects a k that is not a positive integer, even with no groups', () => {
    expect(() => passAtKTable([], [0])).toThrow(RangeError);
    expect(() => passAtKTable([{ n: 1, c: 1 }], [1.5])).toThrow(RangeError);
  });

  it('takes the groups its order names, in that order, from the columns', () => {
    const n = new Float64Array([5, 99, 10, 4]);
    const c = new Float64Array([2, 99, 3, 4]);
    expect(passAtKTableOf([2, 0, 3], n, c, [1])).toEqual({ 'pass@1': (0.3 + 0.4 + 1) / 3 });
    expect(passAtKTableOf([3, 0], n, c, [5])).toEqual({ 'pass@5': null });
  });

  it('rejects counts in the columns that are not counts, as passAtK does', () => {
    expect(() => passAtKTableOf([0], [3], [4], [1])).toThrow(/c \(4\) exceeds n \(3\)/);
    expect(() => passAtKTableOf([0], [-1], [0], [1])).toThrow(/n must be a non-negative integer/);
    expect(() => passAtKTableOf([0], [2], [0.5], [1])).toThrow(/c must be a non-negative integer/);
  });
});
