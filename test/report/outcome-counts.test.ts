import { describe, expect, it } from 'vitest';
import { selfCheckExitCode } from '../../src/cli/execute.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { syntheticRuns } from './synthetic-run.js';

const run = syntheticRuns();

describe('what the end of a run counts in its one pass over the rows', () => {
  it('counts the rows of each status, as the rows themselves say', () => {
    const { outcome } = run([
      { problem: 'a', tests: ['pass', 'pass'] },
      { problem: 'b', tests: ['pass', 'fail'] },
      { problem: 'c', tests: ['error', 'error'], status: 'load-error', error: 'SyntaxError' },
      { problem: 'd', tests: [], status: 'no-tests' },
      { problem: 'e', tests: ['skipped'], status: 'unsupported', error: 'no engine' },
      { problem: 'f', tests: ['pass'] },
    ]);
    const byStatus: Record<string, number> = {};
    for (const row of outcome.eachRow()) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
    expect(outcome.statuses).toEqual({ passed: 2, failed: 1, 'load-error': 1, unsupported: 1, 'no-tests': 1 });
    expect(outcome.statuses).toEqual({ passed: 0, failed: 0, 'load-error': 0, unsupported: 0, 'no-tests': 0, ...byStatus });
    expect(outcome.head.summary).toMatchObject({ candidates: 6, tests: 8, passed: 4, failed: 1, errored: 2, skipped: 1 });
  });

  it('knows the problems that have rows, and only those', () => {
    const { outcome } = run(
      [
        { problem: 'a', tests: ['pass'] },
        { problem: 'b', tests: ['pass'] },
      ],
      { logged: 1, finished: false },
    );
    expect(outcome.hasRows('a')).toBe(true);
    expect(outcome.hasRows('b')).toBe(false);
    expect(outcome.hasRows('zzz')).toBe(false);
  });
});

describe("a self-check's exit code", () => {
  it('is 0 when every candidate passed or had no tests', () => {
    const { outcome } = run(
      [
        { problem: 'a', tests: ['pass'] },
        { problem: 'b', tests: [], status: 'no-tests' },
      ],
      { mode: 'self-check' },
    );
    expect(selfCheckExitCode(outcome)).toBe(EXIT.ok);
  });

  it('fails for a candidate that did not load, even when it had no test to fail', () => {
    // Its passed and total are both 0: the summary's counts alone would call the run clean.
    const { outcome } = run(
      [
        { problem: 'a', tests: ['pass'] },
        { problem: 'b', tests: [], status: 'load-error', error: 'SyntaxError' },
      ],
      { mode: 'self-check' },
    );
    expect(outcome.head.summary.passed).toBe(outcome.head.summary.tests);
    expect(selfCheckExitCode(outcome)).toBe(EXIT.failed);
  });

  it('fails for an unsupported candidate without tests, and for an interrupted run', () => {
    const unsupported = run([{ problem: 'a', tests: [], status: 'unsupported', error: 'no engine' }], { mode: 'self-check' });
    expect(selfCheckExitCode(unsupported.outcome)).toBe(EXIT.failed);
    const interrupted = run(
      [
        { problem: 'a', tests: ['pass'] },
        { problem: 'b', tests: ['pass'] },
      ],
      { mode: 'self-check', logged: 1, finished: false },
    );
    expect(selfCheckExitCode(interrupted.outcome)).toBe(EXIT.failed);
  });
});
