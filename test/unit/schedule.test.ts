/**
 * The schedule, the one route from the plan to the run log, with a pool
 * that answers from here: each candidate added is graded once and its
 * results recorded; an interrupted run records nothing more; a result the
 * log cannot take ends the run (its error kept for the run to report, the
 * workers let go) without an unhandled rejection.
 */
import { describe, expect, it } from 'vitest';
import { selfCheckPlans, summarizeProblem } from '../../src/grading/candidate.js';
import type { GradesJobs } from '../../src/grading/recovery.js';
import type { PreparedProblem } from '../../src/problems/prepared.js';
import type { CandidateResult } from '../../src/report/scorecard.js';
import { Schedule } from '../../src/runner/schedule.js';
import type { GradeJob, GradeReply } from '../../src/sandbox-host/grade-protocol.js';

function problem(id: string): PreparedProblem {
  return {
    file: `${id}.json`,
    problem: { identifier: id, optimal_solution: 'function f(n) { return n; }', tags: [] } as unknown as PreparedProblem['problem'],
    id,
    functionName: 'f',
    parameterNames: ['n'],
    parameterTypes: [{ kind: 'int' }],
    returnType: { kind: 'int' },
    correctness: {
      kind: 'correctness',
      promptId: null,
      tests: [1, 2].map((n, index) => ({ index, source: `$.correctness_test_suite[${index}]`, args: [n], expected: n, rawInput: { n } })),
    },
    samples: [],
    warnings: [],
  };
}

/** A pool that passes every test, or holds each job until `release`. */
class FakePool implements GradesJobs {
  readonly jobs: GradeJob[] = [];
  closed = false;
  private held: Array<() => void> = [];
  constructor(private readonly hold = false) {}
  grade(job: GradeJob): Promise<GradeReply> {
    this.jobs.push(job);
    const reply: GradeReply = { kind: 'ran', entryPoint: 'declaration:f', verdicts: job.tests.map(() => ({ status: 'pass', durationMs: 0 })), durationMs: 1 };
    if (!this.hold) return Promise.resolve(reply);
    return new Promise((resolve) => this.held.push(() => resolve(reply)));
  }
  release(): void {
    for (const go of this.held.splice(0)) go();
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

const OPTIONS = { limits: { memoryMb: 64, timeoutMs: 1000, seed: 1 }, tolerance: { relative: 1e-9, absolute: 1e-9 }, languages: ['javascript' as const] };
const candidateOf = (p: PreparedProblem) => selfCheckPlans([summarizeProblem(p)])[0]!;

describe('Schedule', () => {
  it('grades each candidate added with one job and records its results', async () => {
    const pool = new FakePool();
    const recorded: Array<[string, CandidateResult[]]> = [];
    const schedule = new Schedule({ pool, grade: OPTIONS, interrupted: () => false, record: (c, results) => recorded.push([c.problemId, results]) });
    const a = problem('a');
    schedule.add(candidateOf(a), a);
    const b = problem('b');
    schedule.add(candidateOf(b), Promise.resolve(b));
    await schedule.idle();
    expect(pool.jobs.map((j) => j.tests)).toEqual([['[1]', '[2]'], ['[1]', '[2]']]);
    expect(recorded.map(([id, results]) => [id, results.map((r) => [r.status, r.passed, r.total])])).toEqual([
      ['a', [['passed', 2, 2]]],
      ['b', [['passed', 2, 2]]],
    ]);
    expect(() => schedule.check()).not.toThrow();
  });

  it('records a candidate whose problem file changed as not gradable, with the reason', async () => {
    const recorded: CandidateResult[][] = [];
    const schedule = new Schedule({ pool: new FakePool(), grade: OPTIONS, interrupted: () => false, record: (_, results) => recorded.push(results) });
    const a = problem('a');
    schedule.add(candidateOf(a), Promise.resolve({ file: a.file, id: null, errors: [`${a.file}: $: not valid JSON`] }));
    await schedule.idle();
    expect(recorded[0]?.[0]).toMatchObject({ status: 'load-error', error: `problem file changed during the run: ${a.file}: $: not valid JSON` });
  });

  it('records nothing once the run is interrupted', async () => {
    const pool = new FakePool(true);
    let interrupted = false;
    const recorded: string[] = [];
    const schedule = new Schedule({ pool, grade: OPTIONS, interrupted: () => interrupted, record: (c) => recorded.push(c.problemId) });
    const a = problem('late');
    schedule.add(candidateOf(a), a);
    await new Promise((resolve) => setImmediate(resolve));
    interrupted = true;
    pool.release();
    schedule.add(candidateOf(problem('after')), problem('after'));
    await schedule.idle();
    expect(recorded).toEqual([]);
    expect(pool.jobs).toHaveLength(1);
  });

  it('keeps a failure to record for the run to report, and lets the workers go', async () => {
    const pool = new FakePool();
    const schedule = new Schedule({
      pool,
      grade: OPTIONS,
      interrupted: () => false,
      record: () => {
        throw new Error('disk full');
      },
    });
    const x = problem('x');
    schedule.add(candidateOf(x), x);
    await schedule.idle();
    expect(() => schedule.check()).toThrow('disk full');
    expect(pool.closed).toBe(true);
  });
});
