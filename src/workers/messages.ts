/**
 * The messages between the supervisor and a sandbox worker, one JSON
 * document per line each way (a graded candidate's records follow its line
 * as raw bytes, json-lines.ts). The supervisor sends batches of work items;
 * the worker does the items in order and answers each, a few answers to a
 * write, so that a worker lost mid-batch costs only the items it had not
 * answered. Which item (and test) it is running meanwhile is in its
 * progress cell (sandbox-host/progress-cell.ts). What arrives from a worker is checked here (`readFromWorker`)
 * before anything else of the supervisor sees it.
 */
import type { Candidate, ProblemSummary } from '../grading/candidate.js';
import type { Filters } from '../grading/filters.js';
import type { GradeOptions } from '../grading/grade.js';
import type { TestLimits } from '../grading/test-limits.js';
import type { InvalidProblemFile } from '../problems/prepared.js';
import type { CandidateRow, RowEfficiency } from '../report/rows.js';
import type { CandidateStatus } from '../report/scorecard.js';
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import type { SolutionLanguage } from '../solutions/language.js';
import type { SolutionFile, SolutionFileOutcome } from '../solutions/submission.js';
import { jsonLine, PAYLOAD_FIELD } from '../sandbox-host/json-lines.js';

/** Tests already settled when an item is run one test at a time (after it killed workers): [test index, verdict]. */
export type Settled = Array<[number, Verdict]>;

/**
 * One piece of work. Items that read files do so in the worker, so that the
 * supervisor's work per candidate stays a small fraction of the workers'.
 */
export type WorkItem =
  /** Read and check a problem file: answered by `problem`. */
  | { kind: 'read-problem'; file: string }
  /**
   * Read a problem file and, if the run selects it and it has an
   * optimal_solution, grade that: answered by `problem`, then `graded`.
   */
  | { kind: 'self-check'; file: string }
  /**
   * Grade a planned candidate against its problem file: answered by
   * `graded`. `limits`: its problem's limit per test (--timeout-factor),
   * checked by the worker when the item arrives (grading/test-limits.ts).
   */
  | { kind: 'grade'; candidate: Candidate; oneByOne?: Settled; limits?: TestLimits }
  /** Read one solution file (the worker holds the run's known problem ids): answered by `solutions`. */
  | { kind: 'read-solutions'; file: SolutionFile }
  /** Run a grade job already built (the sandbox's own tests use it): answered by `answered`. */
  | { kind: 'job'; job: GradeJob; oneByOne?: Settled };

/**
 * The tests an item runs, when it is one candidate's code and the tests are
 * known before it runs (a planned candidate, a built job); null for an item
 * that reads a file first.
 */
export function knownTests(item: WorkItem): number | null {
  if (item.kind === 'grade') return item.candidate.tests;
  if (item.kind === 'job') return item.job.tests.length;
  return null;
}

/** What every item of a batch shares. */
export interface BatchOptions {
  grade: GradeOptions;
  /** Unwrap Markdown fences and drop prose around submitted code. */
  extractCode: boolean;
  /** Which problems a self-check grades. */
  filters: Filters;
  /**
   * How long a finished item's answer may wait in its worker, in ms, to go
   * out in one write with the answers after it (default: ANSWER_WITHIN_MS).
   * A batch's answers always go when it ends. Every write wakes the
   * supervisor, at a cost that does not depend on how many answers it
   * carries: a run, which only logs and counts its answers, waits longer
   * than the grading service, whose clients may stream each result.
   */
  answerWithinMs?: number;
  /**
   * Problems given as JSON text, by the `file` their candidates name (the
   * grading service: problems loaded once, or sent in a request). A
   * candidate whose file is here is graded against this text, which the
   * worker checks again, and never reads a file.
   */
  problems?: Record<string, string>;
}

/** How long an answer may wait in its worker unless the batch says otherwise (BatchOptions.answerWithinMs). */
export const ANSWER_WITHIN_MS = 50;

export interface Batch {
  options: BatchOptions;
  items: WorkItem[];
}

/** What a worker keeps for the whole run: sent once to each worker, before its first batch. */
export interface RunContext {
  /** For reading solution files: the problem ids the run knows, and the solutions folder's name. */
  knownProblemIds: string[];
  solutionsRootName: string;
  /**
   * Languages whose engines each worker starts and readies at once, before
   * any job asks (the grading service, so that no request pays for booting
   * Python); each worker answers `warmed` once they are ready.
   */
  warm?: { languages: string[]; memoryMb: number };
}

export type ToWorker = { type: 'batch'; id: number; batch: Batch } | { type: 'context'; context: RunContext };

// ---------------------------------------------------------------------------
// A batch on the wire
// ---------------------------------------------------------------------------

/**
 * A batch's line as it goes to a worker. Each grade item's candidate goes
 * as an array of positions (CandidateOnWire), its strings that repeat from
 * candidate to candidate (problem, files, model, prompt, language) held
 * once per batch: encoding a batch is work the supervisor does for every
 * candidate, and names and paths written out in full made most of it.
 */
export function batchLine(id: number, batch: Batch): string {
  const strings: string[] = [];
  const refs = new Map<string, number>();
  const ref = (text: string): number => {
    let at = refs.get(text);
    if (at === undefined) {
      at = strings.length;
      strings.push(text);
      refs.set(text, at);
    }
    return at;
  };
  const items = batch.items.map((item) => (item.kind === 'grade' ? { ...item, candidate: candidateOnWire(item.candidate, ref) } : item));
  return jsonLine({ type: 'batch', id, batch: { ...batch, strings, items } });
}

/** A message's line as it goes to a worker: a batch's by `batchLine`, any other as it is. */
export function toWorkerLine(message: ToWorker): string {
  return message.type === 'batch' ? batchLine(message.id, message.batch) : jsonLine(message);
}

/** A message from the supervisor as the worker reads it (its line parsed): a batch's candidates as they were before `batchLine`; null for anything else. */
export function readToWorker(value: unknown): ToWorker | null {
  if (!isObject(value)) return null;
  if (value.type === 'context') return value as unknown as ToWorker;
  if (value.type !== 'batch' || !isCount(value.id) || !isObject(value.batch)) return null;
  const { strings, items, ...rest } = value.batch as { strings: unknown; items: unknown };
  if (!isStrings(strings) || !Array.isArray(items)) return null;
  return {
    type: 'batch',
    id: value.id,
    batch: {
      ...(rest as unknown as Omit<Batch, 'items'>),
      items: (items as Array<WorkItem | { kind: 'grade'; candidate: CandidateOnWire }>).map((item): WorkItem =>
        item.kind === 'grade' ? { ...item, candidate: candidateFromWire(item.candidate as unknown as CandidateOnWire, strings) } : item,
      ),
    },
  };
}

/** A candidate by position; a string of the batch's strings by its index (-1: null). */
type CandidateOnWire = [
  problemId: number,
  file: number,
  modelId: number,
  promptId: number,
  sampleId: string | null,
  source: string,
  tests: number,
  /** 1: extract, 2: correctnessOnly (false), 4: correctnessOnly (true). */
  flags: number,
  submission: SubmissionOnWire | null,
];

type SubmissionOnWire =
  [declaredLanguage: number, kind: 'inline', raw: string] | [declaredLanguage: number, kind: 'range', file: number, start: number, end: number, digest: string];

const EXTRACT = 1;
const CORRECTNESS_ONLY_FALSE = 2;
const CORRECTNESS_ONLY_TRUE = 4;

function candidateOnWire(c: Candidate, ref: (text: string) => number): CandidateOnWire {
  const optional = (text: string | null): number => (text === null ? -1 : ref(text));
  let flags = c.extract ? EXTRACT : 0;
  if (c.correctnessOnly !== undefined) flags |= c.correctnessOnly ? CORRECTNESS_ONLY_TRUE : CORRECTNESS_ONLY_FALSE;
  let submission: SubmissionOnWire | null = null;
  if (c.submission !== null) {
    const language = optional(c.submission.declaredLanguage);
    const text = c.submission.text;
    submission = text.kind === 'inline' ? [language, 'inline', text.raw] : [language, 'range', ref(text.file), text.start, text.end, text.digest];
  }
  return [ref(c.problemId), ref(c.file), ref(c.modelId), optional(c.promptId), c.sampleId, c.source, c.tests, flags, submission];
}

function candidateFromWire(w: CandidateOnWire, strings: readonly string[]): Candidate {
  const text = (at: number): string => {
    const found = strings[at];
    if (found === undefined) throw new Error(`a batch names string ${at} of ${strings.length}`);
    return found;
  };
  const optional = (at: number): string | null => (at === -1 ? null : text(at));
  const [problemId, file, modelId, promptId, sampleId, source, tests, flags, submission] = w;
  const candidate: Candidate = {
    problemId: text(problemId),
    file: text(file),
    modelId: text(modelId),
    promptId: optional(promptId),
    sampleId,
    source,
    tests,
    submission: null,
    extract: (flags & EXTRACT) !== 0,
  };
  if ((flags & (CORRECTNESS_ONLY_TRUE | CORRECTNESS_ONLY_FALSE)) !== 0) candidate.correctnessOnly = (flags & CORRECTNESS_ONLY_TRUE) !== 0;
  if (submission !== null) {
    const declaredLanguage = optional(submission[0]) as SolutionLanguage | null;
    candidate.submission =
      submission[1] === 'inline'
        ? { text: { kind: 'inline', raw: submission[2] }, declaredLanguage }
        : { text: { kind: 'range', file: text(submission[2]), start: submission[3], end: submission[4], digest: submission[5] }, declaredLanguage };
  }
  return candidate;
}

/**
 * A graded candidate: its rows for the reports, and its results as record
 * text for the run log. On the wire the records are the message's payload
 * (json-lines.ts), `recordBytes` long each, separated by commas as a log
 * line's results are.
 */
export interface GradedMessage {
  type: 'graded';
  batch: number;
  item: number;
  /**
   * A self-check's problem, when its `problem` message did not go first:
   * in a batch of several items the two would share one write anyway, and
   * one message costs the supervisor less than two.
   */
  problem?: ProblemSummary;
  rows: CandidateRow[];
  /** One `recordJson` text per result, as UTF-8 bytes, as the run log and the scorecard hold it. */
  records: Buffer[];
  /** The same records as they came, separated by commas: a log line's results, to be copied in one piece. */
  joined: Buffer;
}

/** A graded message as the worker writes it: its line, and the payload that follows it. */
export function gradedFrame(
  batch: number,
  item: number,
  rows: readonly CandidateRow[],
  texts: readonly string[],
  problem?: ProblemSummary,
): { line: string; payload: Buffer } {
  const payload = Buffer.from(texts.join(','), 'utf8');
  const recordBytes = texts.map((text) => Buffer.byteLength(text, 'utf8'));
  const head = problem === undefined ? { type: 'graded', batch, item } : { type: 'graded', batch, item, problem };
  const line = jsonLine({ ...head, rows: rows.map(rowOnWire), recordBytes, [PAYLOAD_FIELD]: payload.length });
  return { line, payload };
}

/**
 * A row as a graded message carries it: its fields by position, without
 * their names, and without `ran`, which follows from the status. Every
 * candidate's answer passes through the supervisor, whose time per
 * candidate bounds the cores a run can use, and positions are read faster.
 */
type RowOnWire = [
  problem_id: string,
  model_id: string,
  prompt_id: string | null,
  sample_id: string | null,
  language: string,
  status: CandidateStatus,
  error: string | null,
  entry_point: string | null,
  passed: number,
  total: number,
  duration_ms: number,
  fail: number,
  errors: number,
  timeout: number,
  memory: number,
  skipped: number,
  /** Only in a run that measures: [suite, reference, cost, memory, error]. */
  efficiency?: EfficiencyOnWire,
];

type EfficiencyOnWire = [suite: string, reference: boolean, cost: number | null, memory: number | null, error: string | null];

function rowOnWire(r: CandidateRow): RowOnWire {
  const c = r.counts;
  const row: RowOnWire = [
    r.problem_id,
    r.model_id,
    r.prompt_id,
    r.sample_id,
    r.language,
    r.status,
    r.error,
    r.entry_point,
    r.passed,
    r.total,
    r.duration_ms,
    c.fail,
    c.error,
    c.timeout,
    c.memory,
    c.skipped,
  ];
  const e = r.efficiency;
  if (e !== undefined) row.push([e.suite, e.reference, e.cost, e.memory, e.error]);
  return row;
}

export type FromWorker =
  | { type: 'ready' }
  /** The engines the context asked to warm are ready; `errors`: why any of them could not start. */
  | { type: 'warmed'; errors: string[] }
  /**
   * `grading`: a self-check item whose optimal_solution is graded next (a
   * `graded` message follows). Only an item sent alone says so before its
   * grading; in a batch, the problem goes in its `graded` message.
   */
  | { type: 'problem'; batch: number; item: number; problem: ProblemSummary | InvalidProblemFile; grading: boolean }
  | GradedMessage
  | { type: 'solutions'; batch: number; item: number; outcomes: SolutionFileOutcome[] }
  | { type: 'answered'; batch: number; item: number; reply: GradeReply }
  /** The worker program itself failed on this item (a bug in evalrun, not the candidate). */
  | { type: 'failed'; batch: number; item: number; message: string };

/** The messages that answer an item (all but `ready` and `warmed`). */
export type ItemMessage = Exclude<FromWorker, { type: 'ready' } | { type: 'warmed' }>;

/** Whether this message is the item's last. */
export function endsItem(m: ItemMessage): boolean {
  return m.type !== 'problem' || !m.grading;
}

// ---------------------------------------------------------------------------
// Checking what arrives
// ---------------------------------------------------------------------------

/** A message from a worker (with the payload that followed its line), checked; a description of what is wrong otherwise. */
export function readFromWorker(value: unknown, payload: Buffer | null = null): FromWorker | string {
  if (!isObject(value)) return 'not an object';
  if (value.type !== 'graded' && payload !== null) return `a "${String(value.type)}" message with a payload`;
  if (value.type === 'ready') return { type: 'ready' };
  if (value.type === 'warmed') return isStrings(value.errors) ? { type: 'warmed', errors: value.errors } : 'a "warmed" message without its errors';
  if (!isCount(value.batch) || !isCount(value.item)) return `a "${String(value.type)}" message without its batch and item`;
  switch (value.type) {
    case 'graded': {
      const rows = Array.isArray(value.rows) ? rowsFromWire(value.rows) : null;
      if (rows === null) return 'a "graded" message with malformed rows';
      const records = payload === null ? null : cutRecords(payload, value.recordBytes, rows.length);
      if (records === null) return 'a "graded" message whose payload is not one record per row';
      const graded: GradedMessage = { type: 'graded', batch: value.batch, item: value.item, rows, records, joined: payload! };
      if (value.problem !== undefined) {
        if (!isProblem(value.problem) || 'errors' in value.problem) return 'a "graded" message with a malformed problem';
        graded.problem = value.problem;
      }
      return graded;
    }
    case 'problem':
      if (typeof value.grading !== 'boolean' || !isProblem(value.problem)) return 'a "problem" message with a malformed problem';
      return value as unknown as FromWorker;
    case 'solutions':
      if (!Array.isArray(value.outcomes) || !value.outcomes.every(isSolutionOutcome)) return 'a "solutions" message with malformed outcomes';
      return value as unknown as FromWorker;
    case 'answered':
      if (!isObject(value.reply) || (value.reply.kind !== 'ran' && value.reply.kind !== 'load-error')) return 'an "answered" message without a reply';
      return value as unknown as FromWorker;
    case 'failed':
      return typeof value.message === 'string' ? (value as unknown as FromWorker) : 'a "failed" message without its reason';
    default:
      return `unknown message type ${JSON.stringify(value.type)}`;
  }
}

const STATUSES: ReadonlySet<CandidateStatus> = new Set<CandidateStatus>(['passed', 'failed', 'load-error', 'unsupported', 'no-tests']);

function rowsFromWire(values: unknown[]): CandidateRow[] | null {
  const rows: CandidateRow[] = [];
  for (const value of values) {
    const row = rowFromWire(value);
    if (row === null) return null;
    rows.push(row);
  }
  return rows;
}

function rowFromWire(v: unknown): CandidateRow | null {
  if (!Array.isArray(v) || (v.length !== 16 && v.length !== 17)) return null;
  const [
    problem_id,
    model_id,
    prompt_id,
    sample_id,
    language,
    status,
    error,
    entry_point,
    passed,
    total,
    duration_ms,
    fail,
    errors,
    timeout,
    memory,
    skipped,
    measured,
  ] = v as unknown[];
  const efficiency = measured === undefined ? undefined : efficiencyFromWire(measured);
  if (efficiency === null) return null;
  if (
    typeof problem_id !== 'string' ||
    typeof model_id !== 'string' ||
    !isNullableString(prompt_id) ||
    !isNullableString(sample_id) ||
    typeof language !== 'string' ||
    !STATUSES.has(status as CandidateStatus) ||
    !isNullableString(error) ||
    !isNullableString(entry_point) ||
    !isCount(passed) ||
    !isCount(total) ||
    passed > total ||
    typeof duration_ms !== 'number' ||
    !isCount(fail) ||
    !isCount(errors) ||
    !isCount(timeout) ||
    !isCount(memory) ||
    !isCount(skipped)
  ) {
    return null;
  }
  const s = status as CandidateStatus;
  return {
    problem_id,
    model_id,
    prompt_id,
    sample_id,
    language,
    status: s,
    error,
    entry_point,
    passed,
    total,
    duration_ms,
    counts: { fail, error: errors, timeout, memory, skipped },
    ran: s === 'passed' || s === 'failed',
    ...(efficiency === undefined ? {} : { efficiency }),
  };
}

function efficiencyFromWire(v: unknown): RowEfficiency | null {
  if (!Array.isArray(v) || v.length !== 5) return null;
  const [suite, reference, cost, memory, error] = v as unknown[];
  const figure = (x: unknown): x is number | null => x === null || (typeof x === 'number' && Number.isFinite(x) && x >= 0);
  if (typeof suite !== 'string' || typeof reference !== 'boolean' || !figure(cost) || !figure(memory) || !isNullableString(error)) return null;
  return { suite, reference, cost, memory, error };
}

/**
 * The records of a graded message, cut from its payload by the lengths it
 * names, when each is framed as one JSON object's text (a brace at each
 * end), a comma between two, and no newline, which would end the run log's
 * line. Their inside is the worker's own encoding (`recordJson`), written to
 * the log as it came; the run log's reader checks each line again when it
 * is read back.
 */
function cutRecords(payload: Buffer, lengths: unknown, count: number): Buffer[] | null {
  if (!Array.isArray(lengths) || lengths.length !== count || payload.includes(0x0a)) return null;
  const records: Buffer[] = [];
  let at = 0;
  for (const length of lengths) {
    if (records.length > 0) {
      if (payload[at] !== 0x2c) return null;
      at++;
    }
    if (!isCount(length) || length < 2 || at + length > payload.length) return null;
    const record = payload.subarray(at, at + length);
    if (record[0] !== 0x7b || record[length - 1] !== 0x7d) return null;
    records.push(record);
    at += length;
  }
  return at === payload.length ? records : null;
}

function isProblem(value: unknown): value is ProblemSummary | InvalidProblemFile {
  if (!isObject(value) || typeof value.file !== 'string') return false;
  if ('errors' in value) return isNullableString(value.id) && isStrings(value.errors);
  return (
    typeof value.id === 'string' && isStrings(value.tags) && isStrings(value.warnings) && typeof value.hasOptimalSolution === 'boolean' && isCount(value.tests)
  );
}

function isSolutionOutcome(value: unknown): value is SolutionFileOutcome {
  if (!isObject(value)) return false;
  if (value.kind === 'skipped') return isObject(value.skipped) && typeof value.skipped.source === 'string' && typeof value.skipped.reason === 'string';
  if (value.kind !== 'submission' || !isObject(value.submission)) return false;
  const s = value.submission;
  return (
    typeof s.problemId === 'string' &&
    typeof s.modelId === 'string' &&
    isNullableString(s.promptId) &&
    isNullableString(s.sampleId) &&
    typeof s.source === 'string' &&
    isSubmittedText(s.text) &&
    isNullableString(s.declaredLanguage)
  );
}

function isSubmittedText(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.kind === 'inline') return typeof value.raw === 'string';
  return (
    value.kind === 'range' &&
    typeof value.file === 'string' &&
    isCount(value.start) &&
    isCount(value.end) &&
    value.start <= value.end &&
    typeof value.digest === 'string'
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
