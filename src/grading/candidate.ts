/**
 * A candidate: code to grade against one or more suites of one problem. The
 * plan knows it before its problem is read again (`Candidate`: its identity,
 * the key in the run log); grading pairs it with the problem
 * (`CandidateCode`) to build its job and, from the verdicts, its results.
 * In a self-check the problem's optimal_solution is graded against its
 * correctness suite and every prompt's samples in a single sandbox run; the
 * results are reported per suite.
 */
import type { InvalidProblemFile, PreparedProblem, PreparedSuite } from '../problems/prepared.js';
import type { SubmittedCode, Submission } from '../solutions/submission.js';
import { extractCode, withHelpersFrom } from '../solutions/extract-code.js';
import { detectLanguage, foreignTo, type SolutionLanguage } from '../solutions/language.js';
import { pythonPromptCode, withHead, type HeadSources } from '../solutions/function-body.js';
import { readSubmittedText } from '../solutions/read-solution-file.js';
import type { SolutionBytes } from '../solutions/solution-bytes.js';

/** What the plan keeps of a valid problem while its file is not being graded. */
export interface ProblemSummary {
  id: string;
  file: string;
  tags: readonly string[];
  warnings: readonly string[];
  hasOptimalSolution: boolean;
  /** Tests in all of its suites, for time ceilings and memory budgets. */
  tests: number;
  /** Its prompts' ids, when it was read to plan submissions (which must name one of them, or none). */
  promptIds?: readonly string[];
}

export function summarizeProblem(problem: PreparedProblem): ProblemSummary {
  return {
    id: problem.id,
    file: problem.file,
    tags: problem.problem.tags ?? [],
    warnings: problem.warnings,
    hasOptimalSolution: typeof problem.problem.optimal_solution === 'string',
    tests: problem.samples.reduce((n, s) => n + s.tests.length, problem.correctness.tests.length),
  };
}

/** Why a planned candidate cannot be graded: its file was valid when planned and is not now. */
export function problemChangedMessage(file: InvalidProblemFile): string {
  return `problem file changed during the run: ${file.errors.join('; ')}`;
}

/** A planned candidate: who it is and where its code comes from, without its problem's tests. */
export interface Candidate {
  problemId: string;
  file: string;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  /** Where the code came from, for reports. */
  source: string;
  /** Tests it will run: an upper bound, for memory budgets. */
  tests: number;
  /** The submitted code, or null for the problem's own optimal_solution (a self-check). */
  submission: SubmittedCode | null;
  /** Unwrap Markdown fences and drop prose around submitted code. */
  extract: boolean;
  /**
   * Set on a problem's optimal_solution graded beside submissions (the
   * reference of --grade performance and memory): its correctness suite
   * only, the submissions' tests, rather than a self-check's every suite.
   */
  correctnessOnly?: boolean;
}

/** The model a problem's own optimal_solution is graded as. */
export const SELF_CHECK_MODEL = 'optimal_solution';

/** A self-check's source: its problem's file and a suffix JSON never escapes. */
export function selfCheckSource(file: string): string {
  return `${file}#optimal_solution`;
}

/** Self-check: the optimal_solution of every problem that has one. */
export function selfCheckPlans(problems: readonly ProblemSummary[]): Candidate[] {
  return problems.filter((p) => p.hasOptimalSolution).map(selfCheckPlan);
}

/** The self-check of one problem (whether or not it has an optimal_solution). */
export function selfCheckPlan(p: ProblemSummary): Candidate {
  return {
    problemId: p.id,
    file: p.file,
    modelId: SELF_CHECK_MODEL,
    promptId: null,
    sampleId: null,
    source: selfCheckSource(p.file),
    tests: p.tests,
    submission: null,
    extract: false,
  };
}

/**
 * The references of a grading run that scores efficiency: the
 * optimal_solution of each problem that has submissions, graded on their
 * tests (its correctness suite), as a candidate of model `optimal_solution`.
 */
export function referencePlans(problems: readonly ProblemSummary[]): Candidate[] {
  return selfCheckPlans(problems).map((c) => ({ ...c, correctnessOnly: true }));
}

/**
 * Grading submissions: each against its problem's correctness suite. The
 * caller has already dropped submissions for unknown or unselected problems.
 */
export function submissionPlan(problem: ProblemSummary, submission: Submission, extract: boolean): Candidate {
  return {
    problemId: problem.id,
    file: problem.file,
    modelId: submission.modelId,
    promptId: submission.promptId,
    sampleId: submission.sampleId,
    source: submission.source,
    tests: problem.tests,
    submission: { text: submission.text, declaredLanguage: submission.declaredLanguage },
    extract,
  };
}

/**
 * The candidate with its submission's text read (`readSubmittedText`): what
 * a worker does before grading it; the reason instead when its solution
 * file no longer holds that text.
 */
export function withText(candidate: Candidate, bytes: SolutionBytes): Candidate | { unavailable: string } {
  const submission = candidate.submission;
  if (submission === null || submission.text.kind === 'inline') return candidate;
  const read = readSubmittedText(submission.text, bytes);
  if (!read.ok) return { unavailable: read.reason };
  return { ...candidate, submission: { ...submission, text: { kind: 'inline', raw: read.raw } } };
}

/** A candidate with its problem read: the code to run and the suites to run it against. */
export interface CandidateCode {
  problem: PreparedProblem;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  source: string;
  /** The text as submitted (before fences were unwrapped). */
  raw: string;
  /** The code to run: `raw` with Markdown fences and surrounding prose removed. */
  code: string;
  /** Language declared by the file or field it came from, if any. */
  declaredLanguage: string | null;
  /** Language named on the Markdown fence the code came from, if any. */
  fenceLanguage: string | null;
  /** Model output with no fence, whose prose was told from code by rules that may miss a line (grade.ts drops what Python rejects). */
  unfenced: boolean;
  /** The name the code is expected to define (the prompt may have genericized it). */
  functionName: string;
  suites: PreparedSuite[];
}

export function codeOf(candidate: Candidate, problem: PreparedProblem): CandidateCode {
  const submission = candidate.submission;
  if (submission === null) {
    const code = selfCheckCode(problem);
    return candidate.correctnessOnly === true ? { ...code, suites: [problem.correctness] } : code;
  }
  if (submission.text.kind !== 'inline') throw new Error(`the text of ${candidate.source} was not read before grading it`);
  const raw = submission.text.raw;
  // Without extraction the text runs exactly as submitted, as the reference framework ran it.
  const generic = genericized(problem, candidate.promptId);
  const names = generic ? [problem.functionName, GENERIC_FUNCTION_NAME] : [problem.functionName];
  const foreign = foreignTo(submission.declaredLanguage);
  // A submission that declares no language is taken to answer in its problem's: a Python answer with a
  // JavaScript version after it "for reference" is graded as the Python it gave.
  const extracted = candidate.extract
    ? extractCode(raw, names, submission.declaredLanguage ?? solutionLanguageOf(problem))
    : ({ code: raw, fenced: true, fenceLanguage: null, body: null } as const);
  const body = extracted.body;
  const heads = (): HeadSources => headSources(problem, candidate.promptId, names, generic, foreign);
  const code =
    (body === null ? null : withHead(body, heads())) ??
    (candidate.extract ? withPromptHelpers(extracted.code, problem, candidate.promptId, names, !foreign('python'), heads) : extracted.code);
  return {
    problem,
    modelId: candidate.modelId,
    promptId: candidate.promptId,
    sampleId: candidate.sampleId,
    source: candidate.source,
    raw,
    code,
    declaredLanguage: submission.declaredLanguage,
    fenceLanguage: extracted.fenceLanguage,
    unfenced: !extracted.fenced,
    functionName:
      generic && definesAtTopLevel(code, GENERIC_FUNCTION_NAME) && !definesAtTopLevel(code, problem.functionName)
        ? GENERIC_FUNCTION_NAME
        : problem.functionName,
    suites: [problem.correctness],
  };
}

/**
 * A whole Python function answering a human-eval prompt (imports and helpers,
 * then the function's head): the prompt's imports and helpers it uses go
 * before it, as human-eval runs the prompt before every completion.
 */
function withPromptHelpers(
  code: string,
  problem: PreparedProblem,
  promptId: string | null,
  names: readonly string[],
  pythonAllowed: boolean,
  heads: () => HeadSources,
): string {
  if (!names.some((name) => definesAtTopLevel(code, name))) return code;
  // The prompt's code is the same for every sample of a (problem, prompt): read once.
  let byPrompt = promptCodes.get(problem);
  if (byPrompt === undefined) promptCodes.set(problem, (byPrompt = new Map<string, string | null>()));
  const key = JSON.stringify([pythonAllowed, promptId]);
  let context = byPrompt.get(key);
  if (context === undefined) byPrompt.set(key, (context = pythonPromptCode(heads())));
  return context === null ? code : withHelpersFrom(context, code, names);
}

const promptCodes = new WeakMap<PreparedProblem, Map<string, string | null>>();

/**
 * Where a function's body alone finds its head: the code of the prompt it
 * answered (every prompt's, in file order, when the submission names none),
 * else the prototype as that prompt showed it.
 */
function headSources(
  problem: PreparedProblem,
  promptId: string | null,
  names: readonly string[],
  generic: boolean,
  foreign: (language: string) => boolean,
): HeadSources {
  const prompts = problem.problem.prompts.filter((p) => promptId === null || p.prompt_id === promptId);
  return {
    names,
    promptCode: prompts.map((p) => extractCode(p.prompt, names).code),
    prototype: generic
      ? { name: GENERIC_FUNCTION_NAME, parameters: problem.parameterNames.map((_, i) => genericParameterName(i)) }
      : { name: problem.functionName, parameters: problem.parameterNames },
    allows: (language) => !foreign(language),
  };
}

/** The parameter names a genericized prompt shows: `a`, `b`, `c`, ... */
function genericParameterName(index: number): string {
  return index < 26 ? String.fromCharCode(97 + index) : `a${index}`;
}

/** The name a genericized prompt shows the model in place of `function_name`. */
export const GENERIC_FUNCTION_NAME = 'function';
/** Whether Python code defines `name` at top level (then it is the function asked for, whatever else is there). */
function definesAtTopLevel(code: string, name: string): boolean {
  return new RegExp(`^(?:async[ \\t]+)?def[ \\t]+${name.replace(/[$]/g, '\\$&')}[ \\t]*\\(`, 'm').test(code);
}

/**
 * Whether the prompt showed the model `function(a, b, ...)` for
 * `function_name` (with no prompt named, whether every prompt did). The function called is then that generic one when the
 * code defines it at top level (in Python; `function` cannot name one in
 * JavaScript); otherwise the harness's fallback rules find the function (a
 * helper defined after it would be the last one), and the scorecard says
 * which rule did.
 */
function genericized(problem: PreparedProblem, promptId: string | null): boolean {
  const prompts = problem.problem.prompts;
  // A submission that names no prompt answered one of them: generic when every one of them is.
  if (promptId === null) return prompts.length > 0 && prompts.every((p) => p.genericize === true);
  return prompts.find((p) => p.prompt_id === promptId)?.genericize === true;
}

/** The optimal_solution against the correctness suite and every prompt's samples, in one sandbox run. */
function selfCheckCode(problem: PreparedProblem): CandidateCode {
  const raw = problem.problem.optimal_solution ?? '';
  // Pasted from a model's answer, fence and all: no code starts with a fence, so only then is it read as an answer.
  const extracted = /^\s*(?:```|~~~)/.test(raw) ? extractCode(raw, [problem.functionName]) : { code: raw, fenceLanguage: null };
  return {
    problem,
    modelId: SELF_CHECK_MODEL,
    promptId: null,
    sampleId: null,
    source: selfCheckSource(problem.file),
    raw,
    code: extracted.code,
    declaredLanguage: null,
    fenceLanguage: extracted.fenceLanguage,
    unfenced: false,
    functionName: problem.functionName,
    suites: [problem.correctness, ...problem.samples],
  };
}

/** Self-check code of problems already loaded (the benchmark's floor and peer use this). */
export function selfCheckCandidates(problems: readonly PreparedProblem[]): CandidateCode[] {
  return problems.filter((p) => typeof p.problem.optimal_solution === 'string').map(selfCheckCode);
}

/** The language of a problem's own optimal_solution, if it has one (made once per problem). */
export function solutionLanguageOf(problem: PreparedProblem): SolutionLanguage | null {
  let known = solutionLanguages.get(problem);
  if (known === undefined) {
    const solution = problem.problem.optimal_solution;
    known = typeof solution === 'string' && solution.trim() !== '' ? detectLanguage(solution, { declared: null, fenceLanguage: null }) : null;
    solutionLanguages.set(problem, known);
  }
  return known;
}

const solutionLanguages = new WeakMap<PreparedProblem, SolutionLanguage | null>();
