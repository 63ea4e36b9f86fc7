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

  set(key: string, offset: number, length: number, cuts: Cuts): void {
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
  }

  /** A logged line's place, and its results' cuts. */
  get(key: string): { offset: number; length: number; cuts: Cuts } | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const length = this.lengths[slot]!;
    const first = this.firstCut[slot]!;
    const cuts = first === EARLIER_RUN ? null : first === MANY ? this.manyCuts.get(slot)! : [first, length - LINE_TAIL_BYTES];
    return { offset: this.offsets[slot]!, length, cuts };
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
