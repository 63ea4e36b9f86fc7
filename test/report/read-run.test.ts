import { recordJson } from '../../src/values/wire.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRun } from '../../src/runner/read-run.js';
import { locateRunLog } from '../../src/runner/run-files.js';
import { keysOf, RunLog, type PlanToNote } from '../../src/runlog/run-log.js';
import { candidateResult } from './synthetic-run.js';
import { quoteKey } from '../../src/runlog/candidate-key.js';

const HEADER = { type: 'run' as const, run_id: 'r1', started_at: '2026-11-23T10:00:00.000Z', mode: 'self-check' as const, options: { pass_at_k: [1] } };
const PROBLEMS = ['a', 'b', 'c'].map((id) => ({ problem_id: id, file: `${id}.json`, valid: true, errors: [], warnings: [] }));

/** The plan line of the run these tests read back: three candidates, two of them tagged. */
function plan(): PlanToNote {
  return {
    keys: keysOf(['ka', 'kb', 'kc']),
    problems: PROBLEMS,
    tags: new Map([
      ['a', ['x']],
      ['c', ['x', 'y']],
    ]),
    skipped_submissions: [],
  };
}

describe('reading a run back from its log', () => {
  it('orders candidates as planned, whatever order they finished in, and takes tags and problems from the plan', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-read-'));
    const file = join(dir, 'r1.jsonl');
    const store = RunLog.create(file, HEADER);
    store.notePlan(plan());
    store.appendCandidate(quoteKey('kc'), [Buffer.from(recordJson(candidateResult({ problem: 'c', tests: ['fail'] })))]);
    store.appendCandidate(quoteKey('ka'), [Buffer.from(recordJson(candidateResult({ problem: 'a', tests: ['pass'] })))]);
    store.close();

    // Interrupted: two of three, no end line.
    const partial = readRun(file);
    expect(partial.outcome.rows.map((r) => r.problem_id)).toEqual(['a', 'c']);
    expect(partial.outcome.head.complete).toBe(false);
    expect(partial.outcome.head.tags.map((t) => [t.tag, t.candidates])).toEqual([
      ['x', 2],
      ['y', 1],
    ]);
    expect(partial.outcome.head.problems).toEqual(PROBLEMS);
    partial.close();
    // Reading wrote nothing.
    const before = readFileSync(file, 'utf8');

    // Resumed: plan and end lines do not count as damage, and the resumed run's end line makes it complete.
    const { log: resumed, damagedLines } = RunLog.resume(file, () => undefined);
    expect(damagedLines).toBe(0);
    resumed.notePlan(plan());
    resumed.appendCandidate(quoteKey('kb'), [Buffer.from(recordJson(candidateResult({ problem: 'b', tests: ['pass', 'pass'] })))]);
    resumed.noteEnd({ finished_at: '2026-11-23T11:00:00.000Z', complete: true });
    resumed.close();
    expect(readFileSync(file, 'utf8').startsWith(before)).toBe(true);
    const full = readRun(join(dir, 'r1'));
    expect(full.outcome.rows.map((r) => r.problem_id)).toEqual(['a', 'b', 'c']);
    expect(full.outcome.head.complete).toBe(true);
    expect(full.outcome.head.finished_at).toBe('2026-11-23T11:00:00.000Z');
    expect(full.outcome.head.summary).toMatchObject({ candidates: 3, tests: 4, passed: 3, failed: 1 });
    full.close();
  });

  it('finds a log by path, by the scorecard beside it, or by run id under results/, and names what it looked for', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-read-'));
    const log = join(dir, 'r2.jsonl');
    writeFileSync(log, `${JSON.stringify(HEADER)}\n`);
    writeFileSync(join(dir, 'r2.json'), '{}');
    expect(locateRunLog(log)).toBe(log);
    expect(locateRunLog(join(dir, 'r2.json'))).toBe(log);
    expect(locateRunLog(join(dir, 'r2'))).toBe(log);
    expect(() => locateRunLog(join(dir, 'nope'))).toThrow(`no run log (looked for ${join(dir, 'nope')}.jsonl and ${join('results', dir, 'nope')}.jsonl)`);
    writeFileSync(join(dir, 'not-a-log.jsonl'), 'hello\n');
    expect(() => readRun(join(dir, 'not-a-log.jsonl'))).toThrow('not an evalrun run log');
  });
});
