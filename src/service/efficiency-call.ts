// A call that asks for performance or memory grades the problem's optimal
// solution too, as a run does, and scores each candidate against it once
// it is in: the candidates graded before it wait for it.

import { efficiencyGraders, type EfficiencyGrader, type Grader } from '../grading/graders.js';
import { referencePlans, type Candidate } from '../grading/candidate.js';
import { scoreEfficiency } from '../report/efficiency.js';
import { candidateRow } from '../report/rows.js';
import type { CandidateResult } from '../report/scorecard.js';
import type { CallEfficiency } from './grade-call.js';
import type { HeldProblem } from './problem-set.js';

/** The problem's optimal solution as a candidate of the call, on the candidates' tests; null when it has none. */
export function referenceOf(problem: HeldProblem): Candidate | null {
  if (problem.solutionLanguage === null) return null;
  const summary = { id: problem.id, file: problem.key, tags: problem.tags, warnings: [], hasOptimalSolution: true, tests: problem.tests };
  return referencePlans([summary])[0] ?? null;
}

/**
 * Holds a call's results until its reference is graded (or known to be
 * missing), then hands each on with its scores.
 */
export class ScoredResults {
  private readonly graders: EfficiencyGrader[];
  private reference: CandidateResult | null = null;
  private waiting: boolean;
  private readonly held: Array<[number, CandidateResult]> = [];

  constructor(
    graders: readonly Grader[],
    hasReference: boolean,
    private readonly deliver: (index: number, record: CandidateResult, efficiency: CallEfficiency | undefined) => void,
  ) {
    this.graders = efficiencyGraders(graders);
    this.waiting = this.graders.length > 0 && hasReference;
  }

  /** A candidate's record: handed on now, or once the reference is in. */
  candidate(index: number, record: CandidateResult): void {
    if (this.waiting) this.held.push([index, record]);
    else this.deliver(index, record, this.score(record));
  }

  /** The reference's record (or null when it could not be graded): the held records go on. */
  settle(reference: CandidateResult | null): void {
    if (!this.waiting) return;
    this.waiting = false;
    this.reference = reference;
    for (const [index, record] of this.held.splice(0)) this.deliver(index, record, this.score(record));
  }

  private score(record: CandidateResult): CallEfficiency | undefined {
    if (this.graders.length === 0) return undefined;
    const rows = [candidateRow(record), ...(this.reference === null ? [] : [candidateRow(this.reference)])];
    const { index: _i, problem_id: _p, model_id: _m, ...scores } = scoreEfficiency(rows, this.graders).candidates[0]!;
    return scores;
  }
}
