/**
 * Candidate rows kept for the whole run as columns of numbers, with each
 * distinct string held once. A run keeps a row per candidate until its
 * scorecards are written; as objects, every row and its strings would be
 * copied by the garbage collector as they age, and that copying is work the
 * supervisor does per candidate, which bounds the cores a run can use.
 * Here a row costs a few slots in typed arrays and no object.
 */
import type { CandidateRow, RowEfficiency } from './rows.js';
import type { CandidateStatus } from './scorecard.js';
import { grown } from '../typed-arrays.js';

const STATUSES: readonly CandidateStatus[] = ['passed', 'failed', 'load-error', 'unsupported', 'no-tests'];
const STATUS_CODE = new Map(STATUSES.map((s, i) => [s, i] as const));
const PASSED = STATUS_CODE.get('passed')!;
const FAILED = STATUS_CODE.get('failed')!;

/** Number fields of a row, in this order. */
const NUMBERS = 8;
/** String fields of a row (an index into the strings, or -1 for null), in this order. */
const STRINGS = 7;
const NULL = -1;

export class RowStore {
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  private numbers = new Float64Array(NUMBERS * 64);
  private refs = new Int32Array(STRINGS * 64);
  private statuses = new Uint8Array(64);
  /** On a candidate's first row, how many rows it has (0 on the others). */
  private spans = new Uint32Array(64);
  /** Only rows of a run that measures have one. */
  private readonly efficiency = new Map<number, RowEfficiency>();
  private count = 0;

  /** Keeps a candidate's rows; returns the handle `rowsOf` takes. */
  addCandidate(rows: readonly CandidateRow[]): number {
    const first = this.count;
    for (const row of rows) this.add(row);
    // A candidate without rows still takes a slot, so that its handle is its own.
    if (rows.length === 0) this.add(EMPTY);
    this.spans[first] = rows.length;
    return first;
  }

  /** The rows of the candidate `addCandidate` returned this handle for, as new objects. */
  rowsOf(handle: number): CandidateRow[] {
    return this.pushRows(handle, []);
  }

  /** The same, pushed onto `into`; returns it. */
  pushRows(handle: number, into: CandidateRow[]): CandidateRow[] {
    const end = handle + this.spans[handle]!;
    for (let i = handle; i < end; i++) into.push(this.get(i));
    return into;
  }

  /** The failing tests of the candidate of this handle (failing-tests.ts `failingCount`), read without making its rows. */
  failingCount(handle: number): number {
    let count = 0;
    for (let i = handle; i < handle + this.spans[handle]!; i++) {
      const status = this.statuses[i]!;
      if (status !== PASSED && status !== FAILED) continue;
      const n = i * NUMBERS;
      count += this.numbers[n + 1]! - this.numbers[n]! - this.numbers[n + 7]!;
    }
    return count;
  }

  private add(row: CandidateRow): void {
    const at = this.count;
    if (at === this.statuses.length) this.grow();
    const n = at * NUMBERS;
    const numbers = this.numbers;
    numbers[n] = row.passed;
    numbers[n + 1] = row.total;
    numbers[n + 2] = row.duration_ms;
    numbers[n + 3] = row.counts.fail;
    numbers[n + 4] = row.counts.error;
    numbers[n + 5] = row.counts.timeout;
    numbers[n + 6] = row.counts.memory;
    numbers[n + 7] = row.counts.skipped;
    const s = at * STRINGS;
    const refs = this.refs;
    refs[s] = this.id(row.problem_id);
    refs[s + 1] = this.id(row.model_id);
    refs[s + 2] = this.id(row.prompt_id);
    refs[s + 3] = this.id(row.sample_id);
    refs[s + 4] = this.id(row.language);
    refs[s + 5] = this.id(row.error);
    refs[s + 6] = this.id(row.entry_point);
    const status = STATUS_CODE.get(row.status);
    if (status === undefined) throw new Error(`a row with an unknown status ${JSON.stringify(row.status)}`);
    this.statuses[at] = status;
    if (row.efficiency !== undefined) this.efficiency.set(at, row.efficiency);
    this.count++;
  }

  private get(index: number): CandidateRow {
    if (!(index >= 0 && index < this.count)) throw new RangeError(`no row ${index}`);
    const n = index * NUMBERS;
    const numbers = this.numbers;
    const s = index * STRINGS;
    const refs = this.refs;
    const status = STATUSES[this.statuses[index]!]!;
    const row: CandidateRow = {
      problem_id: this.text(refs[s]!)!,
      model_id: this.text(refs[s + 1]!)!,
      prompt_id: this.text(refs[s + 2]!),
      sample_id: this.text(refs[s + 3]!),
      language: this.text(refs[s + 4]!)!,
      status,
      error: this.text(refs[s + 5]!),
      entry_point: this.text(refs[s + 6]!),
      passed: numbers[n]!,
      total: numbers[n + 1]!,
      duration_ms: numbers[n + 2]!,
      counts: { fail: numbers[n + 3]!, error: numbers[n + 4]!, timeout: numbers[n + 5]!, memory: numbers[n + 6]!, skipped: numbers[n + 7]! },
      ran: status === 'passed' || status === 'failed',
    };
    const efficiency = this.efficiency.get(index);
    if (efficiency !== undefined) row.efficiency = efficiency;
    return row;
  }

  private id(text: string | null): number {
    if (text === null) return NULL;
    let id = this.stringIds.get(text);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(text);
      this.stringIds.set(text, id);
    }
    return id;
  }

  private text(id: number): string | null {
    return id === NULL ? null : this.strings[id]!;
  }

  private grow(): void {
    const capacity = this.statuses.length * 2;
    this.numbers = grown(this.numbers, capacity * NUMBERS);
    this.refs = grown(this.refs, capacity * STRINGS);
    this.statuses = grown(this.statuses, capacity);
    this.spans = grown(this.spans, capacity);
  }
}

const EMPTY: CandidateRow = {
  problem_id: '',
  model_id: '',
  prompt_id: null,
  sample_id: null,
  language: '',
  status: 'no-tests',
  error: null,
  entry_point: null,
  passed: 0,
  total: 0,
  duration_ms: 0,
  counts: { fail: 0, error: 0, timeout: 0, memory: 0, skipped: 0 },
  ran: false,
};
