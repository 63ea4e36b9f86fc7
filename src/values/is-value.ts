/** Telling data (a {@link Value}) from anything else a value may be: cycles, class instances, functions. */

import type { Value } from './type-node.js';

/** True when `value` is a {@link Value}: JSON data plus non-finite numbers. */
export function isValue(value: unknown): value is Value {
  try {
    return checkValue(value);
  } catch {
    // Proxies and throwing getters are not data.
    return false;
  }
}

/**
 * Iterative so that values nested tens of thousands of levels deep are
 * checked without exhausting the stack. Rejects cycles: a Value is a tree.
 */
function checkValue(root: unknown): boolean {
  const onPath = new Set<object>();
  // Each entry is a value to visit, or an `exit` marker that ends its visit.
  const stack: Array<{ value: unknown } | { exit: object }> = [{ value: root }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if ('exit' in entry) {
      onPath.delete(entry.exit);
      continue;
    }
    const value = entry.value;
    if (value === null) continue;
    const kind = typeof value;
    if (kind === 'boolean' || kind === 'number' || kind === 'string' || kind === 'bigint') continue;
    if (kind !== 'object') return false;
    const obj = value as object;
    if (onPath.has(obj)) return false;
    if (Array.isArray(obj)) {
      onPath.add(obj);
      stack.push({ exit: obj });
      for (let i = 0; i < obj.length; i++) stack.push({ value: (obj as unknown[])[i] });
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) return false;
    onPath.add(obj);
    stack.push({ exit: obj });
    for (const key of Object.keys(obj)) stack.push({ value: (obj as Record<string, unknown>)[key] });
  }
  return true;
}
