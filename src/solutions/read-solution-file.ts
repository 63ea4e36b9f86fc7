import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeLanguageName, sourceExtensions, type SolutionLanguage } from './language.js';
import { idsFromPath, pathIdsForProblem, stemOf, unknownPathReason, unknownProblemReason } from './path-ids.js';
import { errorText, type SolutionDiscoveryContext, type SolutionFile, type SolutionFileOutcome, type Submission } from './submission.js';

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

function submit(submission: Submission): SolutionFileOutcome {
  return { kind: 'submission', submission };
}

function skip(source: string, reason: string): SolutionFileOutcome {
  return { kind: 'skipped', skipped: { source, reason } };
}
