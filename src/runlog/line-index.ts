/**
 * Where each candidate's line lies in the run log, by key, kept as columns
 * of numbers rather than an object per line: the index lives as long as
 * the run, and objects that live long are copied by the garbage collector
 * as they age, work the supervisor would do per candidate.
 */
import { grown } from '../typed-arrays.js';

/** Where a line's results lie: each result's start and end in the line (bytes), for lines this process wrote; null for lines of an earlier run, which are parsed. */
export type Cuts = readonly number[] | null;

export class LineIndex {
  private readonly slots = new Map<string, number>();
  private offsets = new Float64Array(256);
  private lengths = new Float64Array(256);
  /**
   * A line this process wrote with one result: where that result starts
   * (it ends before the line's closing `]}` and newline). -1: an earlier
   * run's line; -2: a line whose cuts are in `manyCuts`.
   */
  private firstCut = new Int32Array(256);
  private readonly manyCuts = new Map<number, number[]>();
  private count = 0;

  has(key: string): boolean {
    return this.slots.has(key);
  }

  /** Indexes a line; returns its slot. Slots are given in the order lines are set, from 0. */
  set(key: string, offset: number, length: number, cuts: Cuts): number {
    const slot = this.count;
    if (slot === this.offsets.length) this.grow();
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
    if (cuts === null) this.firstCut[slot] = EARLIER_RUN;
    else if (cuts.length === 2 && cuts[1] === length - LINE_TAIL_BYTES) this.firstCut[slot] = cuts[0]!;
    else {
      this.firstCut[slot] = MANY;
      this.manyCuts.set(slot, [...cuts]);
    }
    this.count++;
    this.slots.set(key, slot);
    return slot;
  }

  /** A logged line's slot, for the accessors below; -1 when the key is not logged. */
  slot(key: string): number {
    return this.slots.get(key) ?? -1;
  }

  /** Where the line of `slot` starts in the log, and its length in bytes. */
  offsetOf(slot: number): number {
    return this.offsets[slot]!;
  }

  lengthOf(slot: number): number {
    return this.lengths[slot]!;
  }

  /**
   * Calls `visit` with where each result of the line lies in it (bytes from
   * the line's start, end excluded), in order. False, and no call, for a
   * line of an earlier run, whose results are not cut.
   */
  eachCut(slot: number, visit: (start: number, end: number) => void): boolean {
    const first = this.firstCut[slot]!;
    if (first === EARLIER_RUN) return false;
    if (first !== MANY) {
      visit(first, this.lengths[slot]! - LINE_TAIL_BYTES);
      return true;
    }
    const cuts = this.manyCuts.get(slot)!;
    for (let i = 0; i < cuts.length; i += 2) visit(cuts[i]!, cuts[i + 1]!);
    return true;
  }

  private grow(): void {
    const capacity = this.offsets.length * 2;
    this.offsets = grown(this.offsets, capacity);
    this.lengths = grown(this.lengths, capacity);
    this.firstCut = grown(this.firstCut, capacity);
  }
}

/** How a candidate line ends: its results array, the line's object, the line. */
export const LINE_END = Buffer.from(']}\n');
const LINE_TAIL_BYTES = LINE_END.length;
const EARLIER_RUN = -1;
const MANY = -2;
