/**
 * The one route a candidate takes, through the real pool and worker
 * processes (the built dist/): its grade job goes to a worker, which runs
 * and judges it; a job sent one test at a time (after its worker died)
 * says which test it starts and keeps the verdicts already settled; graded
 * candidates come back several to a message.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { selfCheckPlans, submissionPlan, summarizeProblem, type Candidate } from '../../src/grading/candidate.js';
import { gradeCandidate, type GradeOptions } from '../../src/grading/grade.js';
import { loadProblemFile } from '../../src/problems/load.js';
import { isInvalidProblemFile } from '../../src/problems/prepared.js';
import { NO_FILTERS } from '../../src/grading/filters.js';
import type { GradeJob, GradeReply } from '../../src/sandbox-host/grade-protocol.js';
import { gradedJoined, gradedRecords, gradedRows, type GradedMessage } from '../../src/workers/messages.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import { encodeWire } from '../../src/values/wire.js';

const OPTIONS: GradeOptions = {
  limits: { memoryMb: 64, timeoutMs: 2000, seed: 1 },
  tolerance: { relative: 1e-9, absolute: 1e-9 },
  languages: ['javascript', 'python'],
};

describe('grade jobs', () => {
  const pool = new WorkerPool({ size: 2 });
  afterAll(() => pool.close());

  it('carries values JSON cannot hold (NaN, infinities) across as wire text', async () => {
    const job: GradeJob = {
      language: 'javascript',
      code: 'function f(x) { return x === 0 ? NaN : x === 1 ? Infinity : -Infinity; }',
      functionName: 'f',
      arity: 1,
      topLevelNames: ['f'],
      tests: ['[0]', '[1]', '[2]'],
      expected: [Number.NaN, 1.5, Number.NEGATIVE_INFINITY].map((v) => encodeWire(v)),
      returnType: { kind: 'float' },
      tolerance: OPTIONS.tolerance,
      equality: 'javascript',
      limits: OPTIONS.limits,
    };
    const reply = await gradeWithRecovery(pool, job);
    expect(reply).toMatchObject({
      kind: 'ran',
      verdicts: [{ status: 'pass' }, { status: 'fail', actual: '{"$evalrun":"float","value":"Infinity"}' }, { status: 'pass' }],
    });
  });

  it('runs a job sent again one test at a time, keeping the settled verdicts', async () => {
    const job: GradeJob = {
      language: 'javascript',
      code: 'function f(x) { return x * 2; }',
      functionName: 'f',
      arity: 1,
      topLevelNames: ['f'],
      tests: ['[1]', '[2]', '[3]'],
      expected: [2, 5, 6].map((v) => encodeWire(v)),
      returnType: { kind: 'int' },
      tolerance: OPTIONS.tolerance,
      equality: 'javascript',
      limits: OPTIONS.limits,
    };
    let reply: GradeReply | null = null;
    await pool.run({
      batch: {
        options: { grade: { limits: job.limits, tolerance: job.tolerance, languages: ['javascript'] }, extractCode: false, filters: NO_FILTERS },
        items: [{ kind: 'job', job, oneByOne: [[2, { status: 'memory', message: 'sandbox process died: killed by SIGABRT (V8 ran out of memory)' }]] }],
      },
      ceilingMs: () => 10_000,
      onMessage: (m) => {
        if (m.type === 'answered') reply = m.reply;
      },
    });
    expect(reply).toMatchObject({
      kind: 'ran',
      entryPoint: expect.any(String) as string,
      verdicts: [
        { status: 'pass' },
        { status: 'fail', actual: '4' },
        { status: 'memory', message: 'sandbox process died: killed by SIGABRT (V8 ran out of memory)' },
      ],
    });
  });

  it("grades a candidate against its problem, keeping a failing test's non-finite values", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'evalrun-non-finite-')), 'inverse.json');
    writeFileSync(
      file,
      JSON.stringify({
        identifier: 'inverse',
        description: 'The inverse of x.',
        prompts: [{ prompt_id: 'p', prompt: 'Return 1 / x.', genericize: false, sample_inputs_outputs: [] }],
        function_prototype: { function_name: 'inverse', parameters: [{ name: 'x', type: 'float' }], return_values: [{ type: 'float' }] },
        correctness_test_suite: [
          { input: { x: 0 }, expected_output: ['inf'] },
          { input: { x: 2 }, expected_output: [0.5] },
        ],
        // Wrong on purpose: zero is not special-cased to infinity.
        optimal_solution: 'function inverse(x) { return x === 0 ? -Infinity : 1 / x; }',
      }),
    );
    const problem = await loadProblemFile(file);
    if (isInvalidProblemFile(problem)) throw new Error(problem.errors.join('; '));
    const [candidate] = selfCheckPlans([summarizeProblem(problem)]);
    const results = await gradeCandidate({ run: (job) => gradeWithRecovery(pool, job) }, candidate!, problem, OPTIONS);
    expect(results[0]).toMatchObject({ model_id: 'optimal_solution', status: 'failed', source: `${file}#optimal_solution`, passed: 1, total: 2 });
    // Non-finite floats are held and recorded as float tags.
    expect(results[0]?.tests[0]).toMatchObject({
      status: 'fail',
      expected: { $evalrun: 'float', value: 'Infinity' },
      actual: { $evalrun: 'float', value: '-Infinity' },
    });
  });

  it('answers the consecutive graded items of a batch in few messages, every candidate with its own rows and records', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'evalrun-graded-group-')), 'double.json');
    writeFileSync(
      file,
      JSON.stringify({
        identifier: 'double',
        description: 'Twice x.',
        prompts: [{ prompt_id: 'p', prompt: 'Return 2 * x.', genericize: false, sample_inputs_outputs: [] }],
        function_prototype: { function_name: 'double', parameters: [{ name: 'x', type: 'int' }], return_values: [{ type: 'int' }] },
        correctness_test_suite: [
          { input: { x: 1 }, expected_output: [2] },
          { input: { x: 5 }, expected_output: [10] },
        ],
      }),
    );
    const problem = await loadProblemFile(file);
    if (isInvalidProblemFile(problem)) throw new Error(problem.errors.join('; '));
    const summary = summarizeProblem(problem);
    const items = 40;
    // Every third sample is wrong on the second test.
    const candidate = (i: number): Candidate =>
      submissionPlan(
        summary,
        {
          problemId: 'double',
          modelId: 'm',
          promptId: 'p',
          sampleId: String(i),
          source: `s${i}.js`,
          text: { kind: 'inline', raw: `function double(x) { return ${i % 3 === 0 ? 'x === 5 ? 0 : 2 * x' : '2 * x'}; }` },
          declaredLanguage: 'javascript',
        },
        false,
      );
    const messages: GradedMessage[] = [];
    await pool.run({
      batch: {
        options: { grade: OPTIONS, extractCode: false, filters: NO_FILTERS, answerWithinMs: 60_000 },
        items: Array.from({ length: items }, (_, i) => ({ kind: 'grade', candidate: candidate(i) })),
      },
      ceilingMs: () => 60_000,
      onMessage: (m) => {
        if (m.type !== 'graded') throw new Error(`unexpected ${m.type}`);
        messages.push(m);
      },
    });
    expect(messages.length).toBeLessThan(items);
    expect(messages.reduce((n, m) => n + m.count, 0)).toBe(items);
    // Each message starts where the one before it ended.
    expect(messages.map((m) => m.item)).toEqual(messages.map((_, k) => messages.slice(0, k).reduce((n, m) => n + m.count, 0)));
    for (const m of messages) {
      for (let j = 0; j < m.count; j++) {
        const i = m.item + j;
        const [row] = gradedRows(m, j);
        expect(row).toMatchObject({
          problem_id: 'double',
          sample_id: String(i),
          status: i % 3 === 0 ? 'failed' : 'passed',
          passed: i % 3 === 0 ? 1 : 2,
          total: 2,
        });
        const records = gradedRecords(m, j);
        expect(records).toHaveLength(1);
        expect(gradedJoined(m, j).equals(records[0]!)).toBe(true);
        expect(JSON.parse(records[0]!.toString('utf8'))).toMatchObject({ sample_id: String(i), source: `s${i}.js`, passed: row!.passed });
      }
    }
  });
});
