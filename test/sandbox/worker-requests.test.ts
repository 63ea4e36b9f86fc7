/**
 * The requests the runner sends to sandbox workers besides prepared jobs:
 * reading problem files and grading whole candidates, through the real pool
 * and worker processes (the built dist/), as a run uses them.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CandidateResult } from '../../src/report/scorecard.js';
import type { GradeOptions } from '../../src/runner/grade-candidate.js';
import { WorkerPool } from '../../src/sandbox-host/pool.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const ADD = join(FIXTURES, 'cli-pass', 'add.json');
const OPTIONS: GradeOptions = {
  limits: { memoryMb: 64, timeoutMs: 2000, seed: 1 },
  tolerance: { relative: 1e-9, absolute: 1e-9 },
  languages: new Set(['javascript', 'python']),
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
    expect(answer.graded.failures).toEqual([]);
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
