/**
 * One-line displays of arbitrary values, for result tables and error messages,
 * plus a canonical key for values (used to deduplicate and match sets).
 */

import { tagOf, type DictTag, type FloatTag, type SetTag, type TupleTag } from './py-tags.js';
import type { Value } from './type-node.js';

const DEFAULT_MAX_LENGTH = 60;
const ELLIPSIS = '…';
/** Past this depth a nested value is shown as `…`; keeps deep values off the stack. */
const MAX_RENDER_DEPTH = 200;
/** Past this depth {@link valueKey} gives up; callers then treat the value as unique. */
const MAX_KEY_DEPTH = 200;

/**
 * A compact, JSON-like, single-line rendering of `value`: `[1, 2, 3]`,
 * `{"a": 1}`, `"text"`, `NaN`, `-Infinity`, `undefined`. At most `maxLength`
 * characters (default 60); longer renderings end in `…`. Pass `Infinity` for
 * no limit. Never throws, even for cycles, proxies or throwing getters.
 */
export function formatValue(value: unknown, maxLength: number = DEFAULT_MAX_LENGTH): string {
  const limit = normaliseLimit(maxLength);
  let text: string;
  try {
    // One character past the limit is enough to know that truncation is due.
    const out = new Output(limit === Infinity ? Infinity : limit + 1);
    render(value, out, 0, new Set<object>());
    text = out.text();
  } catch {
    text = '[unprintable]';
  }
  return truncate(text, limit);
}

function normaliseLimit(maxLength: number): number {
  if (maxLength === Infinity) return Infinity;
  if (typeof maxLength !== 'number' || Number.isNaN(maxLength)) return DEFAULT_MAX_LENGTH;
  return Math.max(1, Math.floor(maxLength));
}

function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = limit - 1;
  // Never leave half of a surrogate pair before the ellipsis.
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + ELLIPSIS;
}

/** Collects output and lets the renderer stop as soon as the budget is spent. */
class Output {
  private readonly parts: string[] = [];
  private length = 0;

  constructor(private readonly budget: number) {}

  get full(): boolean {
    return this.length >= this.budget;
  }

  get remaining(): number {
    return this.budget - this.length;
  }

  push(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }

  text(): string {
    return this.parts.join('');
  }
}

function render(value: unknown, out: Output, depth: number, ancestors: Set<object>): void {
  if (out.full) return;
  switch (typeof value) {
    case 'string':
      out.push(renderString(value, out.remaining));
      return;
    case 'number':
      out.push(renderNumber(value));
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'undefined':
      out.push('undefined');
      return;
    case 'symbol':
      out.push(value.toString());
      return;
    case 'function':
      out.push(renderFunction(value));
      return;
    case 'object':
      if (value === null) {
        out.push('null');
        return;
      }
      renderObject(value, out, depth, ancestors);
      return;
  }
}

function renderString(text: string, remaining: number): string {
  // Long strings would be truncated anyway: do not escape megabytes to show 60 characters.
  const shown = text.length > remaining + 2 ? text.slice(0, remaining + 2) : text;
  return JSON.stringify(shown);
}

function renderNumber(n: number): string {
  return Object.is(n, -0) ? '-0' : String(n);
}

function renderFunction(fn: unknown): string {
  let name = '';
  try {
    const raw = (fn as { name?: unknown }).name;
    if (typeof raw === 'string') name = raw;
  } catch {
    // A proxy may throw on any property access; the description stays generic.
  }
  return name ? `[function ${name}]` : '[function]';
}

function renderObject(obj: object, out: Output, depth: number, ancestors: Set<object>): void {
  if (ancestors.has(obj)) {
    out.push('[Circular]');
    return;
  }
  if (depth >= MAX_RENDER_DEPTH) {
    out.push(ELLIPSIS);
    return;
  }
  ancestors.add(obj);
  try {
    renderContainer(obj, out, depth, ancestors);
  } finally {
    ancestors.delete(obj);
  }
}

function renderContainer(obj: object, out: Output, depth: number, ancestors: Set<object>): void {
  if (Array.isArray(obj)) {
    renderSequence('[', obj, ']', out, depth, ancestors);
    return;
  }
  if (obj instanceof Date) {
    out.push(Number.isNaN(obj.getTime()) ? 'Date(invalid)' : `Date(${obj.toISOString()})`);
    return;
  }
  if (obj instanceof RegExp) {
    out.push(String(obj));
    return;
  }
  if (obj instanceof Error) {
    out.push(`${obj.name}: ${obj.message}`);
    return;
  }
  if (obj instanceof Map) {
    out.push(`Map(${obj.size}) {`);
    let first = true;
    for (const [key, item] of obj) {
      if (out.full) return;
      if (!first) out.push(', ');
      first = false;
      render(key, out, depth + 1, ancestors);
      out.push(' => ');
      render(item, out, depth + 1, ancestors);
    }
    out.push('}');
    return;
  }
  if (obj instanceof Set) {
    renderSequence(`Set(${obj.size}) {`, obj, '}', out, depth, ancestors);
    return;
  }
  if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) {
    out.push(`${constructorName(obj) ?? 'ArrayBuffer'}(${obj.byteLength} bytes)`);
    return;
  }
  if (renderTag(obj, out, depth, ancestors)) return;
  renderPlainObject(obj, out, depth, ancestors);
}

/** Python's kinds as Python writes them: `(1, 2)`, `{1, 2}`, `frozenset({1})`, `{1: "a"}`, `3.0`. */
function renderTag(obj: object, out: Output, depth: number, ancestors: Set<object>): boolean {
  const tag = tagOf(obj);
  if (tag === 'tuple' && Array.isArray((obj as TupleTag).items)) {
    const items = (obj as TupleTag).items;
    renderSequence('(', items, items.length === 1 ? ',)' : ')', out, depth, ancestors);
    return true;
  }
  if ((tag === 'set' || tag === 'frozenset') && Array.isArray((obj as SetTag).items)) {
    const items = (obj as SetTag).items;
    if (items.length === 0) out.push(tag === 'set' ? 'set()' : 'frozenset()');
    else if (tag === 'set') renderSequence('{', items, '}', out, depth, ancestors);
    else renderSequence('frozenset({', items, '})', out, depth, ancestors);
    return true;
  }
  if (tag === 'dict' && Array.isArray((obj as DictTag).entries)) {
    out.push('{');
    let first = true;
    for (const entry of (obj as DictTag).entries) {
      if (out.full) return true;
      if (!first) out.push(', ');
      first = false;
      render(entry[0], out, depth + 1, ancestors);
      out.push(': ');
      render(entry[1], out, depth + 1, ancestors);
    }
    out.push('}');
    return true;
  }
  if (tag === 'float' && typeof (obj as FloatTag).value === 'string') {
    out.push((obj as FloatTag).value);
    return true;
  }
  return false;
}

function renderSequence(
  open: string,
  items: Iterable<unknown>,
  close: string,
  out: Output,
  depth: number,
  ancestors: Set<object>,
): void {
  out.push(open);
  let first = true;
  for (const item of items) {
    if (out.full) return;
    if (!first) out.push(', ');
    first = false;
    render(item, out, depth + 1, ancestors);
  }
  out.push(close);
}

function renderPlainObject(obj: object, out: Output, depth: number, ancestors: Set<object>): void {
  const name = constructorName(obj);
  if (name !== undefined && name !== 'Object') out.push(`${name} `);
  out.push('{');
  let first = true;
  for (const key of Object.keys(obj)) {
    if (out.full) return;
    if (!first) out.push(', ');
    first = false;
    out.push(`${JSON.stringify(key)}: `);
    let item: unknown;
    try {
      item = (obj as Record<string, unknown>)[key];
    } catch {
      out.push('[unreadable]');
      continue;
    }
    render(item, out, depth + 1, ancestors);
  }
  out.push('}');
}

function constructorName(obj: object): string | undefined {
  const proto: unknown = Object.getPrototypeOf(obj);
  if (proto === null) return undefined;
  const ctor: unknown = (proto as { constructor?: unknown }).constructor;
  if (typeof ctor !== 'function') return undefined;
  const name: unknown = ctor.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * A canonical string for a value, equal for structurally equal values: dict
 * key order is ignored, array order is not, `-0` and `0` coincide and NaN
 * equals NaN. Undefined for values that are not {@link Value}s or are nested
 * too deeply; callers treat such values as distinct from everything.
 */
export function valueKey(value: unknown): string | undefined {
  return keyOf(value, 0);
}

function keyOf(value: unknown, depth: number): string | undefined {
  if (value === null) return 'N';
  switch (typeof value) {
    case 'boolean':
      return value ? 'T' : 'F';
    case 'number':
      return `n${String(value)}`;
    case 'bigint':
      return `n${value.toString()}`;
    case 'string':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (depth >= MAX_KEY_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value as unknown[]) {
      const key = keyOf(item, depth + 1);
      if (key === undefined) return undefined;
      parts.push(key);
    }
    return `[${parts.join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const name of Object.keys(record).sort()) {
    const key = keyOf(record[name], depth + 1);
    if (key === undefined) return undefined;
    parts.push(`${JSON.stringify(name)}:${key}`);
  }
  return `{${parts.join(',')}}`;
}

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
