/**
 * Limits per test (`--timeout-factor K`, docs/ARCHITECTURE.md "Limits per
 * test"): before a run grades the candidates of a problem, it grades that
 * problem's optimal_solution through the same route, under `--timeout`, and
 * gives each correctness test max(floor, ceil(K × the optimal solution's
 * time on it)). A problem whose limits cannot be measured keeps `--timeout`
 * for every test, with the reason. Limits already known (an interrupted
 * run's log, `--test-limits`) are used as they are, never measured again,
 * so that every candidate of a problem is graded under the same limits.
 */
import { referencePlans, type Candidate, type ProblemSummary } from '../grading/candidate.js';
import { keepTimeout, limitsFromResult, type LimitBasis, type TestLimits } from '../grading/test-limits.js';
import type { CandidateResult, TestLimitsReport } from '../report/scorecard.js';
import { gradedRecords, type BatchOptions } from '../workers/messages.js';
import { swallowIfInterrupted } from './grade-candidates.js';
import type { Route } from './route.js';

/** --timeout (the optimal solution's limit, and every test's when none is measured), the floor, and the factor. */
export interface LimitSettings extends LimitBasis {
  /** --timeout-factor; absent: nothing is measured (limits come only from `given`). */
  factor?: number;
}

export interface KnownLimits {
  /** In this run's own log (a resumed run): used, not written again. */
  logged: ReadonlyMap<string, TestLimitsReport>;
  /** Read from --test-limits: used, and written to this run's log. */
  given: ReadonlyMap<string, TestLimitsReport>;
  /** The file `given` came from, named in the problems they apply to. */
  givenFrom?: string;
}

/**
 * The limits of each problem in `needed` (the ids of problems with
 * candidates to grade), and of every problem the log already names. Each
 * problem settled here is passed to `note` (the run log's line, written
 * before any of its candidates is graded) and, when it keeps --timeout, to
 * `warn`.
 */
export async function settleTestLimits(
  route: Route,
  batch: BatchOptions,
  problems: readonly ProblemSummary[],
  needed: ReadonlySet<string>,
  settings: LimitSettings,
  known: KnownLimits,
  hooks: { note: (problemId: string, limits: TestLimitsReport) => void; warn: (line: string) => void; interrupted: () => boolean },
): Promise<Map<string, TestLimitsReport>> {
  const settled = new Map<string, TestLimitsReport>(known.logged);
  const settle = (id: string, limits: TestLimitsReport): void => {
    settled.set(id, limits);
    hooks.note(id, limits);
    if (limits.from === 'timeout')
      hooks.warn(`problem ${id}: every test keeps the --timeout of ${limits.timeout_ms ?? settings.timeoutMs} ms: ${limits.reason ?? ''}`);
  };
  const toMeasure: ProblemSummary[] = [];
  for (const problem of problems) {
    if (!needed.has(problem.id) || settled.has(problem.id)) continue;
    const given = known.given.get(problem.id);
    if (given !== undefined) settle(problem.id, known.givenFrom === undefined ? given : { ...given, taken_from: known.givenFrom });
    else if (settings.factor === undefined) settle(problem.id, keepTimeout(settings, `not in the --test-limits file ${known.givenFrom ?? ''}`));
    else if (!problem.hasOptimalSolution) settle(problem.id, keepTimeout(settings, 'the problem has no optimal_solution'));
    else toMeasure.push(problem);
  }
  if (toMeasure.length === 0 || settings.factor === undefined) return settled;
  const factor = settings.factor;
  const plans = referencePlans(toMeasure);
  // Correctness only, every test run, under --timeout: the times must be the optimal solution's own.
  const { measure: _measure, stopOnFirstFailure: _stop, testLimits: _limits, ...grade } = batch.grade;
  await swallowIfInterrupted(
    hooks.interrupted,
    route.send(
      plans.map((candidate, index) => ({ index, item: { kind: 'grade', candidate } })),
      {
        onMessage: (m, indexOf) => {
          if (m.type === 'graded') {
            for (let j = 0; j < m.count; j++) settle(plans[indexOf(j)]!.problemId, fromResult(gradedRecords(m, j)[0], settings, factor));
          } else if (m.type === 'failed') {
            settle(plans[indexOf(0)]!.problemId, keepTimeout(settings, `grading its optimal_solution failed: ${m.message}`));
          }
        },
        giveUp: (index, _, reason) =>
          settle(plans[index]!.problemId, keepTimeout(settings, `grading its optimal_solution stopped the sandbox worker: ${reason}`)),
      },
      { batch: { ...batch, grade } },
    ),
  );
  return settled;
}

/** The limits a grade item carries for `candidate`: its problem's, when they were measured. */
export function itemLimits(settled: ReadonlyMap<string, TestLimitsReport>, candidate: Candidate): TestLimits | undefined {
  const limits = settled.get(candidate.problemId);
  if (limits?.from !== 'optimal_solution' || limits.language === undefined || limits.tests_ms === undefined) return undefined;
  return { language: limits.language, testsMs: limits.tests_ms };
}

/** The limits from the optimal solution's record (the worker's record text), or --timeout with the reason it cannot give them. */
function fromResult(record: Uint8Array | undefined, settings: LimitSettings, factor: number): TestLimitsReport {
  let result: CandidateResult;
  try {
    result = JSON.parse(Buffer.from(record ?? []).toString('utf8')) as CandidateResult;
  } catch {
    return keepTimeout(settings, 'the optimal_solution was graded, but its record could not be read');
  }
  return limitsFromResult(result, settings, factor);
}
