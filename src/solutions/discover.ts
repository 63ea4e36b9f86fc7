/**
 * Finds candidate solutions in a folder. Layouts can be mixed in one folder:
 *
 * 1. Solution objects, `*.json` (the reference framework writes
 *    `<model>/<problem>/<prompt>.json` holding `{problem_identifier,
 *    model_identifier, prompt_identifier, solution_code, feedback}`).
 *    Fields win; a missing id falls back to the path (rules below).
 * 2. Source files, one solution each, with an extension a language's
 *    descriptor names (`.js`, `.mjs`, `.cjs`, `.ts`, `.mts`, `.cts`, `.py`);
 *    the extension is the declared language.
 * 3. JSON Lines, `*.jsonl`, one solution object per line (`file:line` sources).
 *
 * Field names (first present wins; ids may be strings or integers; a
 * multi-line or over-long value is ignored, since HumanEval-style files use
 * `prompt` for the prompt TEXT):
 *   problem  problem_identifier | problem_id | task_id | problem
 *   model    model_identifier | model_id | model
 *   prompt   prompt_identifier | prompt_id | prompt
 *   sample   sample_id | sample | n
 *   code     solution_code | completion | code | solution   (a string, may be empty)
 *   language language   (python, py, javascript, js, typescript, ts, …)
 *
 * Ids from the path (solution objects missing a field, and source files), with
 * P the known problem ids, `stem` the file name without extension, `parent`
 * and `grandparent` its folders inside `dir` ("the solutions folder's own
 * name" when there is none), first rule that fits:
 *   a. stem in P:                          problem = stem, prompt = null, model = parent
 *   b. stem = `<p>.<rest>`, p in P:        problem = p, prompt = rest, model = parent
 *      (the longest such p, so problem ids may contain dots)
 *   c. parent in P:                        problem = parent, prompt = stem, model = grandparent
 * e.g. `gpt-4/add.js`, `gpt-4/add.brief.js`, `gpt-4/add/brief.js`, and `add.js`
 * at the top (model = the folder's name). For a solution object that names its
 * problem, rule c (or a, b) supplies the missing model/prompt; otherwise model
 * = parent and prompt = null.
 * JSON Lines: the problem must be a field; model defaults to the file's folder,
 * or to the file's stem when the file is at the top (`gpt-4.jsonl`); prompt
 * defaults to null.
 *
 * Samples: whenever several submissions share (problem, prompt, model), those
 * without a sample id get `0`, `1`, `2`, … in discovery order, skipping ids
 * given explicitly; a lone submission keeps a null sample id.
 *
 * Skipped, with a reason: unknown problems, empty files, unreadable files and
 * folders, broken links, JSON that is not a solution object, bad JSON Lines
 * (each bad line on its own), files of other types, unsupported `language`
 * values, and folders reached a second time through a symbolic link (loops).
 * A solution object whose code is the empty string is NOT skipped: the model
 * answered nothing, which the reference framework grades as a failure, and
 * dropping it would inflate pass rates.
 * Ignored silently: names starting with `.` and `node_modules`.
 * Order: paths in code-unit order, depth first; lines in file order.
 * Only a missing or non-folder `dir` throws.
 *
 * The stages live apart so that the workers can read the files the
 * supervisor walked: the walk in find-solution-files.ts, reading one file in
 * read-solution-file.ts (the path rules above in path-ids.ts), and here the
 * outcomes put back in walk order with their samples numbered.
 */
import path from 'node:path';
import { findSolutionFiles } from './find-solution-files.js';
import { readSolutionFile } from './read-solution-file.js';
import { SampleNumbers } from './sample-numbers.js';
import type { DiscoveredSubmissions, FoundSolutionFiles, SolutionDiscoveryContext, SolutionFileOutcome, Submission } from './submission.js';

export async function discoverSubmissions(dir: string, knownProblemIds: ReadonlySet<string>): Promise<DiscoveredSubmissions> {
  const found = await findSolutionFiles(dir);
  const ctx = solutionDiscoveryContext(dir, knownProblemIds);
  return collectSubmissions(
    found,
    found.files.map((file) => readSolutionFile(file, ctx)),
  );
}

/**
 * The submissions of a walked folder from what reading each of its files
 * gave (`outcomes[i]` for `found.files[i]`, read in any process), in walk
 * order, with sample ids numbered.
 */
export function collectSubmissions(found: FoundSolutionFiles, outcomes: ReadonlyArray<readonly SolutionFileOutcome[]>): DiscoveredSubmissions {
  const skipped = [...found.skipped];
  const submissions: Submission[] = [];
  for (const fileOutcomes of outcomes) {
    for (const outcome of fileOutcomes) {
      if (outcome.kind === 'submission') submissions.push(outcome.submission);
      else skipped.push(outcome.skipped);
    }
  }
  numberSamples(submissions);
  return { submissions, skipped, files: walkedSolutionFiles(found) };
}

/** Every regular file the walk found, in walk order: where it is, and its path inside the folder with `/` separators. */
export function walkedSolutionFiles(found: FoundSolutionFiles): DiscoveredSubmissions['files'] {
  return found.files.map((f) => ({ path: f.source, relative: f.parts.join('/') }));
}

export function solutionDiscoveryContext(dir: string, knownProblemIds: ReadonlySet<string>): SolutionDiscoveryContext {
  return { known: knownProblemIds, rootName: path.basename(path.resolve(dir)) };
}

/**
 * Numbers the samples of each (problem, prompt, model) that has several.
 * `submissions` must be in walk order (files as found, then lines within
 * each file), whichever process read them.
 */
export function numberSamples(submissions: Submission[]): void {
  const numbers = new SampleNumbers();
  const groups = submissions.map((s) => numbers.note(s.problemId, s.modelId, s.promptId, s.sampleId));
  submissions.forEach((s, i) => (s.sampleId = numbers.sampleId(groups[i]!, s.sampleId)));
}
