/**
 * The runner's work inside a sandbox worker process, beside running code:
 * reading and checking problem files, and grading a whole candidate down to
 * the JSON text of its results. The supervisor does this work itself for
 * the files it reads (see run.ts); these tasks are for the files it leaves
 * to the workers, so that a large run spreads it over every core.
 *
 * Everything here is trusted evalrun code. Candidate code still only runs
 * inside an isolate (through `RunGradeJob`), and a worker that dies takes
 * only its task with it: the supervisor then grades that candidate itself,
 * job by job, as it would without this module (see run.ts).
 */
import { loadProblemLazily } from '../problems/load-lazily.js';
import { isInvalidProblemFile, type InvalidProblemFile, type PreparedProblem } from '../problems/prepared.js';
import { buildCandidate, problemChangedMessage, summarizeProblem, type CandidateRecipe, type ProblemSummary } from './candidate.js';
import { gradeCandidate, type GradeOptions, type RunGradeJob } from './grade-candidate.js';
import type { Value } from '../values/type-node.js';
import { decodeWire, encodeWire } from '../values/wire.js';
import { gradedFromResults, type GradedCandidate } from './results-store.js';

/** One candidate to grade against the problem in `file`. */
export interface CandidateTask {
  file: string;
  recipe: CandidateRecipe;
  options: GradeOptions;
  /** No later task of this run needs the problem: the worker lets it go. */
  last: boolean;
}

export type LoadAnswer = { ok: true; summary: ProblemSummary } | { ok: false; invalid: InvalidProblemFile };

export type CandidateAnswer =
  | { kind: 'graded'; graded: GradedOnWire }
  /** The file no longer holds a valid problem (it changed after it was first loaded). */
  | { kind: 'unavailable'; message: string };

/**
 * Tests of the problems a worker keeps from loading them until their
 * candidates arrive (the supervisor sends those to the same worker when it
 * can). Past this, a problem is read again when graded, so a worker's
 * memory stays bounded however large the run.
 */
const KEPT_TESTS = 20_000;

const kept = new Map<string, { problem: PreparedProblem; tests: number }>();
let keptTests = 0;

export async function loadTask(file: string): Promise<LoadAnswer> {
  const result = await loadProblemLazily(file);
  if (isInvalidProblemFile(result)) return { ok: false, invalid: result };
  const summary = summarizeProblem(result);
  if (!kept.has(file) && keptTests + summary.tests <= KEPT_TESTS) {
    kept.set(file, { problem: result, tests: summary.tests });
    keptTests += summary.tests;
  }
  return { ok: true, summary };
}

/**
 * A graded candidate as it travels from a worker. Workers send JSON, which
 * has no NaN or infinities, so the failing tests (kept as values for the
 * table) travel as wire text; the results themselves are JSON text already.
 */
export interface GradedOnWire extends Omit<GradedCandidate, 'failures'> {
  failures: string;
}

function gradedToWire(graded: GradedCandidate): GradedOnWire {
  // Test records are plain data: strings, numbers, null and values.
  return { ...graded, failures: encodeWire(graded.failures as unknown as Value) };
}

export function gradedFromWire(graded: GradedOnWire): GradedCandidate {
  const decoded = decodeWire(graded.failures);
  // A problem's own data may hold a "$evalrun" key that is no tag: then the plain JSON reading is the right one.
  const failures = (decoded.ok ? decoded.value : JSON.parse(graded.failures)) as unknown as GradedCandidate['failures'];
  return { ...graded, failures };
}

export async function candidateTask(task: CandidateTask, run: RunGradeJob): Promise<CandidateAnswer> {
  let problem = kept.get(task.file)?.problem;
  if (task.last) forget(task.file);
  if (problem === undefined) {
    const loaded = await loadProblemLazily(task.file);
    if (isInvalidProblemFile(loaded)) {
      return { kind: 'unavailable', message: problemChangedMessage(loaded) };
    }
    problem = loaded;
  }
  const results = await gradeCandidate(run, buildCandidate(problem, task.recipe), task.options);
  return { kind: 'graded', graded: gradedToWire(gradedFromResults(results)) };
}

function forget(file: string): void {
  const entry = kept.get(file);
  if (entry === undefined) return;
  kept.delete(file);
  keptTests -= entry.tests;
}
