/**
 * The run's candidates in plan order, which is the scorecard's order
 * whatever order they finish in: a row for each one graded (its results
 * stay in the run log), and the failing tests the table shows.
 */
import { FailingTests, type FailureRow } from '../report/failing-tests.js';
import { RowStore } from '../report/row-store.js';
import { candidateRow, type CandidateRow } from '../report/rows.js';
import type { VisitRecord } from '../report/reporter.js';
import type { CandidateResult } from '../report/scorecard.js';
import type { RunLog } from '../runlog/run-log.js';
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
  private order: readonly string[] = [];
  private readonly rankOf = new Map<string, number>();
  /** Whether each planned candidate (by rank) is logged, for `missing`. */
  private loggedRanks = new Uint8Array(0);
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
   * Declares the candidates in input order. Failing tests of candidates
   * already in the log are ranked again, reading their lines back.
   */
  plan(keys: readonly string[]): void {
    this.order = [...keys];
    this.rankOf.clear();
    this.loggedRanks = new Uint8Array(keys.length);
    this.failing.clear();
    this.loggedPlanned = 0;
    keys.forEach((key, rank) => {
      this.rankOf.set(key, rank);
      const slot = this.log.slotOf(key);
      if (slot < 0) return;
      this.loggedRanks[rank] = 1;
      this.loggedPlanned++;
      const handle = this.rowsOfSlot[slot] ?? NONE;
      if (handle !== NONE) this.failing.noteCounted(rank, key, this.store.failingCount(handle), () => this.store.rowsOf(handle));
    });
  }

  /**
   * Appends a candidate to the run log, as its record texts, and keeps its
   * rows for the reporters.
   */
  record(key: string, rows: readonly CandidateRow[], records: readonly Uint8Array[]): void {
    const slot = this.log.appendCandidate(key, records);
    this.keepRows(slot, rows);
    const rank = this.noteLogged(key);
    this.failing.note(rank ?? Number.MAX_SAFE_INTEGER, key, rows);
  }

  /**
   * Appends the candidates of a worker's graded message to the run log, as
   * the bytes the worker wrote, and keeps their rows as the numbers they
   * came as: candidate j by `keyOf(j)`, skipped when that is null.
   * `recorded` hears each one appended, with a way to its rows.
   */
  recordGraded(m: GradedMessage, keyOf: (j: number) => string | null, recorded: (key: string, rows: () => CandidateRow[]) => void): void {
    for (let j = 0; j < m.count; j++) {
      const key = keyOf(j);
      if (key === null) continue;
      const rowStart = firstRow(m, j);
      const rowEnd = m.rowEnds[j]!;
      const slot = this.log.appendJoined(key, m.payload, gradedStart(m, j), m.joinedEnds[j]!, m.recordEnds, rowStart, rowEnd);
      const efficiency = m.efficiency;
      const handle = this.store.addFlatCandidate(m.rows, rowStart, rowEnd, m.strings, efficiency === null ? undefined : (row) => efficiency.get(row));
      this.keepHandle(slot, handle);
      const rank = this.noteLogged(key);
      this.failing.noteCounted(rank ?? Number.MAX_SAFE_INTEGER, key, this.store.failingCount(handle), () => this.store.rowsOf(handle));
      recorded(key, () => this.store.rowsOf(handle));
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

  /** Whether the key is one of the plan's (`plan`). */
  isPlanned(key: string): boolean {
    return this.rankOf.has(key);
  }

  /** Rows of the planned candidates that finished, in input order. */
  rows(): CandidateRow[] {
    const rows: CandidateRow[] = [];
    for (const key of this.order) {
      const slot = this.log.slotOf(key);
      const handle = slot === NONE ? NONE : (this.rowsOfSlot[slot] ?? NONE);
      if (handle !== NONE) this.store.pushRows(handle, rows);
    }
    return rows;
  }

  /** Planned candidates that have not finished. */
  missing(): number {
    return this.order.length - this.loggedPlanned;
  }

  failingTests(): { shown: FailureRow[]; total: number } {
    return this.failing.result((key) => this.log.results(key));
  }

  /** Full results of the finished candidates, in input order, read back from the log one candidate at a time. */
  *results(): Generator<CandidateResult> {
    for (const key of this.order) yield* this.log.resultsAt(this.log.slotOf(key));
  }

  /** The same, as JSON text in UTF-8 bytes, each handed to `visit` in place (RunOutcome.resultRecords). */
  resultRecords(visit: VisitRecord): void {
    for (const key of this.order) this.log.visitResultsAt(this.log.slotOf(key), visit);
  }

  /** Counts a planned key as logged, once; its rank, or undefined when it is not planned. */
  private noteLogged(key: string): number | undefined {
    const rank = this.rankOf.get(key);
    if (rank !== undefined && this.loggedRanks[rank] === 0) {
      this.loggedRanks[rank] = 1;
      this.loggedPlanned++;
    }
    return rank;
  }

  private keepRows(slot: number, rows: readonly CandidateRow[]): void {
    if (slot >= 0) this.keepHandle(slot, this.store.addCandidate(rows));
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
