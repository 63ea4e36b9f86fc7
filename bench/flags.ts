/** A bench flag's value that must be a positive whole number; throws naming the flag otherwise. */
export function positiveCount(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs a positive whole number, got ${String(value)}`);
  return n;
}
