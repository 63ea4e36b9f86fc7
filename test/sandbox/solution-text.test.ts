/**
 * A submission's text travels as a reference to the bytes of its solution
 * file (solutions/submission.ts `SubmittedText`): the worker that grades it
 * reads those bytes again. Through a real worker: the text it reads is the
 * one the run read, and a file changed in between is reported, not graded.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissionPlan, type ProblemSummary } from '../../src/grading/candidate.js';
import { NO_FILTERS } from '../../src/grading/filters.js';
import { readSolutionFile } from '../../src/solutions/read-solution-file.js';
import type { Submission } from '../../src/solutions/submission.js';
import { gradedRecords, type BatchOptions } from '../../src/workers/messages.js';
import { WorkerPool } from '../../src/workers/pool.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'cli-pass', 'add.json');

const OPTIONS: BatchOptions = {
  grade: { limits: { memoryMb: 64, timeoutMs: 10_000, seed: 1 }, tolerance: { relative: 1e-9, absolute: 1e-9 }, languages: ['javascript'] },
  extractCode: true,
  filters: NO_FILTERS,
};

describe('a submission read again from its solution file', () => {
  const pool = new WorkerPool({ size: 1 });
  afterAll(() => pool.close());
  let dir: string;
  let problem: ProblemSummary;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalrun-solution-text-'));
    mkdirSync(join(dir, 'problems'));
    copyFileSync(FIXTURE, join(dir, 'problems', 'add.json'));
    problem = { id: 'add', file: join(dir, 'problems', 'add.json'), tags: [], warnings: [], hasOptimalSolution: true, tests: 0 };
  });

  const line = (code: string) => JSON.stringify({ problem_id: 'add', completion: code });
  const read = (file: string): Submission[] =>
    readSolutionFile({ source: file, parts: ['m', 'samples.jsonl'] }, { known: new Set(['add']), rootName: 'solutions' }).flatMap((o) =>
      o.kind === 'submission' ? [o.submission] : [],
    );

  async function grade(submissions: Submission[]): Promise<Array<{ status: string; error: string | null; code: string }>> {
    const graded: Array<{ status: string; error: string | null; code: string }> = [];
    await pool.run({
      batch: { options: OPTIONS, items: submissions.map((s) => ({ kind: 'grade', candidate: submissionPlan(problem, s, true) })) },
      ceilingMs: () => 60_000,
      onMessage: (m) => {
        if (m.type !== 'graded') throw new Error(`unexpected ${m.type}`);
        for (let j = 0; j < m.count; j++) {
          const record = gradedRecords(m, j)[0]!;
          const r = JSON.parse(Buffer.from(record).toString('utf8')) as { status: string; error: string | null; code: string };
          graded.push({ status: r.status, error: r.error, code: r.code });
        }
      },
    });
    return graded;
  }

  it('grades the text the run read, and reports the one whose bytes changed since', async () => {
    const file = join(dir, 'samples.jsonl');
    const right = '```js\nfunction add(a, b) { return a + b; } // é\n```';
    writeFileSync(file, `${line(right)}\n${line('function add(a, b) { return a - b; }')}\n`);
    const submissions = read(file);
    expect(submissions.map((s) => s.text.kind)).toEqual(['range', 'range']);

    const before = await grade(submissions);
    expect(before.map((g) => g.status)).toEqual(['passed', 'failed']);
    expect(before[0]!.code).toBe('function add(a, b) { return a + b; } // é');

    // The second line gets other bytes of the same length; the first stays as it was.
    writeFileSync(file, `${line(right)}\n${line('function add(a, b) { return a * b; }')}\n`);
    const after = await grade(submissions);
    expect(after.map((g) => g.status)).toEqual(['passed', 'load-error']);
    expect(after[1]!.error).toBe(`solution file changed during the run: ${file} no longer holds the same bytes`);
  });
});
