/** One-line displays of arbitrary values, for result tables and error messages. */

import { pythonFloatRepr, tagOf, type DictTag, type FloatTag, type SetTag, type TupleTag } from './py-tags.js';

const DEFAULT_MAX_LENGTH = 60;
const ELLIPSIS = '…';
/** Past this depth a nested value is shown as `…`; keeps deep values off the stack. */
const MAX_RENDER_DEPTH = 200;

/**
 * How a value is written: `json` (JSON-like, for JavaScript candidates and
 * messages) or `python` (as Python's repr writes it: `'text'`, `True`,
 * `None`, `3.0`, `nan`, `(1,)`, `{1: 'a'}`), for Python candidates.
 */
export type ValueStyle = 'json' | 'python';

/** The style a candidate's values are shown in: its own language's. */
export function styleFor(language: string): ValueStyle {
  return language === 'python' ? 'python' : 'json';
}

/**
 * A compact, single-line rendering of `value`: `[1, 2, 3]`, `{"a": 1}`,
 * `"text"`, `NaN`, `-Infinity`, `undefined`, or in Python's style `{'a': 1}`,
 * `'text'`, `nan`. At most `maxLength` characters (default 60); longer
 * renderings end in `…`. Pass `Infinity` for no limit. Never throws, even
 * for cycles, proxies or throwing getters.
 */
export function formatValue(value: unknown, maxLength: number = DEFAULT_MAX_LENGTH, style: ValueStyle = 'json'): string {
  const limit = normaliseLimit(maxLength);
  let text: string;
  try {
    // One character past the limit is enough to know that truncation is due.
    const out = new Output(limit === Infinity ? Infinity : limit + 1, style === 'python');
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

  constructor(
    private readonly budget: number,
    readonly python: boolean,
  ) {}

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
      out.push(out.python ? renderPythonString(value, out.remaining) : renderString(value, out.remaining));
      return;
    case 'number':
      out.push(out.python ? renderPythonNumber(value) : renderNumber(value));
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'boolean':
      out.push(out.python ? (value ? 'True' : 'False') : value ? 'true' : 'false');
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
        out.push(out.python ? 'None' : 'null');
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

/** A plain number is an int when integral and a float otherwise (see py-tags.ts). */
function renderPythonNumber(n: number): string {
  if (Number.isInteger(n) && !Object.is(n, -0)) return String(BigInt(n));
  return pythonFloatText(pythonFloatRepr(n));
}

/** A float tag's text as repr writes it: the wire's `NaN` and `Infinity` are `nan` and `inf`. */
function pythonFloatText(wire: string): string {
  return wire === 'NaN' ? 'nan' : wire === 'Infinity' ? 'inf' : wire === '-Infinity' ? '-inf' : wire;
}

/** Characters str.isprintable() rejects (other than the escapes repr spells out), and lone surrogates. */
const UNPRINTABLE = /[\p{C}\p{Z}]/u;

/** A str as Python's repr writes it: single quotes unless only double quotes avoid escaping. */
function renderPythonString(text: string, remaining: number): string {
  const shown = text.length > remaining + 2 ? text.slice(0, remaining + 2) : text;
  const quote = shown.includes("'") && !shown.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of shown) {
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && UNPRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!;
      out += code < 0x100 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
    } else out += ch;
  }
  return out + quote;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
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
    out.push(out.python ? pythonFloatText((obj as FloatTag).value) : (obj as FloatTag).value);
    return true;
  }
  return false;
}

function renderSequence(open: string, items: Iterable<unknown>, close: string, out: Output, depth: number, ancestors: Set<object>): void {
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
    out.push(`${out.python ? renderPythonString(key, Infinity) : JSON.stringify(key)}: `);
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
