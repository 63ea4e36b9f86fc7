// A call's candidates become the same Candidate a run plans, so the route
// and the workers grade them as they grade submissions.

import { languageNames } from '../engines/find-language.js';
import type { Candidate } from '../grading/candidate.js';
import type { CandidateResult } from '../report/scorecard.js';
import { normalizeLanguageName } from '../solutions/language.js';
import { GradeRefused, type CallEfficiency, type CandidateInput, type GradedCandidate } from './grade-call.js';
import type { HeldProblem } from './problem-set.js';

/** The model id of a call's candidates in their records (a call has no models). */
const MODEL_ID = 'candidate';

export interface CheckedCandidate {
  id: string | null;
  code: string;
  language: string | null;
  promptId: string | null;
}

/** The call's candidates checked, each `prompt_id` against the prompts of `problem`. */
export function checkedCandidates(candidates: readonly CandidateInput[], problem: HeldProblem): CheckedCandidate[] {
  if (!Array.isArray(candidates) || candidates.length === 0) throw new GradeRefused('no-candidates', 'no candidates: give at least one');
  return candidates.map((c: unknown, i): CheckedCandidate => {
    const at = `candidates[${i}]`;
    if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new GradeRefused('invalid-candidate', `${at}: expected an object with "code"`);
    const { id, code, language, prompt_id: promptId } = c as Record<string, unknown>;
    if (typeof code !== 'string') throw new GradeRefused('invalid-candidate', `${at}.code: expected a string`);
    if (id !== undefined && id !== null && typeof id !== 'string') throw new GradeRefused('invalid-candidate', `${at}.id: expected a string`);
    if (language !== undefined && language !== null) {
      if (typeof language !== 'string') throw new GradeRefused('invalid-candidate', `${at}.language: expected a string`);
      if (normalizeLanguageName(language) === null) {
        throw new GradeRefused('unsupported-language', `${at}.language: unsupported language ${JSON.stringify(language)} (evalrun runs ${supportedNames()})`);
      }
    }
    if (promptId !== undefined && promptId !== null) {
      if (typeof promptId !== 'string') throw new GradeRefused('invalid-candidate', `${at}.prompt_id: expected a string or null`);
      if (!problem.promptIds.includes(promptId)) throw new GradeRefused('unknown-prompt', `${at}.prompt_id: ${unknownPrompt(problem, promptId)}`);
    }
    return {
      id: typeof id === 'string' ? id : null,
      code,
      language: typeof language === 'string' ? language : null,
      promptId: typeof promptId === 'string' ? promptId : null,
    };
  });
}

function unknownPrompt(problem: HeldProblem, promptId: string): string {
  const known = problem.promptIds.map((p) => JSON.stringify(p));
  const of = `problem ${JSON.stringify(problem.id)}`;
  return known.length === 0
    ? `${of} has no prompts, so no prompt ${JSON.stringify(promptId)} (leave prompt_id out)`
    : `${of} has no prompt ${JSON.stringify(promptId)} (its prompts: ${known.join(', ')})`;
}

function supportedNames(): string {
  return languageNames().join(', ');
}

export function candidateOf(problem: HeldProblem, input: CheckedCandidate, index: number, extract: boolean): Candidate {
  const source = input.id ?? `candidates[${index}]`;
  const declared = normalizeLanguageName(input.language);
  return {
    problemId: problem.id,
    file: problem.key,
    modelId: MODEL_ID,
    promptId: input.promptId,
    sampleId: null,
    source,
    tests: problem.tests,
    submission: { text: { kind: 'inline', raw: input.code }, declaredLanguage: declared },
    extract,
  };
}

export function gradedOf(index: number, input: CheckedCandidate, record: CandidateResult, efficiency?: CallEfficiency): GradedCandidate {
  const graded: GradedCandidate = {
    index,
    id: input.id,
    problem_id: record.problem_id,
    prompt_id: record.prompt_id,
    language: record.language,
    status: record.status,
    error: record.error,
    entry_point: record.entry_point,
    passed: record.passed,
    total: record.total,
    score: record.score,
    duration_ms: record.duration_ms,
    tests: record.tests,
  };
  if (record.measure === undefined) return graded;
  // Measured: the figures and scores before the tests, as in the scorecard's records.
  const { tests, ...head } = graded;
  return { ...head, measure: record.measure, measure_error: record.measure_error ?? null, ...(efficiency === undefined ? {} : { efficiency }), tests };
}
