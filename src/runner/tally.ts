/**
 * The run's candidates in plan order, which is the scorecard's order
 * whatever order they finish in: a row for each one graded (its results
 * stay in the run log), and the failing tests the table shows.
 */
import { FailingTests, type FailureRow } from '../report/failing-tests.js';
import { RowStore, type RowCounter } from '../report/row-store.js';
import { candidateRow, type CandidateRow, type RowCounts } from '../report/rows.js';
import type { VisitRecord } from '../report/reporter.js';
import type { CandidateResult } from '../report/scorecard.js';
import { quoteKey, unquoteKey, type QuotedKey } from '../runlog/candidate-key.js';
import { keysOf, type PlannedKeys, type RunLog } from '../runlog/run-log.js';
import { grown } from '../typed-arrays.js';
import { recordBytes } from '../values/wire.js';
import { firstRow, gradedStart, type GradedMessage } from '../workers/messages.js';

export class Tally {
  /**
   * Each logged line's rows, by the line's slot in the log (RunLog.slotOf):
   * a handle into `store`, or -1. A column rather than a map by key: a key
   * is a long string, and every map entry made for one is work the
   * supervisor does per candidate.
   */
  private rowsOfSlot = new Int32Array(256).fill(NONE);
  private readonly store = new RowStore();
  /** The plan's keys, each made when it is asked for: the plan keeps no string per candidate. */
  private order: PlannedKeys = keysOf([]);
  /** Each planned candidate's line in the log, by rank: its slot, or -1 while it is not logged. */
  private slotOfRank = new Int32Array(0);
  /**
   * The plan's ranks by key, made the first time a candidate is recorded
   * without its rank (none is, in a run that grades its own plan) or a key
   * is looked up.
   */
  private rankOf: Map<string, number> | null = null;
  private readonly failing = new FailingTests();
  /** Planned candidates the log holds. */
  private loggedPlanned = 0;

  /** `logged`: rows of the candidates the log already held when it was opened. */
  constructor(
    readonly log: RunLog,
    logged?: ReadonlyMap<string, CandidateRow[]>,
  ) {
    for (const [key, rows] of logged ?? []) this.keepRows(log.slotOf(key), rows);
  }

  /**
   * Makes room for `candidates` more logged candidates, one row each at
   * least, when the run knows how many to expect: the columns kept for the
   * whole run are then made once rather than grown by doubling.
   */
  expect(candidates: number): void {
    const lines = this.log.candidateLines + candidates;
    this.log.expectLines(candidates);
    this.store.reserve(this.store.rows + candidates);
    const had = this.rowsOfSlot.length;
    if (lines > had) this.rowsOfSlot = grown(this.rowsOfSlot, lines).fill(NONE, had);
  }

  /**
   * Declares the candidates in input order. Failing tests of candidates
   * already in the log are ranked again, reading their lines back. Those
   * recorded before the plan are found by key, or, when `earlier` is given,
   * by the rank each one was recorded with: `earlier[rank]` (a self-check
   * records a problem by its place in the listing as it reads it). A logged
   * candidate for which `outdated(rank)` is true counts as not logged: it is
   * graded again, and its new line replaces the old one.
   */
  plan(keys: PlannedKeys, earlier: readonly number[] | null = null, outdated: ((rank: number) => boolean) | null = null): void {
    const before = this.slotOfRank;
    this.order = keys;
    this.rankOf = null;
    this.slotOfRank = new Int32Array(keys.length).fill(NONE);
    this.failing.clear();
    this.loggedPlanned = 0;
    // A new run's log holds no candidate yet: there is nothing to look up.
    if (this.log.candidateLines === 0) return;
    for (let rank = 0; rank < keys.length; rank++) {
      const slot = earlier === null ? this.log.slotOf(keys.key(rank)) : (before[earlier[rank]!] ?? NONE);
      if (slot < 0 || outdated?.(rank) === true) continue;
      this.slotOfRank[rank] = slot;
      this.loggedPlanned++;
      const handle = this.handleOf(slot);
      if (handle !== NONE) this.failing.noteCounted(rank, slot, this.store.failingCount(handle), () => this.store.rowsOf(handle));
    }
  }

  /**
   * Appends a candidate to the run log, as its record texts, and keeps its
   * rows for the reporters. `rank`: its place in the plan, when the caller
   * knows it (null: found by its key, if it is planned).
   */
  record(key: string, rows: readonly CandidateRow[], records: readonly Uint8Array[], rank: number | null = null): void {
    const slot = this.log.appendCandidate(quoteKey(key), records);
    this.keepRows(slot, rows);
    const planned = this.noteLogged(rank ?? this.rankOfKey(key), slot);
    this.failing.note(planned ?? Number.MAX_SAFE_INTEGER, slot, rows);
  }

  /**
   * Appends the candidates of a worker's graded message to the run log, as
   * the bytes the worker wrote, and keeps their rows as the numbers they
   * came as: candidate j by its key as the log writes it, `keyOf(j)`
   * (quoteKey), skipped when that is null, and of rank `rankOf(j)` in the
   * plan when the caller knows it. `recorded` hears each one appended: the
   * tests it ran and passed, and a way to its rows.
   */
  recordGraded(
    m: GradedMessage,
    keyOf: (j: number) => QuotedKey | null,
    rankOf: ((j: number) => number) | null,
    recorded: (tests: number, passed: number, rows: () => CandidateRow[]) => void,
  ): void {
    for (let j = 0; j < m.count; j++) {
      const key = keyOf(j);
      if (key === null) continue;
      const rowStart = firstRow(m, j);
      const rowEnd = m.rowEnds[j]!;
      const slot = this.log.appendJoined(key, m.payload, gradedStart(m, j), m.joinedEnds[j]!, m.recordEnds, rowStart, rowEnd);
      const efficiency = m.efficiency;
      const handle = this.store.addFlatCandidate(m.rows, rowStart, rowEnd, m.strings, efficiency === null ? undefined : (row) => efficiency.get(row));
      this.keepHandle(slot, handle);
      const planned = this.noteLogged(rankOf === null ? this.rankOfKey(unquoteKey(key)) : rankOf(j), slot);
      this.failing.noteCounted(planned ?? Number.MAX_SAFE_INTEGER, slot, this.store.failingCount(handle), () => this.store.rowsOf(handle));
      recorded(this.store.testsOf(handle), this.store.passedOf(handle), () => this.store.rowsOf(handle));
    }
  }

  /** The same for results held as objects (merged shards); their rows. */
  recordResults(key: string, results: readonly CandidateResult[]): CandidateRow[] {
    const rows = results.map(candidateRow);
    this.record(key, rows, results.map(recordBytes));
    return rows;
  }

  has(key: string): boolean {
    return this.log.has(key);
  }

  /** Whether the planned candidate of this rank is logged. */
  isLogged(rank: number): boolean {
    return (this.slotOfRank[rank] ?? NONE) !== NONE;
  }

  /**
   * The same, each made as it is asked for: a pass over a large run's rows
   * that keeps none of them leaves nothing for the garbage collector to copy.
   */
  *eachRow(): Generator<CandidateRow> {
    for (const slot of this.slotOfRank) {
      const handle = this.handleOf(slot);
      if (handle === NONE) continue;
      for (let i = handle, end = handle + this.store.spanOf(handle); i < end; i++) yield this.store.rowAt(i);
    }
  }

  /**
   * Counts the rows of the planned candidates that finished, in input order,
   * as `eachRow` gives them, each handed to `counter` (RowStore.countRows).
   */
  countRows(counter: RowCounter): RowCounts {
    const handles = new Int32Array(this.slotOfRank.length);
    let length = 0;
    for (const slot of this.slotOfRank) {
      const handle = this.handleOf(slot);
      if (handle !== NONE) handles[length++] = handle;
    }
    return this.store.countRows(handles, length, counter);
  }

  /** Rows of the planned candidates that finished, in input order. */
  rows(): CandidateRow[] {
    return [...this.eachRow()];
  }

  /** Planned candidates that have not finished. */
  missing(): number {
    return this.order.length - this.loggedPlanned;
  }

  failingTests(): { shown: FailureRow[]; total: number } {
    return this.failing.result((slot) => this.log.resultsAt(slot));
  }

  /** Full results of the finished candidates, in input order, read back from the log one candidate at a time. */
  *results(): Generator<CandidateResult> {
    for (const slot of this.slotOfRank) yield* this.log.resultsAt(slot);
  }

  /** The same, as JSON text in UTF-8 bytes, each handed to `visit` in place (RunOutcome.resultRecords). */
  resultRecords(visit: VisitRecord): void {
    this.log.visitResults(this.slotOfRank, visit);
  }

  /**
   * Notes a candidate's line (`slot`) by its rank in the plan, undefined when
   * it is not planned; returns that rank. Before the plan, a rank is the
   * caller's own (`plan`'s `earlier`), and the count of planned lines waits
   * for the plan.
   */
  private noteLogged(planned: number | undefined, slot: number): number | undefined {
    if (planned === undefined) return undefined;
    if (planned >= this.slotOfRank.length) {
      const had = this.slotOfRank.length;
      this.slotOfRank = grown(this.slotOfRank, Math.max(planned + 1, had * 2)).fill(NONE, had);
    }
    if (this.slotOfRank[planned] === NONE) this.loggedPlanned++;
    this.slotOfRank[planned] = slot;
    return planned;
  }

  private rankOfKey(key: string): number | undefined {
    if (this.order.length === 0) return undefined;
    if (this.rankOf === null) {
      // The last rank of a key that is planned twice, as the log's index keeps its last line.
      const ranks = new Map<string, number>();
      for (let rank = 0; rank < this.order.length; rank++) ranks.set(this.order.key(rank), rank);
      this.rankOf = ranks;
    }
    return this.rankOf.get(key);
  }

  private keepRows(slot: number, rows: readonly CandidateRow[]): void {
    if (slot >= 0) this.keepHandle(slot, this.store.addCandidate(rows));
  }

  /** The row store's handle of the rows of the line at `slot` (-1: no line), or -1 when it has none. */
  private handleOf(slot: number): number {
    return slot === NONE ? NONE : (this.rowsOfSlot[slot] ?? NONE);
  }

  private keepHandle(slot: number, handle: number): void {
    const had = this.rowsOfSlot.length;
    if (slot >= had) this.rowsOfSlot = grown(this.rowsOfSlot, Math.max(slot + 1, had * 2)).fill(NONE, had);
    this.rowsOfSlot[slot] = handle;
  }
}

const NONE = -1;

/** Collects rows of the candidate lines of a log being opened (RunLog.resume, RunLog.read). */
export function collectRows(): { rows: Map<string, CandidateRow[]>; visit: (key: string, results: readonly CandidateResult[]) => void } {
  const rows = new Map<string, CandidateRow[]>();
  return { rows, visit: (key, results) => rows.set(key, results.map(candidateRow)) };
}
