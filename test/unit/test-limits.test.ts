/**
 * Limits per test (--timeout-factor): the formula, the check of the limits
 * a grade item or a built job carries into a worker, which candidates they
 * apply to, the supervisor's ceiling of an item that carries them, and the
 * options' record in the run log, read back by --resume.
 */
import { describe, expect, it } from 'vitest';
import { plannedCandidate } from './planned-candidate.js';
import { LIMIT_BOUNDS } from '../../src/defaults.js';
import { badTestTimeouts, limitsFromTimes, readTestLimits, TestLimitsMismatch, testTimeoutsFor } from '../../src/grading/test-limits.js';
import { optionsFromRecord, recordOptions, type RunOptions } from '../../src/runner/run-options.js';
import type { SandboxLimits } from '../../src/sandbox-host/protocol.js';
import { ceilingForTests, ceilingOf } from '../../src/workers/ceilings.js';

describe('the limit formula', () => {
  it('is K times the time, rounded up to a whole ms, and never below the floor', () => {
    expect(limitsFromTimes([0, 10, 40, 100.2, 1000], 3, 100)).toEqual([100, 100, 120, 301, 3000]);
    expect(limitsFromTimes([33.34], 1.5, 1)).toEqual([51]);
    expect(limitsFromTimes([5], 2, 250)).toEqual([250]);
  });

  it('treats a negative time (a clock that went back) as none', () => {
    expect(limitsFromTimes([-5], 3, 7)).toEqual([7]);
  });

  it('never gives more than the most a limit may be, however large K', () => {
    expect(limitsFromTimes([2000, 1], 1e9, 100)).toEqual([LIMIT_BOUNDS.timeoutMs, LIMIT_BOUNDS.timeoutMs]);
    expect(limitsFromTimes([10], Number.MAX_VALUE, 100)).toEqual([LIMIT_BOUNDS.timeoutMs]);
  });
});

describe('limits arriving in a worker', () => {
  it('accepts a language and positive whole milliseconds', () => {
    expect(readTestLimits({ language: 'python', testsMs: [100, 250] })).toEqual({ language: 'python', testsMs: [100, 250] });
    expect(readTestLimits({ language: 'python', testsMs: [] })).toEqual({ language: 'python', testsMs: [] });
  });

  it('refuses anything else, saying what is wrong', () => {
    for (const bad of [null, 'x', [1], { testsMs: [1] }, { language: '', testsMs: [1] }]) expect(typeof readTestLimits(bad)).toBe('string');
    for (const testsMs of [[0], [-1], [1.5], ['100'], [Number.POSITIVE_INFINITY], 'abc', null]) {
      expect(readTestLimits({ language: 'python', testsMs })).toMatch(/positive whole milliseconds/);
    }
  });

  it("checks a built job's limits against its tests", () => {
    expect(badTestTimeouts(undefined, 3)).toBeNull();
    expect(badTestTimeouts([1, 2, 3], 3)).toBeNull();
    expect(badTestTimeouts([1, 2], 3)).toBe('2 test limits for 3 tests');
    expect(badTestTimeouts([1, 0, 3], 3)).toMatch(/positive whole/);
    expect(badTestTimeouts({ 0: 1 }, 1)).toMatch(/positive whole/);
  });
});

describe('which jobs get the limits', () => {
  const limits = { language: 'python', testsMs: [100, 200] };

  it("a job in the optimal solution's language, with as many tests", () => {
    expect(testTimeoutsFor(limits, 'python', 2)).toEqual([100, 200]);
  });

  it('none for another language, or without limits', () => {
    expect(testTimeoutsFor(limits, 'javascript', 2)).toBeUndefined();
    expect(testTimeoutsFor(undefined, 'python', 2)).toBeUndefined();
  });

  it('refuses limits for another number of tests', () => {
    expect(() => testTimeoutsFor(limits, 'python', 3)).toThrow(TestLimitsMismatch);
  });
});

describe('the ceiling of an item with a limit per test', () => {
  const limits: SandboxLimits = { timeoutMs: 1000, memoryMb: 128, seed: 1 };
  const candidate = plannedCandidate({ tests: 3 });

  it('counts each test at its own limit instead of timeoutMs', () => {
    const small = ceilingOf({ kind: 'grade', candidate, limits: { language: 'python', testsMs: [100, 100, 100] } }, limits);
    const large = ceilingOf({ kind: 'grade', candidate, limits: { language: 'python', testsMs: [100, 100, 30_000] } }, limits);
    expect(small).toBe(ceilingForTests(3, { ...limits, testTimeoutsMs: [100, 100, 100] }));
    expect(small).toBeLessThan(ceilingOf({ kind: 'grade', candidate }, limits));
    // A candidate in another language keeps --timeout, and a limit above it must still be covered.
    expect(large).toBeGreaterThan(2 * 30_000);
  });

  it('one test at a time: the largest limit', () => {
    const item = { kind: 'grade' as const, candidate, oneByOne: [], limits: { language: 'python', testsMs: [100, 5000, 100] } };
    expect(ceilingOf(item, limits)).toBe(ceilingForTests(1, { ...limits, testTimeoutsMs: [5000] }));
  });

  it('is what it was without limits per test', () => {
    expect(ceilingForTests(4, limits)).toBe(5 * (1000 + 250) * 2 + 10_000);
  });
});

describe('the options record', () => {
  const base: RunOptions = {
    problemsDir: 'p',
    solutionsDir: 's',
    filters: { problems: [], tags: [], models: [] },
    concurrency: 2,
    memoryMb: 128,
    timeoutMs: 2000,
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    seed: 1,
    languages: new Set(['javascript', 'python']),
    passAtK: [1],
    extractCode: true,
  };

  it('records the factor, the floor and the limits file, and reads them back', () => {
    const options: RunOptions = { ...base, timeoutFactor: 2.5, timeoutFloorMs: 40, testLimitsFile: '/tmp/limits.jsonl' };
    const record = recordOptions(options);
    expect(record).toMatchObject({ timeout_factor: 2.5, timeout_floor_ms: 40, test_limits: '/tmp/limits.jsonl' });
    const back = optionsFromRecord(JSON.parse(JSON.stringify(record)) as Record<string, unknown>);
    expect(back).toMatchObject({ timeoutFactor: 2.5, timeoutFloorMs: 40, testLimitsFile: '/tmp/limits.jsonl' });
    expect(recordOptions(back)).toEqual(record);
  });

  it('records nothing of them in a run without them, and an old record reads without them', () => {
    const record = recordOptions(base);
    expect(Object.keys(record).filter((k) => k.startsWith('timeout_') || k === 'test_limits')).toEqual(['timeout_ms']);
    const back = optionsFromRecord(record);
    expect(back.timeoutFactor).toBeUndefined();
    expect(back.testLimitsFile).toBeUndefined();
  });
});
