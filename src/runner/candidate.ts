import type { PreparedProblem, PreparedSuite } from '../problems/prepared.js';

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
  /** Language declared by the file or field it came from, if any. */
  declaredLanguage: string | null;
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
      declaredLanguage: null,
      functionName: problem.functionName,
      suites: [problem.correctness, ...problem.samples],
    });
  }
  return specs;
}
