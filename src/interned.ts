/**
 * Values given small indexes, each the first time it comes, and held once:
 * a message's table of strings (workers/messages.ts), the models and
 * prompts of the roll-ups (report/aggregate.ts), the strings of
 * submissions given as objects (solutions/submission-columns.ts).
 */
export class Interned<T> {
  private readonly held: T[] = [];
  private readonly indexes = new Map<T, number>();

  /** Every value given an index, by its index. */
  get values(): readonly T[] {
    return this.held;
  }

  /** The value's index, given now if it has none. */
  of(value: T): number {
    let index = this.indexes.get(value);
    if (index === undefined) {
      index = this.held.length;
      this.held.push(value);
      this.indexes.set(value, index);
    }
    return index;
  }

  at(index: number): T {
    return this.held[index]!;
  }
}

/** The list with nothing in it, shared and frozen. */
export const NO_STRINGS: readonly string[] = Object.freeze([]);

/**
 * Lists of strings kept for a whole run, such as a problem's tags, held
 * once however many problems give the same list: most give none, and tags
 * repeat across a problem set. Each list held is frozen, since many own it.
 * Past `limit` distinct lists it starts over, so lists that never repeat
 * cost a lookup and nothing more.
 */
export class SharedLists {
  private readonly byKey = new Map<string, readonly string[]>();

  constructor(private readonly limit = 4096) {}

  share(list: readonly string[]): readonly string[] {
    if (list.length === 0) return NO_STRINGS;
    const key = JSON.stringify(list);
    const held = this.byKey.get(key);
    if (held !== undefined) return held;
    if (this.byKey.size >= this.limit) this.byKey.clear();
    const frozen = Object.freeze(list.slice());
    this.byKey.set(key, frozen);
    return frozen;
  }
}
