/**
 * `--test-limits FILE`: the limits an earlier run recorded (its run log's
 * limits lines, or its JSON scorecard's `problems[].test_limits`), so that
 * the shards of one run, or runs on other machines, grade every problem
 * under the same limits instead of each measuring its own.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import type { Scorecard, TestLimitsReport } from '../report/scorecard.js';
import { RunLog } from '../runlog/run-log.js';

export class TestLimitsFileError extends Error {}

const LOG_START = '{"type":"run"';

/** The limits `file` records, by problem id; refuses a file that records none. */
export function readTestLimitsFile(file: string): Map<string, TestLimitsReport> {
  let limits: Map<string, TestLimitsReport>;
  try {
    limits = isRunLog(file) ? fromLog(file) : fromScorecard(file);
  } catch (e) {
    if (e instanceof TestLimitsFileError) throw e;
    throw new TestLimitsFileError(`--test-limits ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (limits.size === 0) throw new TestLimitsFileError(`--test-limits ${file}: records no test limits (was it a run with --timeout-factor?)`);
  return limits;
}

function isRunLog(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const start = Buffer.alloc(LOG_START.length);
    const n = readSync(fd, start, 0, start.length, 0);
    return start.subarray(0, n).toString('utf8') === LOG_START;
  } finally {
    closeSync(fd);
  }
}

function fromLog(file: string): Map<string, TestLimitsReport> {
  const read = RunLog.read(file, () => undefined);
  read.log.close();
  return new Map([...read.limits].map(([id, limits]) => [id, withoutOrigin(limits)]));
}

function fromScorecard(file: string): Map<string, TestLimitsReport> {
  const card = JSON.parse(readFileSync(file, 'utf8')) as Partial<Scorecard>;
  if (!Array.isArray(card.problems)) throw new TestLimitsFileError(`--test-limits ${file}: not a run log or a JSON scorecard`);
  const limits = new Map<string, TestLimitsReport>();
  for (const p of card.problems) {
    if (typeof p.problem_id === 'string' && p.test_limits !== undefined && isReport(p.test_limits)) limits.set(p.problem_id, withoutOrigin(p.test_limits));
  }
  return limits;
}

function isReport(v: TestLimitsReport): boolean {
  if (v.from === 'timeout') return typeof v.timeout_ms === 'number';
  return (
    v.from === 'optimal_solution' && typeof v.language === 'string' && Array.isArray(v.tests_ms) && v.tests_ms.every((ms) => Number.isSafeInteger(ms) && ms > 0)
  );
}

/** Where the limits were first taken from is replaced by this file when they are used again. */
function withoutOrigin(limits: TestLimitsReport): TestLimitsReport {
  const { taken_from: _from, ...rest } = limits;
  return rest;
}
