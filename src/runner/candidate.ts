import type { PreparedProblem, PreparedSuite } from '../problems/prepared.js';
import type { Submission } from '../solutions/discover.js';
import { extractCode } from '../solutions/extract-code.js';

/**
 * One piece of code to grade against one or more suites of one problem.
 * In a self-check the problem's optimal_solution is graded against its
 * correctness suite and every prompt's samples in a single sandbox run; the
 * results are reported per suite.
 */
export interface CandidateSpec {
  problem: PreparedProblem;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  /** Where the code came from, for reports. */
  source: string;
  /** The text as submitted (before fences were unwrapped). */
  raw: string;
  /** The code to run: `raw` with Markdown fences and surrounding prose removed. */
  code: string;
  /** Language declared by the file or field it came from, if any. */
  declaredLanguage: string | null;
  /** Language named on the Markdown fence the code came from, if any. */
  fenceLanguage: string | null;
  /** The name the code is expected to define (the prompt may have genericized it). */
  functionName: string;
  suites: PreparedSuite[];
}

/** Self-check: the optimal_solution of every problem that has one. */
export function selfCheckCandidates(problems: readonly PreparedProblem[]): CandidateSpec[] {
  const specs: CandidateSpec[] = [];
  for (const problem of problems) {
    const code = problem.problem.optimal_solution;
    if (typeof code !== 'string') continue;
    specs.push({
      problem,
      modelId: 'optimal_solution',
      promptId: null,
      sampleId: null,
      source: `${problem.file}#optimal_solution`,
      raw: code,
      code,
      declaredLanguage: null,
      fenceLanguage: null,
      functionName: problem.functionName,
      suites: [problem.correctness, ...problem.samples],
    });
  }
  return specs;
}

/**
 * Grading: each submission against its problem's correctness suite. The
 * caller has already dropped submissions for unknown or unselected problems.
 */
export function submissionCandidate(problem: PreparedProblem, submission: Submission, extract = true): CandidateSpec {
  // Without extraction the text runs exactly as submitted, as the reference framework ran it.
  const extracted = extract ? extractCode(submission.raw) : { code: submission.raw, fenceLanguage: null };
  return {
    problem,
    modelId: submission.modelId,
    promptId: submission.promptId,
    sampleId: submission.sampleId,
    source: submission.source,
    raw: submission.raw,
    code: extracted.code,
    declaredLanguage: submission.declaredLanguage,
    fenceLanguage: extracted.fenceLanguage,
    // A genericized prompt showed the model `function(...)`; the harness's
    // fallback rules find the function, and the scorecard says which rule did.
    functionName: problem.functionName,
    suites: [problem.correctness],
  };
}

/**
 * Identifies a candidate across runs (for `--resume`): the same problem,
 * model, prompt, sample and source.
 */
export function candidateKey(spec: CandidateSpec): string {
  return JSON.stringify([spec.problem.id, spec.modelId, spec.promptId, spec.sampleId, spec.source]);
}
