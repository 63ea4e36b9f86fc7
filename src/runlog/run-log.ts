/**
 * The run log (`results/<run>.jsonl`, lines in records.ts): appended with a
 * synchronous write the moment each candidate is graded, so `kill -9` loses
 * only unfinished work; reopened to finish an interrupted run, where a last
 * line torn by the kill is set aside; and read back, one candidate at a
 * time, when the scorecard is written. Only where each line lies is kept in
 * memory, so the host's memory stays flat however many tests a run has.
 * What the results mean (rows, rankings, summaries) is for report/.
 */
import { closeSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { LINE_END, LineIndex } from './line-index.js';
import { readLines } from './read-lines.js';
import { parseExactJson } from '../problems/exact-json.js';
import type { VisitRecord } from '../report/reporter.js';
import type { CandidateResult } from '../report/scorecard.js';
import { isIndexKey } from '../values/py-tags.js';
import { recordBytes } from '../values/wire.js';
import { writeBytes } from '../write-text.js';
import { quoteKey, type QuotedKey } from './candidate-key.js';
import type { TestLimitsReport } from '../report/scorecard.js';
import { isCandidateLine, isHeader, isLimitsLine, isNoteLine, limitsReport, type CandidateLine, type RunEnd, type RunHeader, type RunPlan } from './records.js';

export { readLines };
export type { CandidateLine, LimitsLine, RunEnd, RunHeader, RunPlan, ShardLogRecord } from './records.js';

/** The limits lines of a log, by problem id (the last line of each). */
export type LoggedLimits = Map<string, TestLimitsReport>;

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

/** A log reopened to finish its run (`RunLog.resume`). */
export interface ResumedLog {
  log: RunLog;
  header: RunHeader;
  damagedLines: number;
  limits: LoggedLimits;
  /** When the part of the run that logged each problem's limits began (ms since the epoch; NaN when the log does not say). */
  limitsLoggedIn: Map<string, number>;
  /** Each valid problem's file by its id, as the last plan line lists them; null when the log has no plan line. */
  plannedFiles: Map<string, string> | null;
}

/** A run's planned candidates' keys, in input order, each made when it is asked for (a plan's CandidateList is one). */
export interface PlannedKeys {
  readonly length: number;
  key(rank: number): string;
  /** The same key as the log writes it: quoteKey(key(rank)). */
  quotedKey(rank: number): QuotedKey;
}

/** The keys of an array, as PlannedKeys. */
export function keysOf(keys: readonly string[]): PlannedKeys {
  return { length: keys.length, key: (rank) => keys[rank]!, quotedKey: (rank) => quoteKey(keys[rank]!) };
}

/** The plan line is appended in pieces of about this many characters. */
const PLAN_CHUNK = 1 << 16;

/**
 * String keys in the order of an object's own properties (and so of
 * Object.keys and JSON.stringify): those that are array indexes (the
 * canonical form of a whole number below 2^32 - 1) first, in ascending
 * order, then the others in the order given. A problem id such as "11" is
 * an array index.
 */
function inObjectOrder(keys: readonly string[]): string[] {
  const indexes: string[] = [];
  const others: string[] = [];
  for (const key of keys) (isIndexKey(key) ? indexes : others).push(key);
  if (indexes.length === 0) return others;
  indexes.sort((a, b) => Number(a) - Number(b));
  return [...indexes, ...others];
}

/**
 * A plan as `notePlan` takes it: its keys made as they are written, and its
 * tags as a map, written as the object Object.fromEntries would make of it.
 */
export type PlanToNote = Omit<RunPlan, 'type' | 'keys' | 'tags'> & { keys: PlannedKeys; tags: ReadonlyMap<string, readonly string[]> };

/** Elements of an array member of the plan line written with one JSON.stringify. */
const PLAN_ELEMENTS = 512;

/**
 * The text of a line gathered into pieces of about PLAN_CHUNK characters,
 * each handed to `write`. `addField` writes a member of an object as
 * JSON.stringify writes it when the object holds it: an array a few
 * hundred elements at a time (a JSON.stringify of each slice, less its
 * brackets: a call per element cost more than the whole), a map as the
 * object Object.fromEntries makes of it (without making it: with an entry
 * per problem, that object cost more to make and to write than the map's
 * entries written one by one), anything else whole, a member whose
 * value JSON leaves out not at all. (A slice's elements are not at their
 * own index: the same text for every value but one whose toJSON writes
 * the key it is given, which a plan holds none of.)
 */
class PlanLine {
  private chunk = '';

  constructor(private readonly write: (text: string) => void) {}

  add(text: string): void {
    this.chunk += text;
    if (this.chunk.length >= PLAN_CHUNK) this.flush();
  }

  flush(): void {
    if (this.chunk !== '') this.write(this.chunk);
    this.chunk = '';
  }

  addField(name: string, value: unknown): void {
    if (value instanceof Map) {
      // The plan's only map is its tags, whose keys are problem ids.
      const map = value as ReadonlyMap<string, unknown>;
      this.add(`,${JSON.stringify(name)}:{`);
      let first = true;
      for (const key of inObjectOrder([...map.keys()])) {
        const text = JSON.stringify(map.get(key)) as string | undefined;
        if (text === undefined) continue;
        this.add(`${first ? '' : ','}${JSON.stringify(key)}:${text}`);
        first = false;
      }
      this.add('}');
      return;
    }
    if (!Array.isArray(value)) {
      const text = JSON.stringify(value) as string | undefined;
      if (text !== undefined) this.add(`,${JSON.stringify(name)}:${text}`);
      return;
    }
    this.add(`,${JSON.stringify(name)}:[`);
    for (let from = 0; from < value.length; from += PLAN_ELEMENTS) {
      const slice = JSON.stringify(value.slice(from, from + PLAN_ELEMENTS));
      this.add(from === 0 ? slice.slice(1, -1) : `,${slice.slice(1, -1)}`);
    }
    this.add(']');
  }
}

/**
 * Called for each complete candidate line of a log being opened, in file
 * order; `partStartedAt`: when the part of the run that wrote the line
 * began (ms since the epoch; NaN when the log does not say), from the
 * header's started_at or the last plan line's part_started_at before it.
 */
export type VisitCandidate = (key: string, results: readonly CandidateResult[], partStartedAt: number) => void;

/** Lines wait at most this long to be written, or until this much is waiting. */
const WRITE_WITHIN_MS = 100;
const WRITE_AHEAD_BYTES = 1 << 18;

/** Results are read back through a window of this size: the scorecard reads them nearly in the order they were written. */
const READ_WINDOW_BYTES = 1 << 20;

export class RunLog {
  private readonly lines = new LineIndex((offset, head) => this.keyInLine(offset, head));
  private closed = false;
  /**
   * Lines appended and not yet written, which belong at `size - aheadBytes`:
   * a run appends a line per candidate, and one write per WRITE_WITHIN_MS
   * costs the supervisor one system call for all the candidates that came
   * meanwhile, however many workers answered. A kill loses at most those
   * lines, which --resume grades again (workers already hold answers back
   * longer than that). Lines are copied into this one buffer as they come,
   * rather than kept as a buffer each until the write.
   */
  private readonly ahead = Buffer.allocUnsafe(WRITE_AHEAD_BYTES);
  private aheadBytes = 0;
  private flushScheduled = false;
  private writeFailure: RunLogWriteError | null = null;
  private window: { offset: number; bytes: Buffer } | null = null;
  private windowMemory: Buffer | null = null;
  /** Opened by `read`: appending would change a log this process does not own. */
  private readOnly = false;

  private constructor(
    private readonly fd: number,
    private size: number,
    readonly file: string,
  ) {}

  /** Starts a new log with its header line. */
  static create(file: string, header: RunHeader): RunLog {
    let fd: number;
    try {
      fd = openSync(file, 'w+');
    } catch (e) {
      throw new RunLogWriteError(file, e, false);
    }
    const log = new RunLog(fd, 0, file);
    try {
      log.appendText(`${JSON.stringify(header)}\n`);
      log.flush();
    } catch (e) {
      // A log without its header cannot be resumed: leave none behind.
      closeSync(fd);
      log.closed = true;
      rmSync(file, { force: true });
      throw new RunLogWriteError(file, e instanceof RunLogWriteError ? e.reason : e, false);
    }
    return log;
  }

  /**
   * Reopens a log to finish an interrupted run: every complete candidate
   * line counts as done; a line cut short by a kill is ignored, and the next
   * record starts on a line of its own.
   */
  static resume(file: string, visit: VisitCandidate): ResumedLog {
    const fd = openSync(file, 'r+');
    const size = fstatSync(fd).size;
    const log = new RunLog(fd, size, file);
    let header: RunHeader | null = null;
    let damaged = 0;
    const limits: LoggedLimits = new Map();
    const limitsLoggedIn = new Map<string, number>();
    let plannedFiles: Map<string, string> | null = null;
    let partStartedAt = NaN;
    for (const { offset, length, text } of readLines(fd, size)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        damaged++;
        continue;
      }
      if (isHeader(parsed) && header === null) {
        header = parsed;
        partStartedAt = Date.parse(parsed.started_at);
      } else if (isCandidateLine(parsed)) log.index(parsed, offset, length, visit, partStartedAt);
      else if (isLimitsLine(parsed)) {
        limits.set(parsed.problem_id, limitsReport(parsed));
        limitsLoggedIn.set(parsed.problem_id, partStartedAt);
      } else if (isNoteLine(parsed)) {
        partStartedAt = partStart(parsed, partStartedAt);
        if (parsed.type === 'plan') plannedFiles = problemFiles(parsed);
      } else damaged++;
    }
    if (header === null) {
      closeSync(fd);
      throw new Error(`${file}: not an evalrun run log (no header line)`);
    }
    if (size > 0 && lastByte(fd, size) !== 0x0a) log.appendText('\n');
    return { log, header, damagedLines: damaged, limits, limitsLoggedIn, plannedFiles };
  }

  /**
   * Opens a log to read it and nothing else (`evalrun report`, `evalrun diff`):
   * the file is never written, so a run still going or interrupted can be
   * read. `logged` lists the candidates in the order they were first logged;
   * `plan` is the last plan line, and `end` the end line after it, if any.
   */
  static read(
    file: string,
    visit: VisitCandidate,
  ): { log: RunLog; header: RunHeader; plan: RunPlan | null; end: RunEnd | null; logged: string[]; limits: LoggedLimits } {
    const fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const log = new RunLog(fd, size, file);
    log.readOnly = true;
    let header: RunHeader | null = null;
    let plan: RunPlan | null = null;
    let end: RunEnd | null = null;
    const logged: string[] = [];
    const limits: LoggedLimits = new Map();
    let partStartedAt = NaN;
    for (const { offset, length, text } of readLines(fd, size)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        continue;
      }
      if (isHeader(parsed) && header === null) {
        header = parsed;
        partStartedAt = Date.parse(parsed.started_at);
      } else if (isCandidateLine(parsed)) {
        if (!log.lines.has(parsed.key)) logged.push(parsed.key);
        log.index(parsed, offset, length, visit, partStartedAt);
      } else if (isLimitsLine(parsed)) limits.set(parsed.problem_id, limitsReport(parsed));
      else if (isNoteLine(parsed)) {
        partStartedAt = partStart(parsed, partStartedAt);
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
    return { log, header, plan, end, logged, limits };
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
   * Records what the run will grade, so that the log alone can be reported
   * on (see `read`): the line JSON.stringify makes of the plan, the keys
   * first. Each key is made, written and let go: a run keeps no string per
   * candidate for its plan. The other fields are written a member at a
   * time (`PlanLine`): as one string, a large run's problems made a text
   * of megabytes, and a buffer as large to write it through.
   */
  notePlan(plan: PlanToNote): void {
    const { keys, ...rest } = plan;
    const line = new PlanLine((text) => this.appendText(text));
    line.add('{"type":"plan","keys":[');
    for (let rank = 0; rank < keys.length; rank++) line.add(rank === 0 ? keys.quotedKey(rank) : `,${keys.quotedKey(rank)}`);
    line.add(']');
    for (const [name, value] of Object.entries(rest)) line.addField(name, value);
    line.add('}\n');
    line.flush();
  }

  /** Records a problem's time limits (--timeout-factor), before any of its candidates. */
  noteLimits(problemId: string, limits: TestLimitsReport): void {
    this.appendText(`${JSON.stringify({ type: 'limits', problem_id: problemId, ...limits })}\n`);
  }

  /** Records that the run ended (complete or interrupted), and when. */
  noteEnd(end: Omit<RunEnd, 'type'>): void {
    this.appendText(`${JSON.stringify({ type: 'end', ...end })}\n`);
  }

  /**
   * Appends a graded candidate's line, `{"type":"candidate","key":...,"results":[...]}`,
   * from its key as the line holds it (quoteKey) and its results' record
   * texts as UTF-8 bytes (`recordJson`, which writes exact integers of any
   * size with every digit), copied as they are.
   */
  appendCandidate(key: QuotedKey, records: readonly Uint8Array[]): number {
    const offset = this.size;
    const head = this.appendLineHead(key);
    const cuts: number[] = [];
    let length = head;
    records.forEach((record, i) => {
      if (i > 0) {
        this.appendBytes(COMMA);
        length += 1;
      }
      cuts.push(length);
      this.appendBytes(record);
      length += record.length;
      cuts.push(length);
    });
    this.appendBytes(LINE_END);
    length += LINE_END.length;
    return this.lines.set(key, offset, length, head, cuts);
  }

  /**
   * The same for a candidate whose records arrived with others' in one
   * piece (a worker's graded message): its records are bytes[start, end),
   * separated by commas, the ends of its records in `bytes` being
   * recordEnds[from] to recordEnds[to - 1]. Copied in one piece.
   */
  appendJoined(key: QuotedKey, bytes: Uint8Array, start: number, end: number, recordEnds: readonly number[], from: number, to: number): number {
    const offset = this.size;
    const head = this.appendLineHead(key);
    // One result (a submission's): its cuts are known without a list.
    const cuts: number[] | null = to - from === 1 ? null : [];
    if (cuts !== null) for (let r = from, at = start; r < to; at = recordEnds[r]! + 1, r++) cuts.push(head + at - start, head + recordEnds[r]! - start);
    this.appendRange(bytes, start, end);
    this.appendBytes(LINE_END);
    const length = head + (end - start) + LINE_END.length;
    return cuts === null ? this.lines.setOne(key, offset, length, head) : this.lines.set(key, offset, length, head, cuts);
  }

  /** Appends the start of a candidate's line, up to its results; returns its length in bytes. */
  private appendLineHead(key: QuotedKey): number {
    // In three pieces rather than one string made of them, which would be made, flattened and dropped for every candidate.
    this.appendBytes(LINE_HEAD_START);
    const escaped = this.appendText(key);
    this.appendBytes(LINE_HEAD_END);
    return LINE_HEAD_START.length + escaped + LINE_HEAD_END.length;
  }

  /** How many candidate lines the log holds (a key logged twice counts twice). */
  get candidateLines(): number {
    return this.lines.size;
  }

  /** Makes room in the index for `lines` more candidate lines, when the run knows how many to expect. */
  expectLines(lines: number): void {
    this.lines.reserve(this.lines.size + lines);
  }

  /** True when the log holds a complete line for this candidate. */
  has(key: string): boolean {
    return this.lines.has(key);
  }

  /**
   * Where the log holds a candidate's line (`appendCandidate` returns the
   * same for a line it appends), for the reads by slot below; -1 when it
   * holds none. A key logged twice has the slot of its last line.
   */
  slotOf(key: string): number {
    return this.lines.slot(key);
  }

  /** A logged candidate's results, read back from the log (none when it is not logged). */
  results(key: string): CandidateResult[] {
    return this.resultsAt(this.lines.slot(key));
  }

  /** The same, by the line's slot (`slotOf`). */
  resultsAt(slot: number): CandidateResult[] {
    if (slot < 0) return [];
    const length = this.lines.lengthOf(slot);
    const { bytes, from } = this.lineIn(this.lines.offsetOf(slot), length);
    // Every digit: a recorded value may be an integer beyond 2**53.
    return (parseExactJson(bytes.toString('utf8', from, from + length)) as CandidateLine).results;
  }

  /**
   * Calls `visit` with each result of the logged candidates of `slots`, in
   * that order, as JSON text in UTF-8: `bytes[start, end)`, valid only
   * during the call. Lines this process wrote are read in place; only lines
   * of an earlier run are parsed and encoded again. A slot of -1 (not
   * logged) has none. One loop for them all: the scorecard visits every
   * candidate's results this way, work the supervisor does per candidate.
   */
  visitResults(slots: ArrayLike<number>, visit: VisitRecord): void {
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      if (slot < 0) continue;
      const offset = this.lines.offsetOf(slot);
      const { bytes, from } = this.lineIn(offset, this.lines.lengthOf(slot));
      if (!this.lines.eachCut(slot, bytes, from, visit)) for (const record of this.resultsAt(slot).map(recordBytes)) visit(record, 0, record.length);
    }
  }

  close(): void {
    if (!this.closed) {
      try {
        this.flush();
      } finally {
        closeSync(this.fd);
        this.closed = true;
      }
    }
  }

  /** Writes the lines still waiting; throws RunLogWriteError if the file refuses them. */
  flush(): void {
    if (this.writeFailure !== null) throw this.writeFailure;
    if (this.aheadBytes === 0) return;
    const bytes = this.ahead.subarray(0, this.aheadBytes);
    const at = this.size - this.aheadBytes;
    this.aheadBytes = 0;
    this.write(bytes, at);
  }

  private write(bytes: Uint8Array, at: number): void {
    try {
      writeBytes(this.fd, bytes, at);
    } catch (e) {
      this.writeFailure = new RunLogWriteError(this.file, e);
      throw this.writeFailure;
    }
  }

  private index(line: CandidateLine, offset: number, length: number, visit: VisitCandidate, partStartedAt: number): void {
    this.lines.setEarlier(line.key, offset, length);
    visit(line.key, line.results, partStartedAt);
  }

  /** Appends text as UTF-8; returns its length in bytes. */
  private appendText(text: string): number {
    this.checkWritable();
    // Three bytes per UTF-16 code unit at most.
    if (3 * text.length > this.ahead.length) {
      const bytes = Buffer.from(text, 'utf8');
      this.appendBytes(bytes);
      return bytes.length;
    }
    // A text that fits the buffer once what waits is written is encoded straight into it.
    if (this.aheadBytes + 3 * text.length > this.ahead.length) this.flush();
    const length = this.ahead.write(text, this.aheadBytes, 'utf8');
    this.aheadBytes += length;
    this.size += length;
    this.scheduleFlush();
    return length;
  }

  private appendBytes(bytes: Uint8Array): void {
    this.appendRange(bytes, 0, bytes.length);
  }

  /** Appends bytes[start, end). */
  private appendRange(bytes: Uint8Array, start: number, end: number): void {
    this.checkWritable();
    const length = end - start;
    if (this.aheadBytes + length > this.ahead.length) {
      this.flush();
      if (length > this.ahead.length) {
        // Longer than the buffer: written at once, after what waited.
        this.size += length;
        this.write(bytes.subarray(start, end), this.size - length);
        return;
      }
    }
    // A plain view: a Buffer's subarray costs more to make than the copy of a short record.
    if (start === 0 && end === bytes.length) this.ahead.set(bytes, this.aheadBytes);
    else this.ahead.set(new Uint8Array(bytes.buffer, bytes.byteOffset + start, length), this.aheadBytes);
    this.aheadBytes += length;
    this.size += length;
    this.scheduleFlush();
  }

  private checkWritable(): void {
    if (this.readOnly) throw new Error(`${this.file}: opened for reading only`);
    if (this.writeFailure !== null) throw this.writeFailure;
  }

  private scheduleFlush(): void {
    if (!this.flushScheduled) this.armFlush();
  }

  /** Apart from scheduleFlush, which every append calls: the timer is set about once per interval, and code that seldom runs is best kept out of code that always does. */
  private armFlush(): void {
    this.flushScheduled = true;
    setTimeout(() => {
      this.flushScheduled = false;
      if (this.closed) return;
      try {
        this.flush();
      } catch {
        // Kept, and thrown by the next append, flush or close, where the run reports it.
      }
    }, WRITE_WITHIN_MS).unref();
  }

  /** The key of a line this process wrote, from its bytes: what its head holds between the line's start and its results. */
  private keyInLine(offset: number, head: number): string {
    const { bytes, from } = this.lineIn(offset, head);
    return JSON.parse(bytes.toString('utf8', from + LINE_HEAD_START.length, from + head - LINE_HEAD_END.length)) as string;
  }

  /** The read window holding a line, and where the line starts in it: valid until the next read. */
  private lineIn(offset: number, length: number): { bytes: Buffer; from: number } {
    this.flush();
    const end = offset + length;
    let window = this.window;
    if (window === null || offset < window.offset || end > window.offset + window.bytes.length) {
      // The window's memory is reused from one read to the next: fresh memory costs the system a page fault per page.
      const into = length <= READ_WINDOW_BYTES ? (this.windowMemory ??= Buffer.allocUnsafe(READ_WINDOW_BYTES)) : Buffer.allocUnsafe(length);
      window = { offset, bytes: this.readBytes(into, offset, Math.max(length, Math.min(READ_WINDOW_BYTES, this.size - offset))) };
      if (window.bytes.length < length) throw new Error(`${this.file}: log ends early at byte ${offset + window.bytes.length}`);
      // A line longer than the window is read alone and not kept.
      if (length <= READ_WINDOW_BYTES) this.window = window;
    }
    return { bytes: window.bytes, from: offset - window.offset };
  }

  private readBytes(buffer: Buffer, offset: number, length: number): Buffer {
    let read = 0;
    while (read < length) {
      const n = readSync(this.fd, buffer, read, length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  }
}

const COMMA = Buffer.from(',');
/** A candidate line up to its key, and from its key to its results. */
const LINE_HEAD_START = Buffer.from('{"type":"candidate","key":');
const LINE_HEAD_END = Buffer.from(',"results":[');

/** The files of a plan line's problems, by id (a problem file without an id names none). */
function problemFiles(plan: RunPlan): Map<string, string> {
  const files = new Map<string, string>();
  if (!Array.isArray(plan.problems)) return files;
  for (const p of plan.problems as unknown[]) {
    if (typeof p !== 'object' || p === null) continue;
    const { problem_id: id, file, valid } = p as { problem_id?: unknown; file?: unknown; valid?: unknown };
    if (valid === true && typeof id === 'string' && typeof file === 'string') files.set(id, file);
  }
  return files;
}

/** When the part of the run that logs the lines after `note` began: a plan line may say; otherwise as before it. */
function partStart(note: RunPlan | RunEnd, before: number): number {
  if (note.type !== 'plan' || typeof note.part_started_at !== 'string') return before;
  return Date.parse(note.part_started_at);
}

function lastByte(fd: number, size: number): number {
  const one = Buffer.alloc(1);
  readSync(fd, one, 0, 1, size - 1);
  return one[0] ?? 0;
}
