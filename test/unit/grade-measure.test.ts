/**
 * The measured run of --grade performance and memory, with a fake engine
 * standing in for the worker's: which candidates are measured, where their
 * figures go in their records, and why a candidate has none.
 */
import { describe, expect, it } from 'vitest';
import { referencePlans, selfCheckPlans, summarizeProblem, type Candidate } from '../../src/grading/candidate.js';
import { gradeCandidate, type GradeOptions, type RunsJobs } from '../../src/grading/grade.js';
import { NOT_MEASURED } from '../../src/grading/measure.js';
import { loadProblemText } from '../../src/problems/load.js';
import { isInvalidProblemFile, type PreparedProblem } from '../../src/problems/prepared.js';
import type { GradeJob, GradeReply, Verdict } from '../../src/sandbox-host/grade-protocol.js';
import type { TestMeasure } from '../../src/sandbox-host/protocol.js';
import { recordJson } from '../../src/values/wire.js';

const PROBLEM = JSON.stringify({
  identifier: 'double',
  description: 'Double a number.',
  function_prototype: { function_name: 'double', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
  prompts: [{ prompt_id: 'brief', prompt: 'Double n.', sample_inputs_outputs: [{ input: { n: 5 }, expected_output: [10] }] }],
  correctness_test_suite: [
    { input: { n: 1 }, expected_output: [2] },
    { input: { n: 2 }, expected_output: [4] },
  ],
  optimal_solution: 'def double(n):\n    return n * 2\n',
});

function problem(): PreparedProblem {
  const loaded = loadProblemText(PROBLEM, 'problems/double.json');
  if (isInvalidProblemFile(loaded)) throw new Error(loaded.errors.join('; '));
  return loaded;
}

const BASE: GradeOptions = {
  limits: { memoryMb: 64, timeoutMs: 1000, seed: 1 },
  tolerance: { relative: 1e-9, absolute: 1e-9 },
  languages: ['python', 'javascript'],
};
const MEASURED: GradeOptions = { ...BASE, measure: { repetitions: 3 } };

const figure = (cost: number, memory: number): TestMeasure => ({ cost, memory, wallMs: [1, 2, 3], cpuMs: [1, 1, 2] });

/** A fake engine: every test passes unless `fail` names it; measured jobs get figures unless `unmeasured`. */
function fakeJobs(behaviour: { fail?: number; unmeasured?: boolean; measuredFails?: number } = {}): RunsJobs & { jobs: GradeJob[] } {
  const jobs: GradeJob[] = [];
  return {
    jobs,
    run(job: GradeJob): Promise<GradeReply> {
      jobs.push(job);
      const measured = job.measure !== undefined && behaviour.unmeasured !== true;
      const failing = job.measure === undefined ? behaviour.fail : behaviour.measuredFails;
      const verdicts: Verdict[] = job.tests.map((_, i): Verdict => {
        if (i === failing) return { status: 'fail', actual: '0', reason: 'expected 2, got 0', durationMs: 0 };
        return measured ? { status: 'pass', durationMs: 0, measure: figure(10 * (i + 1), 100 * (i + 1)) } : { status: 'pass', durationMs: 0 };
      });
      return Promise.resolve(
        measured
          ? { kind: 'ran', entryPoint: 'name:double', verdicts, durationMs: 1, load: figure(5, 50) }
          : { kind: 'ran', entryPoint: 'name:double', verdicts, durationMs: 1 },
      );
    },
  };
}

function optimalCandidate(p: PreparedProblem): Candidate {
  return selfCheckPlans([summarizeProblem(p)])[0]!;
}

describe('measured grading', () => {
  it('measures nothing unless asked: one run, records as before', async () => {
    const jobs = fakeJobs();
    const p = problem();
    const [result] = await gradeCandidate(jobs, optimalCandidate(p), p, BASE);
    expect(jobs.jobs).toHaveLength(1);
    expect(jobs.jobs[0]!.measure).toBeUndefined();
    expect('measure' in result!).toBe(false);
    expect('measure_error' in result!).toBe(false);
    expect(result!.tests.some((t) => 'measure' in t)).toBe(false);
  });

  it('grades a passing candidate again, measured, and records each test and the totals', async () => {
    const jobs = fakeJobs();
    const p = problem();
    const results = await gradeCandidate(jobs, optimalCandidate(p), p, MEASURED);
    expect(jobs.jobs.map((j) => j.measure)).toEqual([undefined, { repetitions: 3 }]);
    // A self-check runs its correctness suite and its prompt's samples in one job: three tests.
    const [correctness, samples] = results;
    expect(correctness!.tests.map((t) => t.measure)).toEqual([
      { cost: 10, memory: 100, wall_ms: [1, 2, 3], cpu_ms: [1, 1, 2] },
      { cost: 20, memory: 200, wall_ms: [1, 2, 3], cpu_ms: [1, 1, 2] },
    ]);
    // cost: loading plus the tests; memory: the sum of the tests' peaks.
    expect(correctness!.measure).toEqual({ cost: 35, memory: 300, load_cost: 5, load_memory: 50 });
    expect(correctness!.measure_error).toBeNull();
    expect(samples!.measure).toEqual({ cost: 35, memory: 300, load_cost: 5, load_memory: 50 });
    // The totals come before the tests in the record text.
    const text = recordJson(correctness);
    expect(text.indexOf('"measure":{"cost":35')).toBeLessThan(text.indexOf('"tests":'));
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(correctness)));
  });

  it('grades the reference beside submissions on the correctness suite only', async () => {
    const jobs = fakeJobs();
    const p = problem();
    const reference = referencePlans([summarizeProblem(p)])[0]!;
    expect(reference.modelId).toBe('optimal_solution');
    const results = await gradeCandidate(jobs, reference, p, MEASURED);
    expect(results).toHaveLength(1);
    expect(jobs.jobs[0]!.tests).toHaveLength(2);
    expect(results[0]!.measure).toEqual({ cost: 35, memory: 300, load_cost: 5, load_memory: 50 });
  });

  it('does not measure a candidate that failed a test, and says why', async () => {
    const jobs = fakeJobs({ fail: 1 });
    const p = problem();
    const [result] = await gradeCandidate(jobs, referencePlans([summarizeProblem(p)])[0]!, p, MEASURED);
    expect(jobs.jobs).toHaveLength(1);
    expect(result).toMatchObject({ status: 'failed', measure: null, measure_error: NOT_MEASURED.notPassed });
  });

  it('says so when the engine did not measure', async () => {
    const jobs = fakeJobs({ unmeasured: true });
    const p = problem();
    const [result] = await gradeCandidate(jobs, referencePlans([summarizeProblem(p)])[0]!, p, MEASURED);
    expect(jobs.jobs).toHaveLength(2);
    expect(result).toMatchObject({ status: 'passed', measure: null, measure_error: 'the engine did not measure' });
    expect(result!.tests.some((t) => 'measure' in t)).toBe(false);
  });

  it('keeps the first verdicts and drops the figures when the measured run disagrees', async () => {
    const jobs = fakeJobs({ measuredFails: 0 });
    const p = problem();
    const [result] = await gradeCandidate(jobs, referencePlans([summarizeProblem(p)])[0]!, p, MEASURED);
    expect(result).toMatchObject({ status: 'passed', passed: 2, measure: null });
    expect(result!.measure_error).toBe('the measured run disagreed with the first: test 0 was fail');
  });

  it('does not measure code that does not load', async () => {
    const p = problem();
    const jobs: RunsJobs & { calls: number } = {
      calls: 0,
      run() {
        this.calls++;
        return Promise.resolve({ kind: 'load-error', message: 'SyntaxError' });
      },
    };
    const [result] = await gradeCandidate(jobs, referencePlans([summarizeProblem(p)])[0]!, p, MEASURED);
    expect(jobs.calls).toBe(1);
    expect(result).toMatchObject({ status: 'load-error', measure: null, measure_error: NOT_MEASURED.notPassed });
  });
});

describe('the judge and the row wire with figures', () => {
  it('keeps a returned test’s figures on its pass, and drops them from a fail', async () => {
    const { judge } = await import('../../src/sandbox-host/judge.js');
    const measure = figure(3, 4);
    expect(judge({ kind: 'returned', json: '2', durationMs: 1, measure }, '2', { kind: 'int' }, BASE.tolerance)).toEqual({
      status: 'pass',
      durationMs: 1,
      measure,
    });
    expect(judge({ kind: 'returned', json: '2.0', durationMs: 1, measure }, '2', { kind: 'float' }, BASE.tolerance)).toMatchObject({ status: 'pass', measure });
    expect(judge({ kind: 'returned', json: '3', durationMs: 1, measure }, '2', { kind: 'int' }, BASE.tolerance)).not.toHaveProperty('measure');
  });

  it('carries a row’s efficiency to the supervisor and back, and refuses a malformed one', async () => {
    const { GradedAnswers, gradedRows, readFromWorker } = await import('../../src/workers/messages.js');
    const { candidateRow } = await import('../../src/report/rows.js');
    const jobs = fakeJobs();
    const p = problem();
    const results = await gradeCandidate(jobs, referencePlans([summarizeProblem(p)])[0]!, p, MEASURED);
    const rows = results.map(candidateRow);
    const texts = results.map((r) => recordJson(r));
    const answers = new GradedAnswers(1, 0);
    answers.add(rows, texts);
    const { line, payload } = answers.frame();
    const message = readFromWorker(JSON.parse(line), payload);
    if (typeof message === 'string' || message.type !== 'graded') throw new Error(`not a graded message: ${JSON.stringify(message)}`);
    expect(gradedRows(message, 0)).toEqual(rows);
    expect(rows.every((r) => r.efficiency !== undefined)).toBe(true);
    const tampered = JSON.parse(line) as { efficiency: unknown[][] };
    tampered.efficiency[0]![1] = ['correctness', true, -1, 0, null];
    expect(readFromWorker(tampered, payload)).toBe('a "graded" message with malformed efficiency');
  });
});
