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
