// The grading service's limits per test (`timeoutFactor`, the CLI's
// --timeout-factor): each problem's optimal solution is graded once, on the
// first call for that problem, under the grader's `timeoutMs`, and every
// call's candidates then run under max(floor, ceil(factor x its time on
// each test)). A problem without an optimal solution, or whose optimal
// solution fails a test, keeps the call's `timeoutMs`.

import type { Candidate } from '../grading/candidate.js';
import { limitsFromResult, type LimitBasis, type TestLimits } from '../grading/test-limits.js';
import type { CandidateResult } from '../report/scorecard.js';
import { referenceOf } from './efficiency-call.js';
import type { HeldProblem } from './problem-set.js';

/** Problems whose limits are kept (inline problems make new ones without end): the oldest go first. */
const KEPT = 4096;

/** The factor, with the floor and the `timeoutMs` the optimal solution is graded under. */
export interface LimitSettings extends LimitBasis {
  factor: number;
}

export class ProblemLimits {
  private readonly known = new Map<string, Promise<TestLimits | undefined>>();

  constructor(
    private readonly settings: LimitSettings,
    /** Grades the reference candidate (correctness only, every test); null when it could not be graded. */
    private readonly grade: (problem: HeldProblem, reference: Candidate) => Promise<CandidateResult | null>,
  ) {}

  /** The limits of `problem`'s tests; undefined when its tests keep the call's `timeoutMs`. */
  of(problem: HeldProblem): Promise<TestLimits | undefined> {
    const known = this.known.get(problem.key);
    if (known !== undefined) return known;
    const reference = referenceOf(problem);
    const made = reference === null ? Promise.resolve(undefined) : this.measure(problem, reference);
    if (this.known.size >= KEPT) this.known.delete(this.known.keys().next().value as string);
    this.known.set(problem.key, made);
    return made;
  }

  /** Never rejects: a measurement that fails leaves the call's `timeoutMs` in force, and the next call asks again. */
  private async measure(problem: HeldProblem, reference: Candidate): Promise<TestLimits | undefined> {
    let result: CandidateResult | null;
    try {
      result = await this.grade(problem, reference);
    } catch {
      // The workers were stopped (the grader is closing): the call itself says so when it sends its candidates.
      result = null;
    }
    // Not graded (a cancel, a lost worker, a closing grader): asked again by the next call rather than kept.
    if (result === null) {
      this.known.delete(problem.key);
      return undefined;
    }
    const { factor, ...rest } = this.settings;
    const limits = limitsFromResult(result, rest, factor);
    return limits.from === 'optimal_solution' && limits.language !== undefined && limits.tests_ms !== undefined
      ? { language: limits.language, testsMs: limits.tests_ms }
      : undefined;
  }
}
