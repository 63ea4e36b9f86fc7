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
 */
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isHiddenOrNodeModules, walkFolder } from '../folders/walk.js';
import { normalizeLanguageName, sourceExtensions, type SolutionLanguage } from './language.js';

export interface Submission {
  problemId: string;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  /** file, or file:line for JSONL */
  source: string;
  /** text exactly as submitted */
  raw: string;
  /** language from the file extension or an explicit field, when known */
  declaredLanguage: SolutionLanguage | null;
}

export interface SkippedSubmission {
  source: string;
  reason: string;
}

export interface DiscoveredSubmissions {
  submissions: Submission[];
  skipped: SkippedSubmission[];
  /** Every regular file the walk found, in walk order: where it is, and its path inside `dir` with `/` separators. */
  files: Array<{ path: string; relative: string }>;
}

const FIELDS = {
  problem: ['problem_identifier', 'problem_id', 'task_id', 'problem'],
  model: ['model_identifier', 'model_id', 'model'],
  prompt: ['prompt_identifier', 'prompt_id', 'prompt'],
  sample: ['sample_id', 'sample', 'n'],
  code: ['solution_code', 'completion', 'code', 'solution'],
} as const;

const MAX_ID_LENGTH = 200;

/** What reading one solution file gave: a submission, or a reason to skip, per solution in it. */
export type SolutionFileOutcome =
  | { kind: 'submission'; submission: Submission }
  | { kind: 'skipped'; skipped: SkippedSubmission };

/** A file found in the solutions folder: where it is, and its path parts inside that folder. */
export interface SolutionFile {
  source: string;
  parts: string[];
}

/** What reading a solution file needs to know besides the file. */
export interface SolutionDiscoveryContext {
  known: ReadonlySet<string>;
  /** Model name for files directly in the solutions folder. */
  rootName: string;
}

/** The walk of a solutions folder, before any file is read. */
export interface FoundSolutionFiles {
  /** Every regular file, in walk order. */
  files: SolutionFile[];
  /** Entries that could not be walked (unreadable folders, broken links, files of other types, folders reached again). */
  skipped: SkippedSubmission[];
}

export async function discoverSubmissions(
  dir: string,
  knownProblemIds: ReadonlySet<string>,
): Promise<DiscoveredSubmissions> {
  const found = await findSolutionFiles(dir);
  const ctx = solutionDiscoveryContext(dir, knownProblemIds);
  return collectSubmissions(found, found.files.map((file) => readSolutionFile(file, ctx)));
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
  return { submissions, skipped, files: found.files.map((f) => ({ path: f.source, relative: f.parts.join('/') })) };
}

export function solutionDiscoveryContext(dir: string, knownProblemIds: ReadonlySet<string>): SolutionDiscoveryContext {
  return { known: knownProblemIds, rootName: path.basename(path.resolve(dir)) };
}

async function assertFolder(dir: string): Promise<void> {
  let info;
  try {
    info = await stat(dir);
  } catch (err) {
    throw new Error(`solutions folder not found: ${dir} (${errorText(err)})`, { cause: err });
  }
  if (!info.isDirectory()) throw new Error(`solutions path is not a folder: ${dir}`);
}

// ---------------------------------------------------------------- walking

/**
 * Walks `dir` without reading a file, so that the files can be read
 * elsewhere (`readSolutionFile`, in walk order). Throws as
 * `discoverSubmissions` does for a missing or non-folder `dir`.
 */
export async function findSolutionFiles(dir: string): Promise<FoundSolutionFiles> {
  await assertFolder(dir);
  const files: SolutionFile[] = [];
  const skipped: SkippedSubmission[] = [];
  for (const entry of await walkFolder(dir, { ignore: isHiddenOrNodeModules })) {
    const { path: source } = entry;
    switch (entry.kind) {
      case 'file':
        files.push({ source, parts: entry.parts });
        break;
      case 'not-regular':
        skipped.push({ source, reason: 'not a regular file' });
        break;
      case 'broken-link':
        skipped.push({ source, reason: `unreadable: ${errorText(entry.error)}` });
        break;
      case 'unreadable-folder':
        skipped.push({ source, reason: `unreadable folder: ${errorText(entry.error)}` });
        break;
      case 'folder-loop':
      case 'folder-again':
        skipped.push({ source, reason: `folder already read (symbolic link to ${entry.real})` });
        break;
    }
  }
  return { files, skipped };
}

// ---------------------------------------------------------------- files

/**
 * Reads one file found by `findSolutionFiles`. Synchronous and dependent on
 * nothing but its arguments and the file, so that any process can read any
 * share of the files; sample ids are left for `numberSamples`.
 */
export function readSolutionFile(file: SolutionFile, ctx: SolutionDiscoveryContext): SolutionFileOutcome[] {
  const name = file.parts[file.parts.length - 1] as string;
  const ext = path.extname(name).toLowerCase();
  const sourceLanguage = sourceExtensions().get(ext);
  if (ext !== '.json' && ext !== '.jsonl' && sourceLanguage === undefined) {
    return [skip(file.source, `not a solution file (expected .json, .jsonl, ${[...sourceExtensions().keys()].join(', ')})`)];
  }
  let text: string;
  try {
    text = readFileSync(file.source, 'utf8');
  } catch (err) {
    return [skip(file.source, `unreadable: ${errorText(err)}`)];
  }
  if (text.trim() === '') return [skip(file.source, 'empty file')];
  if (ext === '.jsonl') return readJsonLines(file, text, ctx);
  if (ext === '.json') return [readJsonSolution(file, text, ctx)];
  return [readSourceFile(file, text, sourceLanguage as SolutionLanguage, ctx)];
}

function readSourceFile(file: SolutionFile, text: string, language: SolutionLanguage, ctx: SolutionDiscoveryContext): SolutionFileOutcome {
  const ids = idsFromPath(file.parts, ctx);
  if (ids === null) return skip(file.source, unknownPathReason(file.parts));
  return submit({ ...ids, sampleId: null, source: file.source, raw: text, declaredLanguage: language });
}

function readJsonSolution(file: SolutionFile, text: string, ctx: SolutionDiscoveryContext): SolutionFileOutcome {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return skip(file.source, `invalid JSON: ${errorText(err)}`);
  }
  const record = asRecord(value);
  if (record === null) {
    const what = Array.isArray(value) ? 'an array (write several solutions as JSON Lines, .jsonl)' : `a ${value === null ? 'null' : typeof value}`;
    return skip(file.source, `not a solution object: the file holds ${what}`);
  }
  if ('function_prototype' in record && 'identifier' in record) {
    return skip(file.source, 'not a solution object: this looks like a problem file');
  }
  const fields = readFields(record);
  if (fields.kind === 'invalid') return skip(file.source, fields.reason);
  const problemId = fields.problemId ?? idsFromPath(file.parts, ctx)?.problemId;
  if (problemId === undefined) return skip(file.source, unknownPathReason(file.parts));
  if (!ctx.known.has(problemId)) return skip(file.source, unknownProblemReason(problemId));
  const fromPath = pathIdsForProblem(file.parts, problemId, ctx);
  return submit({
    problemId,
    modelId: fields.modelId ?? fromPath.modelId,
    promptId: fields.promptId ?? fromPath.promptId,
    sampleId: fields.sampleId,
    source: file.source,
    raw: fields.code,
    declaredLanguage: fields.language,
  });
}

function readJsonLines(file: SolutionFile, text: string, ctx: SolutionDiscoveryContext): SolutionFileOutcome[] {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const defaultModel = file.parts.length >= 2 ? (file.parts[file.parts.length - 2] as string) : stemOf(file.parts[0] as string);
  const outcomes: SolutionFileOutcome[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    outcomes.push(readJsonLine(line, `${file.source}:${index + 1}`, defaultModel, ctx));
  });
  return outcomes.length > 0 ? outcomes : [skip(file.source, 'empty file')];
}

function readJsonLine(line: string, source: string, defaultModel: string, ctx: SolutionDiscoveryContext): SolutionFileOutcome {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return skip(source, `invalid JSON: ${errorText(err)}`);
  }
  const record = asRecord(value);
  if (record === null) return skip(source, 'not a solution object: expected a JSON object on each line');
  const fields = readFields(record);
  if (fields.kind === 'invalid') return skip(source, fields.reason);
  if (fields.problemId === undefined) {
    return skip(source, `no problem id (expected one of ${FIELDS.problem.join(', ')})`);
  }
  if (!ctx.known.has(fields.problemId)) return skip(source, unknownProblemReason(fields.problemId));
  return submit({
    problemId: fields.problemId,
    modelId: fields.modelId ?? defaultModel,
    promptId: fields.promptId ?? null,
    sampleId: fields.sampleId,
    source,
    raw: fields.code,
    declaredLanguage: fields.language,
  });
}

// ---------------------------------------------------------------- fields

type Fields =
  | {
      kind: 'valid';
      problemId: string | undefined;
      modelId: string | undefined;
      promptId: string | undefined;
      sampleId: string | null;
      code: string;
      language: SolutionLanguage | null;
    }
  | { kind: 'invalid'; reason: string };

function readFields(record: Record<string, unknown>): Fields {
  const code = firstString(record, FIELDS.code);
  if (code === undefined) {
    return { kind: 'invalid', reason: `not a solution object: no code field (expected a string in one of ${FIELDS.code.join(', ')})` };
  }
  const languageName = record['language'];
  let language: SolutionLanguage | null = null;
  if (typeof languageName === 'string' && languageName.trim() !== '') {
    language = normalizeLanguageName(languageName);
    if (language === null) return { kind: 'invalid', reason: `unsupported language "${languageName}"` };
  }
  return {
    kind: 'valid',
    problemId: firstId(record, FIELDS.problem),
    modelId: firstId(record, FIELDS.model),
    promptId: firstId(record, FIELDS.prompt),
    sampleId: firstId(record, FIELDS.sample) ?? null,
    code,
    language,
  };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function firstString(record: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const v = record[name];
    if (typeof v === 'string') return v;
  }
  return undefined;
}

/** First field usable as an id: a one-line, non-blank string of sane length, or an integer. */
function firstId(record: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const v = record[name];
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v === 'string' && v.trim() !== '' && !/[\r\n]/.test(v) && v.length <= MAX_ID_LENGTH) return v;
  }
  return undefined;
}

// ---------------------------------------------------------------- path rules

interface PathIds {
  problemId: string;
  modelId: string;
  promptId: string | null;
}

function stemOf(name: string): string {
  const ext = path.extname(name);
  return ext === '' ? name : name.slice(0, -ext.length);
}

/** The folder `levelsUp` above the file, or the solutions folder's name at the top. */
function folderName(parts: readonly string[], levelsUp: number, ctx: SolutionDiscoveryContext): string {
  return parts[parts.length - 1 - levelsUp] ?? ctx.rootName;
}

/** Rules a–c of the module comment. */
function idsFromPath(parts: readonly string[], ctx: SolutionDiscoveryContext): PathIds | null {
  const stem = stemOf(parts[parts.length - 1] as string);
  if (ctx.known.has(stem)) return { problemId: stem, promptId: null, modelId: folderName(parts, 1, ctx) };
  const dotted = splitProblemAndPrompt(stem, ctx.known);
  if (dotted !== null) return { ...dotted, modelId: folderName(parts, 1, ctx) };
  const parent = parts[parts.length - 2];
  if (parent !== undefined && ctx.known.has(parent)) {
    return { problemId: parent, promptId: stem, modelId: folderName(parts, 2, ctx) };
  }
  return null;
}

/** `<problem>.<prompt>`, taking the longest known problem id before a dot. */
function splitProblemAndPrompt(stem: string, known: ReadonlySet<string>): { problemId: string; promptId: string } | null {
  for (let dot = stem.lastIndexOf('.'); dot > 0; dot = stem.lastIndexOf('.', dot - 1)) {
    const problemId = stem.slice(0, dot);
    const promptId = stem.slice(dot + 1);
    if (known.has(problemId) && promptId !== '') return { problemId, promptId };
  }
  return null;
}

/** Model and prompt for a solution object that names its problem itself. */
function pathIdsForProblem(parts: readonly string[], problemId: string, ctx: SolutionDiscoveryContext): PathIds {
  const ids = idsFromPath(parts, ctx);
  if (ids !== null && ids.problemId === problemId) return ids;
  return { problemId, promptId: null, modelId: folderName(parts, 1, ctx) };
}

function unknownPathReason(parts: readonly string[]): string {
  const stem = stemOf(parts[parts.length - 1] as string);
  const parent = parts[parts.length - 2];
  const tried = parent === undefined ? `"${stem}"` : `"${stem}" or folder "${parent}"`;
  return `unknown problem: no problem file has the identifier ${tried}`;
}

function unknownProblemReason(problemId: string): string {
  return `unknown problem "${problemId}": no problem file has this identifier`;
}

// ---------------------------------------------------------------- samples

/**
 * Numbers the samples of each (problem, prompt, model) that has several.
 * `submissions` must be in walk order (files as found, then lines within
 * each file), whichever process read them.
 */
export function numberSamples(submissions: Submission[]): void {
  const groups = new Map<string, Submission[]>();
  for (const s of submissions) {
    const key = JSON.stringify([s.problemId, s.promptId, s.modelId]);
    const list = groups.get(key);
    if (list === undefined) groups.set(key, [s]);
    else list.push(s);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const taken = new Set(group.map((s) => s.sampleId).filter((id): id is string => id !== null));
    let next = 0;
    for (const s of group) {
      if (s.sampleId !== null) continue;
      while (taken.has(String(next))) next++;
      s.sampleId = String(next);
      taken.add(s.sampleId);
    }
  }
}

// ---------------------------------------------------------------- helpers

function submit(submission: Submission): SolutionFileOutcome {
  return { kind: 'submission', submission };
}

function skip(source: string, reason: string): SolutionFileOutcome {
  return { kind: 'skipped', skipped: { source, reason } };
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== undefined ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
