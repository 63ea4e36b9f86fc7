/**
 * Candidate rows kept for the whole run as columns of numbers, with the
 * strings that repeat mostly held once. A run keeps a row per candidate until its
 * scorecards are written; as objects, every row and its strings would be
 * copied by the garbage collector as they age, and that copying is work the
 * supervisor does per candidate, which bounds the cores a run can use.
 * Here a row costs a few slots in typed arrays and no object.
 */
import {
  CANDIDATE_STATUSES,
  pushFlatRow,
  ROW_STATUS,
  ROW_STRINGS,
  ROW_WIDTH,
  rowFromFlat,
  type CandidateRow,
  type RowCounts,
  type RowEfficiency,
} from './rows.js';
import { grown } from '../typed-arrays.js';
import { passes } from './aggregate.js';

/**
 * What a pass over the kept rows (`countRows`) hands the rows to: the
 * fields the roll-ups group and count by, read in place (the Aggregator).
 */
export interface RowCounter {
  /** `n` rows of one problem, model and prompt that come one after another, `c` of them passing, with their tests and passed tests. */
  addRun(problemId: string, modelId: string, promptId: string | null, n: number, c: number, tests: number, passed: number): void;
}

const PASSED = CANDIDATE_STATUSES.indexOf('passed');
const FAILED = CANDIDATE_STATUSES.indexOf('failed');
const NULL = -1;
/** Where a row's duration is in the layout of rows.ts: after the status, passed and total. */
const DURATION = ROW_STATUS + 3;
/** How many strings `id` remembers to share; past that it starts over (a string seen again is then kept twice). */
const INTERNED_STRINGS = 4096;
/** In a table's map to the store's strings: not looked up yet. */
const UNMAPPED = -2;

export class RowStore {
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  /**
   * Rows in the layout of rows.ts (ROW_WIDTH numbers each), their strings
   * as indexes into `strings`: every field but the duration is a whole
   * number, and 32 bits hold it; the duration, which is not, is kept in
   * `durations` (0 in its place here).
   */
  private ints = new Int32Array(ROW_WIDTH * 64);
  private durations = new Float64Array(64);
  /** On a candidate's first row, how many rows it has (0 on the others). */
  private spans = new Uint32Array(64);
  /** Only rows of a run that measures have one. */
  private readonly efficiency = new Map<number, RowEfficiency>();
  private count = 0;
  /** The last table of strings rows came with (`addFlatCandidate`), and its strings' indexes here. */
  private table: readonly string[] | null = null;
  private tableIds = new Int32Array(0);

  /** How many rows are kept. */
  get rows(): number {
    return this.count;
  }

  /** Keeps a candidate's rows; returns the handle `rowsOf` takes. */
  addCandidate(rows: readonly CandidateRow[]): number {
    const flat: number[] = [];
    for (const row of rows) {
      if (!CANDIDATE_STATUSES.includes(row.status)) throw new Error(`a row with an unknown status ${JSON.stringify(row.status)}`);
      pushFlatRow(row, (text) => this.id(text), flat);
    }
    const first = this.count;
    for (let at = 0; at < flat.length; at += ROW_WIDTH) this.push(flat, at, null);
    rows.forEach((row, i) => row.efficiency !== undefined && this.efficiency.set(first + i, row.efficiency));
    return this.close(first);
  }

  /**
   * Keeps a candidate's rows given as numbers: rows [from, to) of `flat`,
   * in the layout of rows.ts, checked already, their strings indexes into
   * `table`. A table that comes with many candidates' rows is mapped to
   * the store's strings once. `efficiencyOf`: a row's efficiency, by its
   * index in `flat`.
   */
  addFlatCandidate(
    flat: ArrayLike<number>,
    from: number,
    to: number,
    table: readonly string[],
    efficiencyOf?: (row: number) => RowEfficiency | undefined,
  ): number {
    if (table !== this.table) {
      this.table = table;
      if (this.tableIds.length < table.length) this.tableIds = new Int32Array(Math.max(table.length, this.tableIds.length * 2));
      this.tableIds.fill(UNMAPPED, 0, table.length);
    }
    const first = this.count;
    for (let row = from; row < to; row++) {
      this.push(flat, row * ROW_WIDTH, table);
      const efficiency = efficiencyOf?.(row);
      if (efficiency !== undefined) this.efficiency.set(this.count - 1, efficiency);
    }
    return this.close(first);
  }

  /** The rows of the candidate `addCandidate` returned this handle for, as new objects. */
  rowsOf(handle: number): CandidateRow[] {
    const rows: CandidateRow[] = [];
    for (let i = handle; i < handle + this.spans[handle]!; i++) rows.push(this.rowAt(i));
    return rows;
  }

  /** How many rows the candidate of this handle has: they are `rowAt(handle)` onwards. */
  spanOf(handle: number): number {
    return this.spans[handle]!;
  }

  /** The tests the candidate of this handle ran (its rows' totals), read without making its rows. */
  testsOf(handle: number): number {
    return this.sum(handle, 1);
  }

  /** The tests it passed. */
  passedOf(handle: number): number {
    return this.sum(handle, 0);
  }

  /** The failing tests of the candidate of this handle (failing-tests.ts `failingCount`), read without making its rows. */
  failingCount(handle: number): number {
    let count = 0;
    const flat = this.ints;
    for (let i = handle; i < handle + this.spans[handle]!; i++) {
      const at = i * ROW_WIDTH;
      const status = flat[at + ROW_STATUS]!;
      if (status !== PASSED && status !== FAILED) continue;
      const n = at + ROW_STATUS + 1;
      count += flat[n + 1]! - flat[n]! - flat[n + 7]!;
    }
    return count;
  }

  /**
   * Counts the rows of the candidates of `handles` (the first `length`),
   * in that order, reading their numbers in place: the summary's counts and
   * the counts by status, and the rows handed to `counter` a run of one
   * problem, model and prompt at a time. One plain loop
   * over the columns and no object per row: the end of a run reads every
   * row once this way, and the supervisor's work per candidate is what
   * bounds the cores a run can use.
   */
  countRows(handles: ArrayLike<number>, length: number, counter: RowCounter): RowCounts {
    const flat = this.ints;
    const strings = this.strings;
    const byStatus = CANDIDATE_STATUSES.map(() => 0);
    let rows = 0;
    let tests = 0;
    let passed = 0;
    let failed = 0;
    let errored = 0;
    let timedOut = 0;
    let memory = 0;
    let skipped = 0;
    // The rows of a run of one problem, model and prompt (a plan's samples come so) go to `counter` together.
    let runProblem = NULL;
    let runModel = NULL;
    let runPrompt = NULL;
    let runRows = 0;
    let runPassing = 0;
    let runTests = 0;
    let runPassed = 0;
    for (let h = 0; h < length; h++) {
      const handle = handles[h]!;
      for (let i = handle, end = handle + this.spans[handle]!; i < end; i++) {
        const at = i * ROW_WIDTH;
        const n = at + ROW_STATUS + 1;
        const rowPassed = flat[n]!;
        const rowTotal = flat[n + 1]!;
        // Ids of one string may differ (the store forgets its ids when it has many); those of two strings never match.
        if (flat[at] !== runProblem || flat[at + 1] !== runModel || flat[at + 2] !== runPrompt) {
          if (runRows > 0)
            counter.addRun(strings[runProblem]!, strings[runModel]!, runPrompt === NULL ? null : strings[runPrompt]!, runRows, runPassing, runTests, runPassed);
          runProblem = flat[at]!;
          runModel = flat[at + 1]!;
          runPrompt = flat[at + 2]!;
          runRows = runPassing = runTests = runPassed = 0;
        }
        runRows++;
        if (passes(rowPassed, rowTotal)) runPassing++;
        runTests += rowTotal;
        runPassed += rowPassed;
        rows++;
        tests += rowTotal;
        passed += rowPassed;
        failed += flat[n + 3]!;
        errored += flat[n + 4]!;
        timedOut += flat[n + 5]!;
        memory += flat[n + 6]!;
        skipped += flat[n + 7]!;
        const status = flat[at + ROW_STATUS]!;
        byStatus[status] = byStatus[status]! + 1;
      }
    }
    if (runRows > 0)
      counter.addRun(strings[runProblem]!, strings[runModel]!, runPrompt === NULL ? null : strings[runPrompt]!, runRows, runPassing, runTests, runPassed);
    return { candidates: rows, tests, passed, failed, errored, timed_out: timedOut, memory_exceeded: memory, skipped, byStatus };
  }

  /** The sum over the candidate's rows of the number `field` places after its status (0: passed, 1: total). */
  private sum(handle: number, field: number): number {
    let sum = 0;
    for (let i = handle; i < handle + this.spans[handle]!; i++) sum += this.ints[i * ROW_WIDTH + ROW_STATUS + 1 + field]!;
    return sum;
  }

  /** Copies one row of ROW_WIDTH numbers from `source` at `at`; its strings are indexes into `table`, or into this store's own when null. */
  private push(source: ArrayLike<number>, at: number, table: readonly string[] | null): void {
    if (this.count === this.spans.length) this.grow();
    const to = this.count * ROW_WIDTH;
    const ints = this.ints;
    for (let i = 0; i < ROW_STRINGS; i++) ints[to + i] = table === null ? source[at + i]! : this.mapped(table, source[at + i]!);
    for (let i = ROW_STRINGS; i < ROW_WIDTH; i++) {
      const value = source[at + i]!;
      if (i === DURATION) {
        this.durations[this.count] = value;
        ints[to + i] = 0;
      } else if ((value | 0) === value) {
        ints[to + i] = value;
      } else {
        throw new RangeError(`a row with ${value} in field ${i}, which is not a 32-bit whole number`);
      }
    }
    this.count++;
  }

  /** The handle of the candidate whose first row is `first`; a candidate without rows still takes a row, so that its handle is its own. */
  private close(first: number): number {
    const rows = this.count - first;
    if (rows === 0) this.push(EMPTY, 0, null);
    this.spans[first] = rows;
    return first;
  }

  private mapped(table: readonly string[], ref: number): number {
    if (ref === NULL) return NULL;
    let id = this.tableIds[ref]!;
    if (id === UNMAPPED) this.tableIds[ref] = id = this.id(table[ref]!);
    return id;
  }

  /** A row, as a new object, by its index among all the rows kept. */
  rowAt(index: number): CandidateRow {
    if (!(index >= 0 && index < this.count)) throw new RangeError(`no row ${index}`);
    const row = rowFromFlat(this.ints, index * ROW_WIDTH, this.strings, this.efficiency.get(index));
    row.duration_ms = this.durations[index]!;
    return row;
  }

  private id(text: string): number {
    let id = this.stringIds.get(text);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(text);
      // Strings that repeat (models, prompts, samples, languages, errors) repeat soon; a problem's own (its id, its entry point) seldom do.
      // A map of every string would grow with the run and be hashed into for each of them, so it is forgotten when full.
      if (this.stringIds.size === INTERNED_STRINGS) this.stringIds.clear();
      this.stringIds.set(text, id);
    }
    return id;
  }

  /**
   * Makes room for `rows` rows in all, when the run knows how many to
   * expect: columns grown by doubling leave the arrays they outgrew to the
   * garbage collector's next full collection, large arrays that a long
   * run would otherwise hold several of at once.
   */
  reserve(rows: number): void {
    if (rows > this.spans.length) this.resize(rows);
  }

  private grow(): void {
    this.resize(this.spans.length * 2);
  }

  private resize(capacity: number): void {
    this.ints = grown(this.ints, capacity * ROW_WIDTH);
    this.durations = grown(this.durations, capacity);
    this.spans = grown(this.spans, capacity);
  }
}

/** The row a candidate without rows takes: no strings, `no-tests`, all counts 0. */
const EMPTY: readonly number[] = [NULL, NULL, NULL, NULL, NULL, NULL, NULL, CANDIDATE_STATUSES.indexOf('no-tests'), 0, 0, 0, 0, 0, 0, 0, 0];
