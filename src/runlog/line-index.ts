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
  /**
   * Each line's key, by slot, and the map from a key to its last line's
   * slot, made the first time a key is asked for. A run that grades its own
   * plan finds its lines by slot (Tally); only reading a log back or
   * resuming one asks by key, and a map entry per line would be work the
   * supervisor does per candidate for nothing.
   */
  private readonly keys: string[] = [];
  private slots: Map<string, number> | null = null;
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

  /** How many lines are indexed. */
  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    return this.bySlot().has(key);
  }

  /** Indexes a line; returns its slot. Slots are given in the order lines are set, from 0. */
  set(key: string, offset: number, length: number, cuts: Cuts): number {
    if (cuts === null) return this.add(key, offset, length, EARLIER_RUN);
    if (cuts.length === 2 && cuts[1] === length - LINE_TAIL_BYTES) return this.add(key, offset, length, cuts[0]!);
    const slot = this.add(key, offset, length, MANY);
    this.manyCuts.set(slot, [...cuts]);
    return slot;
  }

  /** The same for a line this process wrote with one result, which starts at `start` (its cuts, without a list of them). */
  setOne(key: string, offset: number, length: number, start: number): number {
    return this.add(key, offset, length, start);
  }

  private add(key: string, offset: number, length: number, firstCut: number): number {
    const slot = this.count;
    if (slot === this.offsets.length) this.grow();
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
    this.firstCut[slot] = firstCut;
    this.count++;
    this.keys.push(key);
    this.slots?.set(key, slot);
    return slot;
  }

  /** A logged line's slot, for the accessors below; -1 when the key is not logged. */
  slot(key: string): number {
    return this.bySlot().get(key) ?? -1;
  }

  private bySlot(): Map<string, number> {
    if (this.slots === null) {
      // In slot order, so that a key logged twice maps to its last line.
      const slots = new Map<string, number>();
      this.keys.forEach((key, slot) => slots.set(key, slot));
      this.slots = slots;
    }
    return this.slots;
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
