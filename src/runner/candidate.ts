import type { InvalidProblemFile, PreparedProblem, PreparedSuite } from '../problems/prepared.js';
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

/** What the runner keeps of a valid problem while its file is not being graded. */
export interface ProblemSummary {
  id: string;
  file: string;
  tags: string[];
  warnings: string[];
  hasOptimalSolution: boolean;
  /** Tests in all of its suites, for time ceilings and memory budgets. */
  tests: number;
}

export function summarizeProblem(problem: PreparedProblem): ProblemSummary {
  return {
    id: problem.id,
    file: problem.file,
    tags: problem.problem.tags ?? [],
    warnings: problem.warnings,
    hasOptimalSolution: typeof problem.problem.optimal_solution === 'string',
    tests: countTests(problem),
  };
}

function countTests(problem: PreparedProblem): number {
  return problem.samples.reduce((n, s) => n + s.tests.length, problem.correctness.tests.length);
}

/** Why a planned candidate cannot be graded: its file was valid when planned and is not now. */
export function problemChangedMessage(file: InvalidProblemFile): string {
  return `problem file changed during the run: ${file.errors.join('; ')}`;
}

/**
 * How to build a candidate once its problem is loaded. Plain data, so that
 * it can travel to the worker process that loads the problem and grades it.
 */
export type CandidateRecipe =
  | { kind: 'self-check' }
  | { kind: 'submission'; submission: Submission; extract: boolean };

export function buildCandidate(problem: PreparedProblem, recipe: CandidateRecipe): CandidateSpec {
  return recipe.kind === 'self-check'
    ? selfCheckCandidate(problem)
    : submissionCandidate(problem, recipe.submission, recipe.extract);
}

/**
 * A candidate before its problem is loaded: who it is (enough to key it in
 * the run log) and how to build it once the problem file is read again.
 */
export interface PlannedCandidate {
  problemId: string;
  file: string;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  source: string;
  /** Tests it will run: an upper bound, for its time ceiling. */
  tests: number;
  recipe: CandidateRecipe;
}

/** Self-check: the optimal_solution of every problem that has one. */
export function selfCheckPlans(problems: readonly ProblemSummary[]): PlannedCandidate[] {
  return problems
    .filter((p) => p.hasOptimalSolution)
    .map((p) => ({
      problemId: p.id,
      file: p.file,
      modelId: 'optimal_solution',
      promptId: null,
      sampleId: null,
      source: `${p.file}#optimal_solution`,
      tests: p.tests,
      recipe: { kind: 'self-check' as const },
    }));
}

/** Self-check candidates of problems already loaded (the benchmark's floor uses this). */
export function selfCheckCandidates(problems: readonly PreparedProblem[]): CandidateSpec[] {
  return problems.filter((p) => typeof p.problem.optimal_solution === 'string').map(selfCheckCandidate);
}

/** The optimal_solution against the correctness suite and every prompt's samples, in one sandbox run. */
export function selfCheckCandidate(problem: PreparedProblem): CandidateSpec {
  const code = problem.problem.optimal_solution ?? '';
  return {
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
  };
}

export function submissionPlan(problem: ProblemSummary, submission: Submission, extract: boolean): PlannedCandidate {
  return {
    problemId: problem.id,
    file: problem.file,
    modelId: submission.modelId,
    promptId: submission.promptId,
    sampleId: submission.sampleId,
    source: submission.source,
    tests: problem.tests,
    recipe: { kind: 'submission', submission, extract },
  };
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
export function candidateKey(c: Pick<PlannedCandidate, 'problemId' | 'modelId' | 'promptId' | 'sampleId' | 'source'>): string {
  return JSON.stringify([c.problemId, c.modelId, c.promptId, c.sampleId, c.source]);
}
