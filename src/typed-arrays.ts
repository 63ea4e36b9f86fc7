/** Typed arrays that grow: columns of numbers kept for a whole run (report/row-store.ts, runlog/line-index.ts). */
export type Column = Float64Array | Int32Array | Uint8Array | Uint32Array;

/** A copy of `array` with room for `length` elements, the new ones zero. */
export function grown<T extends Column>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
