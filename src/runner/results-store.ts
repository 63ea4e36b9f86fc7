import { closeSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import type {
  CandidateResult,
  CandidateStatus,
  ProblemReport,
  SkippedSubmissionReport,
  Summary,
  TestResult,
} from '../report/scorecard.js';
import { parseExactJson } from '../problems/exact-json.js';
import { stringifyJson } from '../values/wire.js';
import { writeText } from '../write-text.js';
import type { ShardRecord } from './shard-records.js';

/**
 * Where graded candidates go: one line each in the run log
 * (`results/<run>.jsonl`), written with a synchronous write the moment the
 * candidate finishes, so `kill -9` loses only unfinished work. Only a small
 * row per candidate stays in memory; the full results (every test's input,
 * expected and actual values) are read back from the log, in input order,
 * when the scorecard is written. That keeps the host's memory flat however
 * many tests a run has.
 */

/** In the run log's header: the whole of this shard's plan, and the problem reports the log otherwise lacks. */
export interface ShardLogRecord extends ShardRecord {
  /** This shard's candidates in its plan order: [rank in the whole run's plan, candidate key]. */
  planned: Array<[number, string]>;
  problems: ProblemReport[];
  skipped_submissions: SkippedSubmissionReport[];
}

export interface RunHeader {
  type: 'run';
  run_id: string;
  started_at: string;
  mode: 'self-check' | 'grade';
  /** Enough to plan the same run again for `--resume`. */
  options: Record<string, unknown>;
  /** A sharded run's part of the plan and its input digest (see shard-plan.ts). */
  shard?: ShardLogRecord;
}

/**
 * Written once the run is planned (again when it is resumed): what a report
 * read from the log alone needs beyond the results, since an interrupted run
 * may have no scorecard.
 */
export interface RunPlan {
  type: 'plan';
  /** Every planned candidate's key, in input order. */
  keys: string[];
  problems: ProblemReport[];
  /** Tags of each selected problem that has any. */
  tags: Record<string, string[]>;
  skipped_submissions: SkippedSubmissionReport[];
}

/** Written when the run ends, before the scorecards. */
export interface RunEnd {
  type: 'end';
  finished_at: string;
  complete: boolean;
}

interface CandidateLine {
  type: 'candidate';
  key: string;
  results: CandidateResult[];
}

/** What the tables and roll-ups need of a candidate; the rest stays on disk. */
export interface CandidateRow {
  problem_id: string;
  model_id: string;
  prompt_id: string | null;
  sample_id: string | null;
  language: string;
  status: CandidateStatus;
  error: string | null;
  entry_point: string | null;
  passed: number;
  total: number;
  duration_ms: number;
}

/** A test that did not pass, kept for the table's "failing tests" section. */
export interface FailureRow {
  candidate: CandidateRow;
  test: TestResult;
}

/**
 * A graded candidate as the run log records it: each result's JSON text,
 * written as it is, and what the tables need of it. A worker builds this
 * for the candidates it grades, so the supervisor never encodes a test.
 */
export interface GradedCandidate {
  /** JSON text of each CandidateResult, in order. */
  texts: string[];
  rows: CandidateRowWithCounts[];
  /** Tests that ran and did not pass, by result index, in order; at most FAILURES_KEPT. */
  failures: Array<{ result: number; test: TestResult }>;
}

interface Located {
  offset: number;
  length: number;
  rows: CandidateRowWithCounts[];
  /**
   * Where each result's JSON starts and ends in the line (code units), for
   * lines this run wrote: the scorecard copies them without parsing.
   */
  cuts: number[] | null;
}

/** How many failing tests are kept in memory for the table (in input order). */
export const FAILURES_KEPT = 100;

/** The log record of results built in this process. */
export function gradedFromResults(results: readonly CandidateResult[]): GradedCandidate {
  const rows = results.map(candidateRow);
  // Exact integers of any size are written with every digit.
  return { texts: results.map((r) => stringifyJson(r)), rows, failures: failuresOf(results, rows) };
}

function failuresOf(
  results: readonly CandidateResult[],
  rows: readonly CandidateRowWithCounts[],
): Array<{ result: number; test: TestResult }> {
  const failures: Array<{ result: number; test: TestResult }> = [];
  results.forEach((result, i) => {
    if (rows[i]?.ran !== true) return;
    for (const test of result.tests) {
      if (failures.length >= FAILURES_KEPT) return;
      if (test.status !== 'pass') failures.push({ result: i, test });
    }
  });
  return failures;
}

/**
 * The run log could not be written (a full disk, a quota, a file system
 * gone read-only). The run stops: what is in the log stays valid (a line
 * cut short is ignored by `--resume`), so the run can be finished once
 * there is room again.
 */
export class RunLogWriteError extends Error {
  constructor(
    readonly file: string,
    readonly reason: unknown,
    /** False when not even the header could be written: the log was removed, and the run must start again. */
    readonly resumable = true,
  ) {
    super(`cannot write the run log ${file}: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

export class ResultsStore {
  private readonly byKey = new Map<string, Located>();
  private readonly order: string[] = [];
  private readonly rankOf = new Map<string, number>();
  private readonly failures: Array<{ rank: number; row: FailureRow }> = [];
  private failureCount = 0;
  private closed = false;
  /** Opened by `read`: appending would change a log this process does not own. */
  private readOnly = false;

  private constructor(
    private readonly fd: number,
    private size: number,
    readonly file: string,
  ) {}

  /** Starts a new log with its header line. */
  static create(file: string, header: RunHeader): ResultsStore {
    let fd: number;
    try {
      fd = openSync(file, 'w+');
    } catch (e) {
      throw new RunLogWriteError(file, e, false);
    }
    const store = new ResultsStore(fd, 0, file);
    try {
      store.append(`${JSON.stringify(header)}\n`);
    } catch (e) {
      // A log without its header cannot be resumed: leave none behind.
      store.close();
      rmSync(file, { force: true });
      throw new RunLogWriteError(file, e instanceof RunLogWriteError ? e.reason : e, false);
    }
    return store;
  }

  /**
   * Reopens a log to finish an interrupted run: every complete candidate
   * line counts as done; a line cut short by a kill is ignored.
   */
  static resume(file: string): { store: ResultsStore; header: RunHeader; damagedLines: number } {
    const fd = openSync(file, 'r+');
    const size = fstatSync(fd).size;
    const store = new ResultsStore(fd, size, file);
    let header: RunHeader | null = null;
    let damaged = 0;
    for (const { offset, length, text } of readLines(fd, size)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        damaged++;
        continue;
      }
      if (isHeader(parsed) && header === null) header = parsed;
      else if (isCandidateLine(parsed)) {
        store.byKey.set(parsed.key, { offset, length, rows: parsed.results.map(candidateRow), cuts: null });
      }
      else if (!isNoteLine(parsed)) damaged++;
    }
    if (header === null) {
      closeSync(fd);
      throw new Error(`${file}: not an evalrun run log (no header line)`);
    }
    // A kill can leave a partial last line; start the next record on a line of its own.
    if (size > 0 && lastByte(fd, size) !== 0x0a) store.append('\n');
    return { store, header, damagedLines: damaged };
  }

  /** The header of a run log, read without reading the rest of the log. */
  static readHeader(file: string): RunHeader {
    const fd = openSync(file, 'r');
    try {
      for (const { text } of readLines(fd, fstatSync(fd).size)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          break;
        }
        if (isHeader(parsed)) return parsed;
        break;
      }
    } finally {
      closeSync(fd);
    }
    throw new Error(`${file}: not an evalrun run log (no header line)`);
  }

  /**
   * Opens a log to read it and nothing else (`evalrun report`, `evalrun diff`):
   * the file is never written, so a run still going or interrupted can be read.
   * Candidates come in the order its last plan line gives, then any the plan
   * does not name in the order they were logged.
   */
  static read(file: string): { store: ResultsStore; header: RunHeader; plan: RunPlan | null; end: RunEnd | null } {
    const fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const store = new ResultsStore(fd, size, file);
    store.readOnly = true;
    let header: RunHeader | null = null;
    let plan: RunPlan | null = null;
    let end: RunEnd | null = null;
    const logged: string[] = [];
    for (const { offset, length, text } of readLines(fd, size)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        continue;
      }
      if (isHeader(parsed) && header === null) header = parsed;
      else if (isCandidateLine(parsed)) {
        if (!store.byKey.has(parsed.key)) logged.push(parsed.key);
        store.byKey.set(parsed.key, { offset, length, rows: parsed.results.map(candidateRow), cuts: null });
      } else if (isNoteLine(parsed)) {
        if (parsed.type === 'plan') {
          plan = parsed;
          end = null; // a resumed run plans again; an end line before it belonged to the interrupted part
        } else end = parsed;
      }
    }
    if (header === null) {
      closeSync(fd);
      throw new Error(`${file}: not an evalrun run log (no header line)`);
    }
    const planned = plan?.keys ?? [];
    const inPlan = new Set(planned);
    store.plan([...planned, ...logged.filter((key) => !inPlan.has(key))]);
    return { store, header, plan, end };
  }

  /** Records what the run will grade, so that the log alone can be reported on (see `read`). */
  notePlan(plan: Omit<RunPlan, 'type'>): void {
    this.append(`${JSON.stringify({ type: 'plan', ...plan })}\n`);
  }

  /** Records that the run ended (complete or interrupted), and when. */
  noteEnd(end: Omit<RunEnd, 'type'>): void {
    this.append(`${JSON.stringify({ type: 'end', ...end })}\n`);
  }

  /** True when the log already holds this candidate (from the interrupted run). */
  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /**
   * Declares the run's candidates in input order, which is the order of
   * the scorecard whatever order they finish in.
   */
  plan(keys: readonly string[]): void {
    this.order.splice(0, this.order.length, ...keys);
    this.rankOf.clear();
    keys.forEach((key, rank) => this.rankOf.set(key, rank));
    this.failures.length = 0;
    this.failureCount = 0;
    keys.forEach((key, rank) => {
      const located = this.byKey.get(key);
      if (located === undefined || !located.rows.some(isFailing)) return;
      const results = this.readLine(located).results;
      this.noteFailures(rank, located.rows, failuresOf(results, located.rows));
    });
  }

  record(key: string, results: readonly CandidateResult[]): void {
    this.recordGraded(key, gradedFromResults(results));
  }

  /** Appends a graded candidate's line, `{"type":"candidate","key":...,"results":[...]}`, from its texts. */
  recordGraded(key: string, graded: GradedCandidate): void {
    let text = `{"type":"candidate","key":${JSON.stringify(key)},"results":[`;
    const cuts: number[] = [];
    graded.texts.forEach((part, i) => {
      if (i > 0) text += ',';
      cuts.push(text.length);
      text += part;
      cuts.push(text.length);
    });
    text += ']}\n';
    const offset = this.size;
    const length = this.append(text);
    const located: Located = { offset, length, rows: graded.rows, cuts };
    this.byKey.set(key, located);
    this.noteFailures(this.rankOf.get(key) ?? Number.MAX_SAFE_INTEGER, graded.rows, graded.failures);
  }

  /** Rows of the planned candidates that finished, in input order. */
  rows(): CandidateRowWithCounts[] {
    return this.order.flatMap((key) => this.byKey.get(key)?.rows ?? []);
  }

  /** Planned candidates that have not finished. */
  missing(): number {
    return this.order.filter((key) => !this.byKey.has(key)).length;
  }

  /** Full results of the finished candidates, in input order, read back from the log one at a time. */
  *results(): Generator<CandidateResult> {
    for (const key of this.order) {
      const located = this.byKey.get(key);
      if (located !== undefined) yield* this.readLine(located).results;
    }
  }

  /**
   * The same results as JSON text, one result at a time. Lines this run
   * wrote are cut out of the log as they are; only lines of an interrupted
   * run are parsed and encoded again.
   */
  *resultTexts(): Generator<string> {
    for (const key of this.order) {
      const located = this.byKey.get(key);
      if (located === undefined) continue;
      const cuts = located.cuts;
      if (cuts === null) {
        for (const result of this.readLine(located).results) yield stringifyJson(result);
        continue;
      }
      const text = this.readText(located);
      for (let i = 0; i < cuts.length; i += 2) yield text.slice(cuts[i], cuts[i + 1]);
    }
  }

  /** The first failing tests in input order, and how many there are in all. */
  failingTests(): { shown: FailureRow[]; total: number } {
    return { shown: this.failures.map((f) => f.row), total: this.failureCount };
  }

  summary(problems: number, invalidProblems: number): Summary {
    const s: Summary = {
      problems,
      candidates: 0,
      tests: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      timed_out: 0,
      memory_exceeded: 0,
      invalid_problems: invalidProblems,
      pass_rate: 0,
    };
    for (const key of this.order) {
      for (const row of this.byKey.get(key)?.rows ?? []) {
        s.candidates++;
        s.tests += row.total;
        s.passed += row.passed;
        s.failed += row.counts.fail;
        s.errored += row.counts.error;
        s.timed_out += row.counts.timeout;
        s.memory_exceeded += row.counts.memory;
      }
    }
    s.pass_rate = s.tests === 0 ? 0 : s.passed / s.tests;
    return s;
  }

  close(): void {
    if (!this.closed) closeSync(this.fd);
    this.closed = true;
  }

  private append(text: string): number {
    if (this.readOnly) throw new Error(`${this.file}: opened for reading only`);
    let length: number;
    try {
      length = writeText(this.fd, text, this.size);
    } catch (e) {
      throw new RunLogWriteError(this.file, e);
    }
    this.size += length;
    return length;
  }

  private readLine(located: Located): CandidateLine {
    // Every digit: a recorded value may be an integer beyond 2**53.
    return parseExactJson(this.readText(located)) as CandidateLine;
  }

  private readText(located: Located): string {
    const buffer = Buffer.alloc(located.length);
    let read = 0;
    while (read < located.length) {
      const n = readSync(this.fd, buffer, read, located.length - read, located.offset + read);
      if (n === 0) throw new Error(`${this.file}: log ends early at byte ${located.offset + read}`);
      read += n;
    }
    return buffer.toString('utf8');
  }

  private noteFailures(
    rank: number,
    rows: readonly CandidateRowWithCounts[],
    failing: ReadonlyArray<{ result: number; test: TestResult }>,
  ): void {
    const count = rows.reduce((n, r) => n + (r.ran ? r.total - r.passed : 0), 0);
    if (count === 0) return;
    this.failureCount += count;
    const worst = this.failures[this.failures.length - 1];
    if (this.failures.length >= FAILURES_KEPT && worst !== undefined && worst.rank < rank) return;
    for (const { result, test } of failing) {
      const row = rows[result];
      if (row !== undefined) this.failures.push({ rank, row: { candidate: row, test } });
    }
    // Stable sort keeps each candidate's tests in their own order.
    this.failures.sort((a, b) => a.rank - b.rank);
    this.failures.length = Math.min(this.failures.length, FAILURES_KEPT);
  }
}

/** The row plus per-status counts, which the summary needs. */
export interface CandidateRowWithCounts extends CandidateRow {
  counts: { fail: number; error: number; timeout: number; memory: number };
  /** False when the candidate never ran (load error, unsupported): its tests share one reason. */
  ran: boolean;
}

function isFailing(row: CandidateRowWithCounts): boolean {
  return row.ran && row.passed < row.total;
}

export function candidateRow(result: CandidateResult): CandidateRowWithCounts {
  const counts = { fail: 0, error: 0, timeout: 0, memory: 0 };
  for (const test of result.tests) if (test.status !== 'pass') counts[test.status]++;
  return {
    problem_id: result.problem_id,
    model_id: result.model_id,
    prompt_id: result.prompt_id,
    sample_id: result.sample_id,
    language: result.language,
    status: result.status,
    error: result.error,
    entry_point: result.entry_point,
    passed: result.passed,
    total: result.total,
    duration_ms: result.duration_ms,
    counts,
    ran: result.status === 'passed' || result.status === 'failed',
  };
}

/** The complete lines of a file, with where each starts and its length in bytes; a last line without its newline is left out. */
export function* readLines(fd: number, size: number): Generator<{ offset: number; length: number; text: string }> {
  const chunk = Buffer.alloc(1 << 20);
  let pending: Buffer[] = [];
  let pendingStart = 0;
  let position = 0;
  while (position < size) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
    if (n === 0) break;
    let start = 0;
    for (let i = 0; i < n; i++) {
      if (chunk[i] !== 0x0a) continue;
      const piece = chunk.subarray(start, i + 1);
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      yield { offset: pendingStart, length: line.length, text: line.toString('utf8') };
      pending = [];
      start = i + 1;
      pendingStart = position + start;
    }
    if (start < n) pending.push(Buffer.from(chunk.subarray(start, n)));
    position += n;
  }
  // A last line without its newline was cut short by a kill: it is not a record.
}

function lastByte(fd: number, size: number): number {
  const one = Buffer.alloc(1);
  readSync(fd, one, 0, 1, size - 1);
  return one[0] ?? 0;
}

function isHeader(value: unknown): value is RunHeader {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'run';
}

function isNoteLine(value: unknown): value is RunPlan | RunEnd {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'plan' ? Array.isArray((value as Partial<RunPlan>).keys) : type === 'end';
}

function isCandidateLine(value: unknown): value is CandidateLine {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CandidateLine>;
  return v.type === 'candidate' && typeof v.key === 'string' && Array.isArray(v.results);
}
