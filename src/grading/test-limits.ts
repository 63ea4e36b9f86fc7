/**
 * A problem's limit per test (`--timeout-factor`, docs/ARCHITECTURE.md
 * "Limits per test"): worked out by the run from its optimal solution's
 * times, sent with each of its candidates' grade items, and applied here,
 * in the worker, once the candidate's language is known. The optimal
 * solution's times say nothing of another language's speed, so a
 * candidate in another language keeps `--timeout` for every test.
 */
import { LIMIT_BOUNDS } from '../defaults.js';
import { allLanguages } from '../engines/find-language.js';
import type { CandidateResult, TestLimitsReport } from '../report/scorecard.js';

/** The limits of one problem's correctness tests, measured with its optimal solution in `language`. */
export interface TestLimits {
  /** The language (an engine's name: `python`, `javascript`) the optimal solution ran in. */
  language: string;
  /** One wall-clock limit per correctness test, in ms, in test order. */
  testsMs: number[];
}

/** Why no per-test limits apply to a job: the limits name another number of tests than it has. */
export class TestLimitsMismatch extends Error {}

/**
 * The `testTimeoutsMs` of a job in `language` with `tests` tests: the
 * problem's limits when they are for that language, none otherwise. Limits
 * for another number of tests (the problem file changed since they were
 * measured) are refused: a test must never run under another test's limit.
 */
export function testTimeoutsFor(limits: TestLimits | undefined, language: string, tests: number): number[] | undefined {
  if (limits === undefined || limits.language !== language) return undefined;
  if (limits.testsMs.length !== tests) {
    throw new TestLimitsMismatch(
      `the test limits of this problem name ${limits.testsMs.length} tests, its correctness suite has ${tests} (the problem file changed since they were measured)`,
    );
  }
  return limits.testsMs;
}

/** A grade item's limits as they arrive in a worker, checked; a description of what is wrong otherwise. */
export function readTestLimits(value: unknown): TestLimits | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'test limits that are not an object';
  const { language, testsMs } = value as Record<string, unknown>;
  if (typeof language !== 'string' || language === '') return 'test limits without their language';
  if (!Array.isArray(testsMs) || !testsMs.every(isLimitMs)) return 'test limits that are not a list of positive whole milliseconds';
  return { language, testsMs };
}

/** What is wrong with a built job's `limits.testTimeoutsMs` (one positive whole ms per test, or absent), or null. */
export function badTestTimeouts(value: unknown, tests: number): string | null {
  if (value === undefined) return null;
  if (!Array.isArray(value) || !value.every(isLimitMs)) return 'test limits that are not a list of positive whole milliseconds';
  return value.length === tests ? null : `${value.length} test limits for ${tests} tests`;
}

function isLimitMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** What limits are worked out from: `--timeout` (the optimal solution's own limit, and every test's when none is measured) and the floor. */
export interface LimitBasis {
  timeoutMs: number;
  floorMs: number;
}

/**
 * Each test's limit from the optimal solution's time on it: K times that,
 * rounded up to a whole ms, never below the floor and never past the most
 * a limit may be (a large K on a slow test would otherwise ask the engines
 * for a limit they cannot set).
 */
export function limitsFromTimes(timesMs: readonly number[], factor: number, floorMs: number): number[] {
  return timesMs.map((ms) => Math.min(LIMIT_BOUNDS.timeoutMs, Math.max(floorMs, Math.ceil(factor * Math.max(0, ms)))));
}

/** The limits from the optimal solution's graded result, or --timeout with the reason it cannot give them (the grading service's calls too). */
export function limitsFromResult(result: CandidateResult, settings: LimitBasis, factor: number): TestLimitsReport {
  if (result.status !== 'passed') {
    const first = result.tests.find((t) => t.status !== 'pass');
    const why =
      first === undefined ? (result.error ?? result.status) : `test ${first.index}: ${first.status}${first.error === null ? '' : ` (${first.error})`}`;
    return keepTimeout(settings, `the optimal_solution does not pass every test under --timeout (${why})`);
  }
  // The engine's language: TypeScript runs as JavaScript, and its times say what JavaScript candidates take.
  const language = allLanguages().find((l) => l.dialects.some((d) => d.name === result.language));
  if (language === undefined) return keepTimeout(settings, `the optimal_solution is in ${result.language}, which no engine runs`);
  const times = result.tests.map((t) => t.duration_ms ?? settings.timeoutMs);
  return { from: 'optimal_solution', language: language.name, tests_ms: limitsFromTimes(times, factor, settings.floorMs) };
}

/** Every test keeps `--timeout`, and why. */
export function keepTimeout(basis: LimitBasis, reason: string): TestLimitsReport {
  return { from: 'timeout', timeout_ms: basis.timeoutMs, reason };
}
