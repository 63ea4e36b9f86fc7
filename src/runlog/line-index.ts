/**
 * Where each candidate's line lies in the run log, by key, kept as columns
 * of numbers rather than an object per line: the index lives as long as
 * the run, and objects that live long are copied by the garbage collector
 * as they age, work the supervisor would do per candidate.
 */
import { unquoteKey, type QuotedKey } from './candidate-key.js';
import { grown } from '../typed-arrays.js';

export class LineIndex {
  /**
   * The keys of lines of an earlier run, by slot; the map from a key to its
   * last line's slot, made the first time a key is asked for. A line this
   * process wrote keeps no key here: a run that grades its own plan finds
   * its lines by slot (Tally), and a key kept for every line is memory that
   * grows with the run and is copied by the garbage collector as it ages.
   * Asked for by key, such a line's key is read back from the line
   * (`readKey`, given where its head ends).
   */
  private readonly earlierKeys = new Map<number, string>();
  private slots: Map<string, number> | null = null;
  private offsets = new Float64Array(256);
  private lengths = new Float64Array(256);
  /**
   * A line this process wrote with one result: where that result starts
   * (it ends before the line's closing `]}` and newline). -1: an earlier
   * run's line; -2: a line whose cuts are in `manyCuts`.
   */
  private firstCut = new Int32Array(256);
  /** A line this process wrote: the length of its head, up to its results (its key ends before it). */
  private heads = new Int32Array(256);
  private readonly manyCuts = new Map<number, number[]>();
  private count = 0;

  /** `readKey`: the key of a line this process wrote, read back from the log, given the line's offset and its head's length. */
  constructor(private readonly readKey: (offset: number, head: number) => string) {}

  /** How many lines are indexed. */
  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    return this.bySlot().has(key);
  }

  /** Indexes a line of an earlier run, by its key; returns its slot. Slots are given in the order lines are set, from 0. */
  setEarlier(key: string, offset: number, length: number): number {
    const slot = this.add(offset, length, EARLIER_RUN, 0);
    this.earlierKeys.set(slot, key);
    this.slots?.set(key, slot);
    return slot;
  }

  /**
   * Indexes a line this process wrote, by its key as the line holds it
   * (quoteKey): its head's length, and its results' cuts (start and end of
   * each, from the line's start).
   */
  set(key: QuotedKey, offset: number, length: number, head: number, cuts: readonly number[]): number {
    const one = cuts.length === 2 && cuts[1] === length - LINE_TAIL_BYTES;
    const slot = this.add(offset, length, one ? cuts[0]! : MANY, head);
    if (!one) this.manyCuts.set(slot, [...cuts]);
    this.slots?.set(unquoteKey(key), slot);
    return slot;
  }

  /** The same for a line this process wrote with one result, which starts right after its head. */
  setOne(key: QuotedKey, offset: number, length: number, head: number): number {
    const slot = this.add(offset, length, head, head);
    this.slots?.set(unquoteKey(key), slot);
    return slot;
  }

  private add(offset: number, length: number, firstCut: number, head: number): number {
    const slot = this.count;
    if (slot === this.offsets.length) this.grow();
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
    this.firstCut[slot] = firstCut;
    this.heads[slot] = head;
    this.count++;
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
      for (let slot = 0; slot < this.count; slot++) slots.set(this.earlierKeys.get(slot) ?? this.readKey(this.offsets[slot]!, this.heads[slot]!), slot);
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
   * Calls `visit` with each result of the line, the line being
   * `bytes[from, ...)`: the result's bytes are `bytes[start, end)`. In order;
   * false, and no call, for a line of an earlier run, whose results are not
   * cut.
   */
  eachCut(slot: number, bytes: Uint8Array, from: number, visit: (bytes: Uint8Array, start: number, end: number) => void): boolean {
    const first = this.firstCut[slot]!;
    if (first === EARLIER_RUN) return false;
    if (first !== MANY) {
      visit(bytes, from + first, from + this.lengths[slot]! - LINE_TAIL_BYTES);
      return true;
    }
    const cuts = this.manyCuts.get(slot)!;
    for (let i = 0; i < cuts.length; i += 2) visit(bytes, from + cuts[i]!, from + cuts[i + 1]!);
    return true;
  }

  /** Makes room for `lines` lines in all, when the run knows how many to expect (RowStore.reserve says why). */
  reserve(lines: number): void {
    if (lines > this.offsets.length) this.resize(lines);
  }

  private grow(): void {
    this.resize(this.offsets.length * 2);
  }

  private resize(capacity: number): void {
    this.offsets = grown(this.offsets, capacity);
    this.lengths = grown(this.lengths, capacity);
    this.firstCut = grown(this.firstCut, capacity);
    this.heads = grown(this.heads, capacity);
  }
}

/** How a candidate line ends: its results array, the line's object, the line. */
export const LINE_END = Buffer.from(']}\n');
const LINE_TAIL_BYTES = LINE_END.length;
const EARLIER_RUN = -1;
const MANY = -2;
