/**
 * The requests the runner sends to sandbox workers besides prepared jobs:
 * reading problem files and grading whole candidates, through the real pool
 * and worker processes (the built dist/), as a run uses them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CandidateResult } from '../../src/report/scorecard.js';
import type { GradeOptions } from '../../src/runner/grade-candidate.js';
import { gradedFromWire } from '../../src/runner/worker-tasks.js';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/sandbox-host/pool.js';
import { encodeWire } from '../../src/values/wire.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const ADD = join(FIXTURES, 'cli-pass', 'add.json');
const OPTIONS: GradeOptions = {
  limits: { memoryMb: 64, timeoutMs: 2000, seed: 1 },
  tolerance: { relative: 1e-9, absolute: 1e-9 },
  languages: ['javascript', 'python'],
};

describe('worker requests', () => {
  const pool = new WorkerPool({ size: 2 });
  afterAll(() => pool.close());

  it('reads problem files in a batch: a summary for a good file, every reason for a bad one', async () => {
    const bad = join(FIXTURES, 'problems-invalid', 'bad-json.json');
    const { answer, worker } = await pool.request({ kind: 'load', files: [ADD, bad] }, { ceilingMs: 30_000 });
    expect(worker).toBeGreaterThan(0);
    expect(answer).toHaveLength(2);
    expect(answer[0]).toMatchObject({ ok: true, summary: { file: ADD, hasOptimalSolution: true } });
    expect(answer[0]?.ok === true ? answer[0].summary.tests : 0).toBeGreaterThan(0);
    expect(answer[1]).toMatchObject({ ok: false, invalid: { file: bad } });
    expect(answer[1]?.ok === false ? answer[1].invalid.errors.join('\n') : '').toMatch(/not valid JSON/);
  });

  it('grades a candidate down to the JSON text of its results, on the worker that read its problem when asked', async () => {
    const loaded = await pool.request({ kind: 'load', files: [ADD] }, { ceilingMs: 30_000 });
    const { answer, worker } = await pool.request(
      { kind: 'candidate', task: { file: ADD, recipe: { kind: 'self-check' }, options: OPTIONS, last: true } },
      { ceilingMs: 30_000, prefer: loaded.worker },
    );
    expect(worker).toBe(loaded.worker);
    expect(answer.kind).toBe('graded');
    if (answer.kind !== 'graded') return;
    const results = answer.graded.texts.map((text) => JSON.parse(text) as CandidateResult);
    expect(results[0]).toMatchObject({ model_id: 'optimal_solution', status: 'passed', source: `${ADD}#optimal_solution` });
    expect(answer.graded.rows[0]).toMatchObject({ status: 'passed', ran: true, passed: results[0]!.total });
    expect(gradedFromWire(answer.graded).failures).toEqual([]);
  });

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
      limits: OPTIONS.limits,
    };
    const reply = await pool.grade(job);
    expect(reply).toMatchObject({
      kind: 'ran',
      verdicts: [
        { status: 'pass' },
        { status: 'fail', actual: '{"$evalrun":"float","value":"Infinity"}' },
        { status: 'pass' },
      ],
    });
  });

  it("keeps a failing test's non-finite values when the worker built its records", async () => {
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
    const { answer } = await pool.request(
      { kind: 'candidate', task: { file, recipe: { kind: 'self-check' }, options: OPTIONS, last: true } },
      { ceilingMs: 30_000 },
    );
    expect(answer.kind).toBe('graded');
    if (answer.kind !== 'graded') return;
    const { failures } = gradedFromWire(answer.graded);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.test).toMatchObject({ status: 'fail', expected: Number.POSITIVE_INFINITY, actual: Number.NEGATIVE_INFINITY });
  });

  it('says when a file no longer holds a valid problem', async () => {
    const missing = join(FIXTURES, 'no-such-problem.json');
    const { answer } = await pool.request(
      { kind: 'candidate', task: { file: missing, recipe: { kind: 'self-check' }, options: OPTIONS, last: true } },
      { ceilingMs: 30_000 },
    );
    expect(answer).toMatchObject({ kind: 'unavailable' });
    expect(answer.kind === 'unavailable' ? answer.message : '').toMatch(/problem file changed during the run/);
  });
});
