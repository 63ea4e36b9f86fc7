import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeLanguageName, sourceExtensions, type SolutionLanguage } from './language.js';
import { idsFromPath, pathIdsForProblem, stemOf, unknownPathReason, unknownProblemReason } from './path-ids.js';
import { digestOf, type SolutionBytes } from './solution-bytes.js';
import {
  errorText,
  type SolutionDiscoveryContext,
  type SolutionFile,
  type SolutionFileOutcome,
  rangeSource,
  type Submission,
  type SubmittedText,
} from './submission.js';

const FIELDS = {
  problem: ['problem_identifier', 'problem_id', 'task_id', 'problem'],
  model: ['model_identifier', 'model_id', 'model'],
  prompt: ['prompt_identifier', 'prompt_id', 'prompt'],
  sample: ['sample_id', 'sample', 'n'],
  code: ['solution_code', 'completion', 'code', 'solution'],
} as const;

const MAX_ID_LENGTH = 200;

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
  let bytes: Buffer;
  try {
    bytes = readFileSync(file.source);
  } catch (err) {
    return [skip(file.source, `unreadable: ${errorText(err)}`)];
  }
  const utf16 = utf16Order(bytes);
  if (ext === '.jsonl') {
    // Its lines are found and read again by their bytes, which a UTF-16 file's newlines are not.
    if (utf16 !== null) return [skip(file.source, `encoded as UTF-16 (${utf16}); save JSON Lines as UTF-8`)];
    if (bytes.toString('utf8').trim() === '') return [skip(file.source, 'empty file')];
    return readJsonLines(file, bytes, ctx);
  }
  if (ext === '.json') {
    const json = utf16 === null ? bytes.toString('utf8', textStart(bytes)) : utf16Text(bytes, utf16);
    return [json.trim() === '' ? skip(file.source, 'empty file') : readJsonSolution(file, json, ctx)];
  }
  const text = utf16 === null ? bytes.toString('utf8') : utf16Text(bytes, utf16);
  // An empty source file is an answer with no code, graded as one (as an empty completion in JSON Lines is).
  return [readSourceFile(file, text, sourceLanguage as SolutionLanguage, ctx)];
}

/** The byte order of a file that opens with a UTF-16 byte order mark (as Windows PowerShell writes text), or null. */
function utf16Order(bytes: Buffer): 'little-endian' | 'big-endian' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'little-endian';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'big-endian';
  return null;
}

function utf16Text(bytes: Buffer, order: 'little-endian' | 'big-endian'): string {
  const body = Buffer.from(bytes.subarray(2, bytes.length - (bytes.length % 2)));
  if (order === 'big-endian') body.swap16();
  return body.toString('utf16le');
}

/**
 * A submission's text: as given, or read again (through `bytes`) from the
 * bytes of its solution file that held it. A reason instead when those
 * bytes are no longer what they were when the file was first read.
 */
export function readSubmittedText(text: SubmittedText, bytes: SolutionBytes): { ok: true; raw: string } | { ok: false; reason: string } {
  if (text.kind === 'inline') return { ok: true, raw: text.raw };
  const changed = (why: string) => ({ ok: false as const, reason: `solution file changed during the run: ${text.file} ${why}` });
  let held: Buffer;
  try {
    held = bytes.read(text.file, text.start, text.end - text.start);
  } catch (err) {
    return changed(`is unreadable (${errorText(err)})`);
  }
  if (held.length !== text.end - text.start || digestOf(held, 0, held.length) !== text.digest) return changed('no longer holds the same bytes');
  // The same bytes as when the file was read, so the same solution object: only its code is wanted.
  const record = asRecord(parseOrUndefined(held.toString('utf8')));
  const code = record === null ? undefined : firstString(record, FIELDS.code);
  return code !== undefined ? { ok: true, raw: code } : changed('no longer holds the same solution');
}

/**
 * Where a JSON Lines submission's text lies. Only these travel as a place:
 * a worker reads a batch's lines of one file through one window, while a
 * submission that is a file of its own would cost its grading worker a
 * file opened per candidate, so its text goes with it.
 */
function rangeOf(file: SolutionFile, bytes: Buffer, start: number, end: number, line: number): SubmittedText {
  return { kind: 'range', file: file.source, start, end, digest: digestOf(bytes, start, end), line };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Where the text of a file starts: after a UTF-8 byte order mark, if it has one. */
function textStart(bytes: Buffer): number {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

function readSourceFile(file: SolutionFile, text: string, language: SolutionLanguage, ctx: SolutionDiscoveryContext): SolutionFileOutcome {
  const ids = idsFromPath(file.parts, ctx);
  if (ids === null) return skip(file.source, unknownPathReason(file.parts));
  return submit({ ...ids, sampleId: null, source: file.source, text: { kind: 'inline', raw: text }, declaredLanguage: language }, ctx);
}

function readJsonSolution(file: SolutionFile, text: string, ctx: SolutionDiscoveryContext): SolutionFileOutcome {
  let value: unknown;
  try {
    value = JSON.parse(text);
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
  return submit(
    {
      problemId,
      modelId: fields.modelId ?? fromPath.modelId,
      promptId: fields.promptId ?? fromPath.promptId,
      sampleId: fields.sampleId,
      source: file.source,
      text: { kind: 'inline', raw: fields.code },
      declaredLanguage: fields.language,
    },
    ctx,
  );
}

function readJsonLines(file: SolutionFile, bytes: Buffer, ctx: SolutionDiscoveryContext): SolutionFileOutcome[] {
  const defaultModel = file.parts.length >= 2 ? (file.parts[file.parts.length - 2] as string) : stemOf(file.parts[0] as string);
  const outcomes: SolutionFileOutcome[] = [];
  // Cut on the newline byte, which no multi-byte UTF-8 character contains: each line's bytes are where its text is read again.
  let start = textStart(bytes);
  for (let index = 0; start <= bytes.length; index++) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline < 0 ? bytes.length : newline;
    const line = bytes.toString('utf8', start, end);
    const at = index + 1;
    if (line.trim() !== '')
      outcomes.push(readJsonLine(line, rangeSource({ file: file.source, line: at }), defaultModel, ctx, () => rangeOf(file, bytes, start, end, at)));
    start = end + 1;
  }
  return outcomes.length > 0 ? outcomes : [skip(file.source, 'empty file')];
}

function readJsonLine(line: string, source: string, defaultModel: string, ctx: SolutionDiscoveryContext, text: () => SubmittedText): SolutionFileOutcome {
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
  return submit(
    {
      problemId: fields.problemId,
      modelId: fields.modelId ?? defaultModel,
      promptId: fields.promptId ?? null,
      sampleId: fields.sampleId,
      source,
      text: text(),
      declaredLanguage: fields.language,
    },
    ctx,
  );
}

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
    const present = FIELDS.code.find((field) => Object.hasOwn(record, field));
    return {
      kind: 'invalid',
      reason:
        present === undefined
          ? `not a solution object: no code field (expected a string in one of ${FIELDS.code.join(', ')})`
          : `not a solution object: ${present} is ${describeJsonKind(record[present])}, not a string`,
    };
  }
  const languageName = record['language'];
  let language: SolutionLanguage | null = null;
  if (typeof languageName === 'string' && languageName.trim() !== '') {
    language = normalizeLanguageName(languageName);
    if (language === null) return { kind: 'invalid', reason: `unsupported language "${languageName}"` };
  }
  const problemId = firstId(record, FIELDS.problem);
  const modelId = firstId(record, FIELDS.model);
  const promptId = firstId(record, FIELDS.prompt);
  const sampleId = firstId(record, FIELDS.sample);
  for (const id of [problemId, modelId, promptId, sampleId]) if (typeof id === 'object') return { kind: 'invalid', reason: id.reason };
  return {
    kind: 'valid',
    problemId: problemId as string | undefined,
    modelId: modelId as string | undefined,
    promptId: promptId as string | undefined,
    sampleId: (sampleId as string | undefined) ?? null,
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

/**
 * First field usable as an id: a one-line, non-blank string of sane length, or an integer; undefined
 * when none is. A field that holds something else says so (`model is an object`), rather than the
 * line's submission going to another model, prompt or sample: only `null`, a blank string, and
 * anything under a name that may hold something else (`prompt` holding the prompt itself) count
 * as no id.
 */
function firstId(record: Record<string, unknown>, names: readonly string[]): string | { reason: string } | undefined {
  for (const name of names) {
    const v = record[name];
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) continue;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v === 'string' && !/[\r\n]/.test(v) && v.length <= MAX_ID_LENGTH) return v;
    // A name datasets also use for what is no id (the prompt as text or chat messages, a sample count) holds none here.
    if (LOOSE_FIELDS.has(name)) continue;
    const what =
      typeof v === 'string'
        ? `a text of ${v.length} characters${/[\r\n]/.test(v) ? ' over several lines' : ''}`
        : typeof v === 'number'
          ? Number.isInteger(v)
            ? `${v}, a whole number too large to read exactly (write it as a string)`
            : `the number ${v}`
          : describeJsonKind(v);
    return { reason: `${name} is ${what}, not an id (expected a one-line string of at most ${MAX_ID_LENGTH} characters, or a whole number)` };
  }
  return undefined;
}

/**
 * Fields whose names datasets also use for what is no id: the problem or prompt itself (a text, chat
 * messages, an object), a sample's text, a count of samples. Only the names that say `id` (and
 * `model`, which names nothing else) are held to holding one.
 */
const LOOSE_FIELDS: ReadonlySet<string> = new Set(['problem', 'prompt', 'sample', 'n']);

function submit(submission: Submission, ctx: SolutionDiscoveryContext): SolutionFileOutcome {
  const prompts = submission.promptId === null ? undefined : ctx.prompts?.get(submission.problemId);
  if (prompts !== undefined && !prompts.includes(submission.promptId!)) {
    // A typo would make a prompt of its own in every roll-up, and a genericized prompt's body would run under the wrong head.
    return skip(submission.source, unknownPromptReason(submission.problemId, submission.promptId!, prompts));
  }
  return { kind: 'submission', submission };
}

function unknownPromptReason(problemId: string, promptId: string, prompts: readonly string[]): string {
  const head = `unknown prompt ${JSON.stringify(promptId)}: problem ${JSON.stringify(problemId)}`;
  return prompts.length === 0
    ? `${head} has no prompts (leave the prompt id out)`
    : `${head} has no prompt with this id (its prompts: ${prompts.map((p) => JSON.stringify(p)).join(', ')})`;
}

function skip(source: string, reason: string): SolutionFileOutcome {
  return { kind: 'skipped', skipped: { source, reason } };
}

function describeJsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
