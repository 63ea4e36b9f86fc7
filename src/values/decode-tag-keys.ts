/**
 * A problem file's own JSON objects may have a `$evalrun` key, which would
 * make them read as tags (py-tags.ts): where a value is taken as given
 * (`Any`), such objects become dict tags, so that they stay data.
 */

import { dict, isMadeTag, orderedDict, tagOf, WIRE_TAG, type DictTag } from './py-tags.js';
import { setOwn } from './python-literal.js';
import type { Value } from './type-node.js';

/** Whether any object inside has a `$evalrun` key; iterative, as values may nest deeply. */
export function hasTagKey(raw: Value): boolean {
  const stack: Value[] = [raw];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
      continue;
    }
    if (isMadeTag(v)) {
      // The loader's own tags: only a dict's values can hold the file's objects.
      if (tagOf(v) === 'dict') for (const [, item] of (v as unknown as DictTag).entries) stack.push(item);
      continue;
    }
    if (Object.hasOwn(v, WIRE_TAG)) return true;
    for (const key of Object.keys(v)) stack.push(v[key]!);
  }
  return false;
}

/** `raw` with every object that has a `$evalrun` key turned into a dict tag; `raw` itself when there is none. */
export function escapeTagKeys(raw: Value): Value {
  if (raw === null || typeof raw !== 'object') return raw;
  if (isMadeTag(raw)) {
    if (tagOf(raw) !== 'dict') return raw;
    const entries = (raw as unknown as DictTag).entries;
    const items = entries.map(([, item]) => escapeTagKeys(item));
    return items.every((item, i) => item === entries[i]![1]) ? raw : orderedDict(entries.map(([key], i) => [key, items[i]!]));
  }
  if (Array.isArray(raw)) {
    let out: Value[] | null = null;
    for (let i = 0; i < raw.length; i++) {
      const item = escapeTagKeys(raw[i]!);
      if (out === null && item !== raw[i]) out = raw.slice(0, i);
      if (out !== null) out.push(item);
    }
    return out ?? raw;
  }
  const keys = Object.keys(raw);
  const items = keys.map((key) => escapeTagKeys(raw[key]!));
  if (Object.hasOwn(raw, WIRE_TAG)) return dict(keys.map((key, i) => [key, items[i]!]));
  if (items.every((item, i) => item === raw[keys[i]!])) return raw;
  const out: { [key: string]: Value } = {};
  keys.forEach((key, i) => setOwn(out, key, items[i]!));
  return out;
}
