/**
 * The pool's ceilings (src/workers/ceilings.ts): a measured job, which runs
 * each test several times, gets a ceiling that allows for every pass, from
 * its own `measure` for a built job, from the run's for a planned one.
 */
import { describe, expect, it } from 'vitest';
import { plannedCandidate } from './planned-candidate.js';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import type { SandboxLimits } from '../../src/sandbox-host/protocol.js';
import { encodeWire } from '../../src/values/wire.js';
import { ceilingForTests, ceilingOf, passesOf } from '../../src/workers/ceilings.js';
import type { WorkItem } from '../../src/workers/messages.js';

const limits: SandboxLimits = { timeoutMs: 1000, memoryMb: 128, seed: 1 };

function job(tests: number, measure?: { repetitions: number }): GradeJob {
  const built: GradeJob = {
    language: 'python',
    code: 'def f(x):\n    return x\n',
    functionName: 'f',
    arity: 1,
    topLevelNames: ['f'],
    tests: Array.from({ length: tests }, (_, i) => JSON.stringify([i])),
    expected: Array.from({ length: tests }, (_, i) => encodeWire(i)),
    returnType: { kind: 'int' },
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    equality: 'python',
    limits,
  };
  return measure === undefined ? built : { ...built, measure };
}

const candidate = plannedCandidate({ tests: 4 });

describe('ceilings', () => {
  it('allows a measured job every pass of every test, more with more repetitions', () => {
    const plain = ceilingOf({ kind: 'job', job: job(4) }, limits);
    const once = ceilingOf({ kind: 'job', job: job(4, { repetitions: 1 }) }, limits);
    const five = ceilingOf({ kind: 'job', job: job(4, { repetitions: 5 }) }, limits);
    expect(plain).toBe(ceilingForTests(4, limits));
    // Each pass of a measured test may take its whole limit, twice under tracemalloc.
    const allPasses = (repetitions: number): number => 5 * limits.timeoutMs * (2 * repetitions + 1);
    expect(once).toBeGreaterThanOrEqual(allPasses(1));
    expect(five).toBeGreaterThanOrEqual(allPasses(5));
    expect(five).toBeGreaterThan(once);
    expect(once).toBeGreaterThan(plain);
  });

  it("takes a planned candidate's measure from the run, and a one-by-one item's from its single test", () => {
    const item: WorkItem = { kind: 'grade', candidate };
    expect(ceilingOf(item, limits, 0, { repetitions: 3 })).toBe(ceilingForTests(4, limits, { repetitions: 3 }));
    expect(ceilingOf(item, limits)).toBe(ceilingForTests(4, limits));
    const single: WorkItem = { kind: 'job', job: job(4, { repetitions: 2 }), oneByOne: [] };
    expect(ceilingOf(single, limits)).toBe(ceilingForTests(1, limits, { repetitions: 2 }));
  });

  it('counts a nonsensical repetition count as one', () => {
    expect(passesOf(undefined)).toBe(1);
    expect(passesOf({ repetitions: 0 })).toBe(passesOf({ repetitions: 1 }));
    expect(passesOf({ repetitions: 2.7 })).toBe(passesOf({ repetitions: 2 }));
  });
});
