/**
 * The messages between the supervisor and a sandbox worker, one JSON
 * document per line each way (graded candidates' records follow their
 * line as raw bytes, json-lines.ts). The supervisor sends batches of work
 * items; the worker does the items in order and answers each, a few
 * answers to a write (graded candidates of consecutive items in one
 * message), so that a worker lost mid-batch costs only the items it had
 * not answered. Which item (and test) it is running meanwhile is in its
 * progress cell (sandbox-host/progress-cell.ts). What arrives from a
 * worker is checked here (`readFromWorker`) before anything else of the
 * supervisor sees it.
 */
import type { Candidate, ProblemSummary } from '../grading/candidate.js';
import type { Filters } from '../grading/filters.js';
import type { GradeOptions } from '../grading/grade.js';
import type { TestLimits } from '../grading/test-limits.js';
import type { InvalidProblemFile } from '../problems/prepared.js';
import {
  CANDIDATE_STATUSES,
  pushFlatRow,
  ROW_STRING_NULLABLE,
  ROW_STRINGS,
  ROW_WIDTH,
  rowFromFlat,
  type CandidateRow,
  type RowEfficiency,
} from '../report/rows.js';
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import type { SolutionLanguage } from '../solutions/language.js';
import { SubmissionColumns } from '../solutions/submission-columns.js';
import { isDigest } from '../solutions/solution-bytes.js';
import { rangeSource, type SkippedSubmission, type SolutionFile, type SolutionFileOutcome, type SolutionTextRange } from '../solutions/submission.js';
import { jsonLine, PAYLOAD_FIELD } from '../sandbox-host/json-lines.js';
import { Interned } from '../interned.js';

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
  /** Each known problem's prompt ids, in the order of `knownProblemIds`; null where they are not known (an invalid file). */
  promptIds?: Array<readonly string[] | null>;
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
 * as a row of numbers in one flat list (`candidates`, CANDIDATE_WIDTH
 * numbers each, laid out as FIELD says), its strings (problem,
 * files, model, prompt, sample, language, code, digest) as indexes into the
 * batch's table of strings, which holds each once (a range's digest is a
 * number of the row). A grade item with
 * nothing else to say goes as its row's number alone. Encoding a batch is
 * work the supervisor does for every candidate: a flat list of numbers is
 * several times quicker to write than an array per candidate of mixed
 * values, and names and paths written out in full made most of it before.
 */
export function batchLine(id: number, batch: Batch): string {
  const { strings, ref } = stringTable();
  const candidates: number[] = [];
  const items = batch.items.map((item): ItemOnWire => {
    if (item.kind !== 'grade') return item;
    const row = candidates.length / CANDIDATE_WIDTH;
    pushCandidateRow(item.candidate, ref, candidates);
    if (item.oneByOne === undefined && item.limits === undefined) return row;
    return { ...item, candidate: row };
  });
  return jsonLine({ type: 'batch', id, batch: { ...batch, strings, candidates, items } });
}

/** Strings held once for a message: `ref` gives a string's index in `strings`, adding it the first time. */
function stringTable(): { strings: readonly string[]; ref: (text: string) => number } {
  const table = new Interned<string>();
  return { strings: table.values, ref: (text) => table.of(text) };
}

/** A message's line as it goes to a worker: a batch's by `batchLine`, any other as it is. */
export function toWorkerLine(message: ToWorker): string {
  return message.type === 'batch' ? batchLine(message.id, message.batch) : jsonLine(message);
}

/**
 * A message from the supervisor as the worker reads it (its line parsed): a
 * batch's candidates as they were before `batchLine`; null for anything
 * else, or for a batch whose candidates' numbers are not whole or name
 * strings or rows it does not hold.
 */
export function readToWorker(value: unknown): ToWorker | null {
  if (!isObject(value)) return null;
  if (value.type === 'context') return value as unknown as ToWorker;
  if (value.type !== 'batch' || !isCount(value.id) || !isObject(value.batch)) return null;
  const { strings, candidates, items, ...rest } = value.batch as { strings: unknown; candidates: unknown; items: unknown };
  if (!isStrings(strings) || !isIntegers(candidates) || candidates.length % CANDIDATE_WIDTH !== 0 || !Array.isArray(items)) return null;
  const rows = candidates.length / CANDIDATE_WIDTH;
  const decoded: WorkItem[] = [];
  for (const item of items as unknown[]) {
    if (typeof item === 'number') {
      if (!isRow(item, rows)) return null;
      decoded.push({ kind: 'grade', candidate: candidateFromRow(candidates, item, strings) });
    } else if (isObject(item) && item.kind === 'grade') {
      if (!isRow(item.candidate, rows)) return null;
      decoded.push({ ...(item as unknown as WorkItem), candidate: candidateFromRow(candidates, item.candidate, strings) } as WorkItem);
    } else decoded.push(item as WorkItem);
  }
  return { type: 'batch', id: value.id, batch: { ...(rest as unknown as Omit<Batch, 'items'>), items: decoded } };
}

/** An item as a batch's line holds it: a grade item by its candidate's row, alone when it has nothing else; any other item as it is. */
type ItemOnWire = number | Exclude<WorkItem, { kind: 'grade' }> | (Omit<Extract<WorkItem, { kind: 'grade' }>, 'candidate'> & { candidate: number });

/**
 * A candidate's row in a batch's `candidates`: the places of its fields.
 * A string is its index in the batch's strings, or -1 for null. A
 * submission's kind is 0 (none), 1 (its text inline, `text` naming the
 * text) or 2 (a range of a solution file, `text` naming the file); a
 * range's source is not sent (-1): it is the range's file and line.
 */
const FIELD = {
  problemId: 0,
  file: 1,
  modelId: 2,
  promptId: 3,
  sampleId: 4,
  source: 5,
  tests: 6,
  flags: 7,
  submission: 8,
  declaredLanguage: 9,
  text: 10,
  start: 11,
  end: 12,
  digest: 13,
  line: 14,
} as const;
type Field = (typeof FIELD)[keyof typeof FIELD];
const CANDIDATE_WIDTH = 15;

const NO_SUBMISSION = 0;
const INLINE = 1;
const RANGE = 2;

const EXTRACT = 1;
const CORRECTNESS_ONLY_FALSE = 2;
const CORRECTNESS_ONLY_TRUE = 4;

function pushCandidateRow(c: Candidate, ref: (text: string) => number, into: number[]): void {
  const optional = (text: string | null): number => (text === null ? -1 : ref(text));
  let flags = c.extract ? EXTRACT : 0;
  if (c.correctnessOnly !== undefined) flags |= c.correctnessOnly ? CORRECTNESS_ONLY_TRUE : CORRECTNESS_ONLY_FALSE;
  const text = c.submission?.text ?? null;
  const source = text !== null && text.kind === 'range' ? -1 : ref(c.source);
  into.push(ref(c.problemId), ref(c.file), ref(c.modelId), optional(c.promptId), optional(c.sampleId), source, c.tests, flags);
  if (text === null) into.push(NO_SUBMISSION, -1, -1, -1, -1, -1, -1);
  else if (text.kind === 'inline') into.push(INLINE, optional(c.submission!.declaredLanguage), ref(text.raw), -1, -1, -1, -1);
  else into.push(RANGE, optional(c.submission!.declaredLanguage), ref(text.file), text.start, text.end, text.digest, text.line);
}

function candidateFromRow(rows: readonly number[], row: number, strings: readonly string[]): Candidate {
  const at = row * CANDIDATE_WIDTH;
  const field = (place: Field): number => rows[at + place]!;
  const text = (place: Field): string => {
    const found = strings[field(place)];
    if (found === undefined) throw new Error(`a batch names string ${field(place)} of ${strings.length}`);
    return found;
  };
  const optional = (place: Field): string | null => (field(place) === -1 ? null : text(place));
  const kind = field(FIELD.submission);
  if (kind !== NO_SUBMISSION && kind !== INLINE && kind !== RANGE) throw new Error(`a batch names a submission of kind ${kind}`);
  const range: SolutionTextRange | null =
    kind === RANGE
      ? { kind: 'range', file: text(FIELD.text), start: field(FIELD.start), end: field(FIELD.end), digest: field(FIELD.digest), line: field(FIELD.line) }
      : null;
  if (range === null && field(FIELD.source) === -1) throw new Error('a batch names a candidate without its source');
  if (field(FIELD.tests) < 0) throw new Error(`a batch names a candidate with ${field(FIELD.tests)} tests`);
  if (range !== null && !(range.start >= 0 && range.end >= range.start && range.line >= 1 && isDigest(range.digest)))
    throw new Error('a batch names a range that is not one');
  const flags = field(FIELD.flags);
  const candidate: Candidate = {
    problemId: text(FIELD.problemId),
    file: text(FIELD.file),
    modelId: text(FIELD.modelId),
    promptId: optional(FIELD.promptId),
    sampleId: optional(FIELD.sampleId),
    source: range === null ? text(FIELD.source) : rangeSource(range),
    tests: field(FIELD.tests),
    submission: null,
    extract: (flags & EXTRACT) !== 0,
  };
  if ((flags & (CORRECTNESS_ONLY_TRUE | CORRECTNESS_ONLY_FALSE)) !== 0) candidate.correctnessOnly = (flags & CORRECTNESS_ONLY_TRUE) !== 0;
  if (kind !== NO_SUBMISSION) {
    const declaredLanguage = optional(FIELD.declaredLanguage) as SolutionLanguage | null;
    candidate.submission = { text: range ?? { kind: 'inline', raw: text(FIELD.text) }, declaredLanguage };
  }
  return candidate;
}

function isRow(value: unknown, rows: number): value is number {
  return isCount(value) && value < rows;
}

/**
 * A solution file's outcomes as they go to the supervisor (`solutionsLines`).
 * A file of JSON Lines holds thousands of submissions, so they go a part at
 * a time (`more` on every part but the last, which alone answers the item),
 * and each part as columns, one array per field with a number per
 * submission, the strings that repeat (problem, model, prompt, sample,
 * language, the file) held once: the supervisor checks a column in one
 * plain loop and keeps it as a typed array (`SubmissionColumns`), with no
 * object per submission and little code that runs once per submission.
 */
interface SolutionsOnWire {
  type: 'solutions';
  batch: number;
  item: number;
  /** More parts of the file's submissions follow this one. */
  more: boolean;
  strings: readonly string[];
  /** The file the submissions' ranges are of, by index into `strings`; -1 when none is a range. */
  file: number;
  // A number per submission, in the file's order: ids and language by index into `strings` (-1: null).
  problems: number[];
  models: number[];
  prompts: number[];
  samples: number[];
  languages: number[];
  /** Its line of the file, from 1; 0 for a text given inline (a file of its own). */
  lines: number[];
  /** Its text's bytes [start, end) of the file; -1 for a text given inline. */
  starts: number[];
  ends: number[];
  /** The digests of those bytes (`digestOf`); 0 for a text given inline. */
  digests: number[];
  /** The texts given inline, in order: [source, text]. */
  inline: Array<[source: string, text: string]>;
  /** Solutions of the file that are skipped: [source, reason]. */
  skipped: Array<[source: string, reason: string]>;
}

/** Submissions in one `solutions` message: enough that a file of many thousand lines goes in a few parts. */
export const SUBMISSIONS_PER_MESSAGE = 2048;

/**
 * The lines of `solutions` messages that answer a read-solutions item: the
 * submissions, SUBMISSIONS_PER_MESSAGE to a line, then the skipped
 * solutions in the last, each in the file's order (the plan keeps the two
 * apart, so their order between each other is not kept). A range's source
 * is not sent: it is made from its file and line, which must give it.
 */
export function solutionsLines(batch: number, item: number, outcomes: readonly SolutionFileOutcome[]): string[] {
  const submissions = outcomes.flatMap((o) => (o.kind === 'submission' ? [o.submission] : []));
  const skipped = outcomes.flatMap((o): Array<[string, string]> => (o.kind === 'skipped' ? [[o.skipped.source, o.skipped.reason]] : []));
  const lines: string[] = [];
  for (let from = 0; from === 0 || from < submissions.length; from += SUBMISSIONS_PER_MESSAGE) {
    const last = from + SUBMISSIONS_PER_MESSAGE >= submissions.length;
    const { strings, ref } = stringTable();
    const optional = (text: string | null): number => (text === null ? -1 : ref(text));
    const m: SolutionsOnWire = {
      type: 'solutions',
      batch,
      item,
      more: !last,
      strings,
      file: -1,
      problems: [],
      models: [],
      prompts: [],
      samples: [],
      languages: [],
      lines: [],
      starts: [],
      ends: [],
      digests: [],
      inline: [],
      skipped: last ? skipped : [],
    };
    for (const s of submissions.slice(from, from + SUBMISSIONS_PER_MESSAGE)) {
      m.problems.push(ref(s.problemId));
      m.models.push(ref(s.modelId));
      m.prompts.push(optional(s.promptId));
      m.samples.push(optional(s.sampleId));
      m.languages.push(optional(s.declaredLanguage));
      const text = s.text;
      if (text.kind === 'inline') {
        m.lines.push(0);
        m.starts.push(-1);
        m.ends.push(-1);
        m.digests.push(0);
        m.inline.push([s.source, text.raw]);
        continue;
      }
      if (s.source !== rangeSource(text)) throw new Error(`the submission ${s.source} is not at line ${text.line} of ${text.file}`);
      const file = ref(text.file);
      if (m.file !== -1 && m.file !== file) throw new Error(`a solution file's submissions lie in ${strings[m.file]} and ${text.file}`);
      m.file = file;
      m.lines.push(text.line);
      m.starts.push(text.start);
      m.ends.push(text.end);
      m.digests.push(text.digest);
    }
    lines.push(jsonLine(m));
  }
  return lines;
}

/** A `solutions` message's part of a file's outcomes, checked column by column; what is wrong otherwise. */
function solutionsFromWire(value: Record<string, unknown>): { more: boolean; submissions: SubmissionColumns; skipped: SkippedSubmission[] } | string {
  const { more, strings, file, problems, lines, starts, ends, digests, inline, skipped } = value;
  if (typeof more !== 'boolean' || !isStrings(strings) || !Array.isArray(problems) || !Array.isArray(inline) || !Array.isArray(skipped))
    return 'a "solutions" message with malformed outcomes';
  const malformed = 'a "solutions" message with malformed submissions';
  const count = problems.length;
  const ids = (column: unknown, nullable: boolean): Int32Array | null => indexColumn(column, count, nullable ? -1 : 0, strings.length);
  const data = {
    problems: ids(problems, false),
    models: ids(value.models, false),
    prompts: ids(value.prompts, true),
    samples: ids(value.samples, true),
    languages: ids(value.languages, true),
    lines: indexColumn(lines, count, 0, 2 ** 31 - 1),
    starts: numberColumn(starts, count, isOffset),
    ends: numberColumn(ends, count, isOffset),
    digests: numberColumn(digests, count, isDigest),
  };
  if (Object.values(data).some((column) => column === null)) return malformed;
  const columns = data as { [K in keyof typeof data]: NonNullable<(typeof data)[K]> };
  // A text given inline has no range; a range lies in the message's file, its start not after its end.
  let inlineCount = 0;
  for (let i = 0; i < count; i++) {
    const isInline = columns.lines[i] === 0;
    inlineCount += isInline ? 1 : 0;
    if (isInline ? columns.starts[i] !== -1 || columns.ends[i] !== -1 : !(columns.starts[i]! >= 0 && columns.starts[i]! <= columns.ends[i]!)) return malformed;
  }
  if (inlineCount < count && !(isCount(file) && file < strings.length)) return malformed;
  if (inline.length !== inlineCount || !inline.every((t) => Array.isArray(t) && t.length === 2 && typeof t[0] === 'string' && typeof t[1] === 'string'))
    return malformed;
  const skippedRead: SkippedSubmission[] = [];
  for (const w of skipped as unknown[]) {
    if (!Array.isArray(w) || w.length !== 2 || typeof w[0] !== 'string' || typeof w[1] !== 'string')
      return 'a "solutions" message with a malformed skipped solution';
    skippedRead.push({ source: w[0], reason: w[1] });
  }
  const submissions = SubmissionColumns.of(strings, isCount(file) ? file : -1, columns, inline as Array<[string, string]>);
  return { more, submissions, skipped: skippedRead };
}

/** `column` as `count` whole numbers from `least` up to and without `bound`, or null. */
function indexColumn(column: unknown, count: number, least: number, bound: number): Int32Array | null {
  if (!Array.isArray(column) || column.length !== count) return null;
  const numbers = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const n: unknown = column[i];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < least || n >= bound) return null;
    numbers[i] = n;
  }
  return numbers;
}

/** `column` as `count` numbers that each pass `valid`, or null. */
function numberColumn(column: unknown, count: number, valid: (n: unknown) => n is number): Float64Array | null {
  if (!Array.isArray(column) || column.length !== count) return null;
  const numbers = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const n: unknown = column[i];
    if (!valid(n)) return null;
    numbers[i] = n;
  }
  return numbers;
}

/** A byte offset of a file: a whole number from -1 (-1 for none). */
function isOffset(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= -1;
}

/**
 * Graded candidates: consecutive items of one batch, `count` of them from
 * `item`, as one message. Every candidate's answer passes through the
 * supervisor, whose time per candidate bounds the cores a run can use, so a
 * worker sends the answers it has ready as one message, and the supervisor
 * keeps them as they came: rows as numbers (report/rows.ts ROW_WIDTH each,
 * their strings indexes into `strings`), records as byte ranges of
 * `payload`. Candidate j's rows are rows [rowEnds[j - 1], rowEnds[j]) (from
 * 0 for the first); a row's record is its result as `recordJson` text, and
 * a candidate's records, separated by commas, are its bytes of the payload
 * (`gradedJoined`), as a run log line holds them. Read them with
 * `gradedRows`, `gradedRecords` and `gradedJoined`.
 */
export interface GradedMessage {
  type: 'graded';
  batch: number;
  item: number;
  count: number;
  strings: string[];
  rows: number[];
  rowEnds: number[];
  /** Each row's record's end in the payload (a row's record starts after the previous one's comma, or where its candidate starts). */
  recordEnds: number[];
  /** Each candidate's end in the payload; the next starts there. */
  joinedEnds: number[];
  /** The efficiency of rows that have one (a run that measures), by row. */
  efficiency: Map<number, RowEfficiency> | null;
  /**
   * A self-check's problem, by candidate, when its `problem` message did
   * not go first: in a batch the two would share one write anyway, and
   * one message costs the supervisor less than two. Null: none has one.
   */
  problems: Array<ProblemSummary | null> | null;
  payload: Buffer;
}

/** Candidate j's rows, as objects. */
export function gradedRows(m: GradedMessage, j: number): CandidateRow[] {
  const rows: CandidateRow[] = [];
  for (let r = firstRow(m, j); r < m.rowEnds[j]!; r++) rows.push(rowFromFlat(m.rows, r * ROW_WIDTH, m.strings, m.efficiency?.get(r)));
  return rows;
}

/** Candidate j's records, each `recordJson` text as UTF-8 bytes (views of the payload). */
export function gradedRecords(m: GradedMessage, j: number): Buffer[] {
  const records: Buffer[] = [];
  let at = gradedStart(m, j);
  for (let r = firstRow(m, j); r < m.rowEnds[j]!; r++) {
    records.push(m.payload.subarray(at, m.recordEnds[r]));
    at = m.recordEnds[r]! + 1;
  }
  return records;
}

/** Candidate j's records separated by commas: a run log line's results, to be copied in one piece. */
export function gradedJoined(m: GradedMessage, j: number): Buffer {
  return m.payload.subarray(gradedStart(m, j), m.joinedEnds[j]);
}

/** Where candidate j's bytes start in the payload. */
export function gradedStart(m: GradedMessage, j: number): number {
  return j === 0 ? 0 : m.joinedEnds[j - 1]!;
}

/** Candidate j's first row (its rows end at rowEnds[j]). */
export function firstRow(m: GradedMessage, j: number): number {
  return j === 0 ? 0 : m.rowEnds[j - 1]!;
}

/**
 * A worker's graded answers as they wait to go: consecutive items of one
 * batch, added in order (`follows` says whether an item can join), and
 * their message's line and payload (`frame`).
 */
export class GradedAnswers {
  private readonly table = stringTable();
  private readonly rows: number[] = [];
  private readonly rowEnds: number[] = [];
  private readonly recordBytes: number[] = [];
  private readonly texts: string[] = [];
  private readonly efficiency: Array<[number, EfficiencyOnWire]> = [];
  private problems: Array<ProblemSummary | null> | null = null;
  /** About how many bytes the message will take. */
  bytes = 0;

  constructor(
    readonly batch: number,
    readonly item: number,
  ) {}

  get count(): number {
    return this.rowEnds.length;
  }

  /** Whether item `item` of batch `batch` is the next this message can take. */
  follows(batch: number, item: number): boolean {
    return batch === this.batch && item === this.item + this.count;
  }

  /** Adds the next item's rows and their record texts (one per row); `problem`: a self-check's, when no `problem` message went first. */
  add(rows: readonly CandidateRow[], texts: readonly string[], problem?: ProblemSummary): void {
    if (rows.length !== texts.length) throw new Error(`a graded candidate with ${rows.length} rows and ${texts.length} records`);
    const ref = (text: string): number => {
      const held = this.table.strings.length;
      const at = this.table.ref(text);
      if (this.table.strings.length > held) this.bytes += text.length;
      return at;
    };
    for (const row of rows) {
      const e = row.efficiency;
      if (e !== undefined) this.efficiency.push([this.rows.length / ROW_WIDTH, [e.suite, e.reference, e.cost, e.memory, e.error]]);
      pushFlatRow(row, ref, this.rows);
    }
    this.rowEnds.push(this.rows.length / ROW_WIDTH);
    for (const text of texts) {
      this.recordBytes.push(Buffer.byteLength(text, 'utf8'));
      this.texts.push(text);
      this.bytes += text.length;
    }
    if (problem !== undefined) {
      this.problems ??= new Array<ProblemSummary | null>(this.count - 1).fill(null);
      this.problems.push(problem);
    } else {
      this.problems?.push(null);
    }
    this.bytes += ROW_WIDTH * 4 * rows.length;
  }

  /** The message's line, and the payload that follows it: each candidate's record texts, separated by commas, one candidate after another. */
  frame(): { line: string; payload: Buffer } {
    const pieces: string[] = [];
    let record = 0;
    for (let j = 0; j < this.rowEnds.length; j++) {
      const end = this.rowEnds[j]!;
      pieces.push(this.texts.slice(record, end).join(','));
      record = end;
    }
    const payload = Buffer.from(pieces.join(''), 'utf8');
    const message: Record<string, unknown> = {
      type: 'graded',
      batch: this.batch,
      item: this.item,
      strings: this.table.strings,
      rows: this.rows,
      rowEnds: this.rowEnds,
      recordBytes: this.recordBytes,
    };
    if (this.efficiency.length > 0) message.efficiency = this.efficiency;
    if (this.problems !== null) message.problems = this.problems;
    message[PAYLOAD_FIELD] = payload.length;
    return { line: jsonLine(message), payload };
  }
}

type EfficiencyOnWire = [suite: string, reference: boolean, cost: number | null, memory: number | null, error: string | null];

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
  /** Part of a solution file's outcomes, in the file's order: its last part (`more` false) answers the item. */
  | { type: 'solutions'; batch: number; item: number; more: boolean; submissions: SubmissionColumns; skipped: SkippedSubmission[] }
  | { type: 'answered'; batch: number; item: number; reply: GradeReply }
  /** The worker program itself failed on this item (a bug in evalrun, not the candidate). */
  | { type: 'failed'; batch: number; item: number; message: string };

/** The messages that answer an item (all but `ready` and `warmed`). */
export type ItemMessage = Exclude<FromWorker, { type: 'ready' } | { type: 'warmed' }>;

/** How many items this message ends: a graded message's count; none for a `problem` a graded message follows, or a part of a file's solutions more follow; one for any other. */
export function itemsAnswered(m: ItemMessage): number {
  if (m.type === 'graded') return m.count;
  return (m.type === 'problem' && m.grading) || (m.type === 'solutions' && m.more) ? 0 : 1;
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
    case 'graded':
      return readGraded(value, value.batch, value.item, payload);
    case 'problem':
      if (typeof value.grading !== 'boolean' || !isProblem(value.problem)) return 'a "problem" message with a malformed problem';
      return value as unknown as FromWorker;
    case 'solutions': {
      const part = solutionsFromWire(value);
      return typeof part === 'string' ? part : { type: 'solutions', batch: value.batch, item: value.item, ...part };
    }
    case 'answered':
      if (!isObject(value.reply) || (value.reply.kind !== 'ran' && value.reply.kind !== 'load-error')) return 'an "answered" message without a reply';
      return value as unknown as FromWorker;
    case 'failed':
      return typeof value.message === 'string' ? (value as unknown as FromWorker) : 'a "failed" message without its reason';
    default:
      return `unknown message type ${JSON.stringify(value.type)}`;
  }
}

/**
 * A graded message, checked: every row's numbers (each string an index
 * into `strings`, the status a place in CANDIDATE_STATUSES, counts whole
 * and not negative, passed at most total), one record per row, and the
 * payload cut exactly into them: each record framed as one JSON object's
 * text (a brace at each end), a comma between two of a candidate, and no
 * newline anywhere, which would end the run log's line. A record's inside
 * is the worker's own encoding (`recordJson`), written to the log as it
 * came; the run log's reader checks each line again when it is read back.
 */
function readGraded(value: Record<string, unknown>, batch: number, item: number, payload: Buffer | null): GradedMessage | string {
  const { strings, rows, rowEnds, recordBytes } = value;
  if (!isStrings(strings) || !isNumbers(rows) || rows.length % ROW_WIDTH !== 0 || !isNumbers(rowEnds) || rowEnds.length === 0) {
    return 'a "graded" message with malformed rows';
  }
  const rowCount = rows.length / ROW_WIDTH;
  if (!flatRowsValid(rows, rowCount, strings.length)) return 'a "graded" message with malformed rows';
  let previous = 0;
  for (const end of rowEnds) {
    if (!Number.isInteger(end) || end < previous || end > rowCount) return 'a "graded" message with malformed rows';
    previous = end;
  }
  if (previous !== rowCount) return 'a "graded" message with malformed rows';
  const cut = payload === null ? null : cutRecords(payload, recordBytes, rowEnds, rowCount);
  if (cut === null) return 'a "graded" message whose payload is not one record per row';
  const graded: GradedMessage = {
    type: 'graded',
    batch,
    item,
    count: rowEnds.length,
    strings,
    rows,
    rowEnds,
    recordEnds: cut.recordEnds,
    joinedEnds: cut.joinedEnds,
    efficiency: null,
    problems: null,
    payload: payload!,
  };
  if (value.efficiency !== undefined) {
    const efficiency = Array.isArray(value.efficiency) ? efficiencyByRow(value.efficiency, rowCount) : null;
    if (efficiency === null) return 'a "graded" message with malformed efficiency';
    graded.efficiency = efficiency;
  }
  if (value.problems !== undefined) {
    const problems = value.problems;
    if (!Array.isArray(problems) || problems.length !== graded.count || !problems.every((p) => p === null || (isProblem(p) && !('errors' in p)))) {
      return 'a "graded" message with a malformed problem';
    }
    graded.problems = problems as Array<ProblemSummary | null>;
  }
  return graded;
}

const STATUS_COUNT = CANDIDATE_STATUSES.length;

function isRowCount(value: unknown): value is number {
  return isCount(value) && value <= MAX_ROW_COUNT;
}

const MAX_ROW_COUNT = 2 ** 31 - 1;

function flatRowsValid(rows: readonly number[], rowCount: number, stringCount: number): boolean {
  for (let r = 0; r < rowCount; r++) {
    const at = r * ROW_WIDTH;
    for (let i = 0; i < ROW_STRINGS; i++) {
      const ref = rows[at + i]!;
      if (!Number.isInteger(ref) || ref >= stringCount || ref < (ROW_STRING_NULLABLE[i] ? -1 : 0)) return false;
    }
    const status = rows[at + ROW_STRINGS]!;
    if (!Number.isInteger(status) || status < 0 || status >= STATUS_COUNT) return false;
    const n = at + ROW_STRINGS + 1;
    // passed, total, then duration_ms (any number), then the five counts: whole numbers that 32 bits hold (the row store keeps them so).
    if (!isRowCount(rows[n]) || !isRowCount(rows[n + 1]) || rows[n] > rows[n + 1]!) return false;
    for (let i = n + 3; i < at + ROW_WIDTH; i++) if (!isRowCount(rows[i])) return false;
  }
  return true;
}

function efficiencyByRow(values: unknown[], rowCount: number): Map<number, RowEfficiency> | null {
  const byRow = new Map<number, RowEfficiency>();
  for (const v of values) {
    if (!Array.isArray(v) || v.length !== 2 || !isCount(v[0]) || v[0] >= rowCount || byRow.has(v[0])) return null;
    const efficiency = efficiencyFromWire(v[1]);
    if (efficiency === null) return null;
    byRow.set(v[0], efficiency);
  }
  return byRow;
}

function efficiencyFromWire(v: unknown): RowEfficiency | null {
  if (!Array.isArray(v) || v.length !== 5) return null;
  const [suite, reference, cost, memory, error] = v as unknown[];
  const figure = (x: unknown): x is number | null => x === null || (typeof x === 'number' && Number.isFinite(x) && x >= 0);
  if (typeof suite !== 'string' || typeof reference !== 'boolean' || !figure(cost) || !figure(memory) || !isNullableString(error)) return null;
  return { suite, reference, cost, memory, error };
}

/** Each record's end and each candidate's end in the payload, when the lengths cut it as readGraded says; null otherwise. */
function cutRecords(payload: Buffer, lengths: unknown, rowEnds: readonly number[], rowCount: number): { recordEnds: number[]; joinedEnds: number[] } | null {
  if (!Array.isArray(lengths) || lengths.length !== rowCount || payload.includes(0x0a)) return null;
  const recordEnds: number[] = [];
  const joinedEnds: number[] = [];
  let at = 0;
  let row = 0;
  for (const rowEnd of rowEnds) {
    for (let first = true; row < rowEnd; row++, first = false) {
      if (!first) {
        if (payload[at] !== 0x2c) return null;
        at++;
      }
      const length: unknown = lengths[row];
      if (!isCount(length) || length < 2 || at + length > payload.length) return null;
      if (payload[at] !== 0x7b || payload[at + length - 1] !== 0x7d) return null;
      at += length;
      recordEnds.push(at);
    }
    joinedEnds.push(at);
  }
  return at === payload.length ? { recordEnds, joinedEnds } : null;
}

function isProblem(value: unknown): value is ProblemSummary | InvalidProblemFile {
  if (!isObject(value) || typeof value.file !== 'string') return false;
  if ('errors' in value) return isNullableString(value.id) && isStrings(value.errors);
  return (
    typeof value.id === 'string' &&
    isStrings(value.tags) &&
    isStrings(value.warnings) &&
    typeof value.hasOptimalSolution === 'boolean' &&
    isCount(value.tests) &&
    (value.promptIds === undefined || isStrings(value.promptIds))
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

function isIntegers(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v));
}

function isNumbers(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'number');
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
