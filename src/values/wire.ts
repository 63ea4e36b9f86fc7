import { dict, floatTag, normalInt, pySet, pythonFloatRepr, tagOf, tuple, WIRE_TAG, type DictTag, type TupleTag } from './py-tags.js';
import type { TypeNode, Value } from './type-node.js';

/**
 * The wire format: JSON text in which the values JSON cannot hold are
 * tagged objects (see py-tags.ts for the tags). It is the only thing that
 * crosses into and out of a sandbox, in both directions.
 *
 * Results coming back are untrusted text produced by candidate-controlled
 * code, so decoding validates instead of assuming. Both harnesses write a
 * candidate's own dict or object with a `$evalrun` key as a dict tag, so
 * every `$evalrun` key on the wire is a tag evalrun wrote.
 */
export { WIRE_TAG };

/**
 * Who reads the text:
 * - `python`: every tag as it is, and integral numbers where `floats` says a
 *   float is declared as float tags, so that Python gets a float;
 * - `javascript`: arguments for a JavaScript candidate: tuples as arrays,
 *   sets and frozensets as set tags (the harness makes Sets), the rest as is;
 * - `javascript-result`: a value as the JavaScript harness writes what a
 *   candidate returned (tuples and sets as arrays, dicts with scalar keys as
 *   objects), so that a candidate returning exactly it passes on text alone.
 */
export type WireForm = 'python' | 'javascript' | 'javascript-result';

export interface EncodeOptions {
  form?: WireForm;
  /** The declared type of the value; only says where integral numbers are floats (python form). */
  type?: TypeNode;
}

/**
 * Encodes a value. Most values need no tag at all and are then exactly
 * JSON.stringify's text: a bigint makes it throw, a non-finite number makes
 * it write `null`, and a tag spells `"$evalrun"`, so only text that shows one
 * of these is walked.
 */
export function encodeWire(value: Value, options: EncodeOptions = {}): string {
  const form = options.form ?? 'python';
  const floats = form === 'python' && options.type !== undefined && containsFloat(options.type, 0) ? options.type : undefined;
  let plain: string | undefined;
  try {
    plain = JSON.stringify(value);
  } catch {
    plain = undefined;
  }
  if (plain !== undefined) {
    const needsWalk = (plain.includes('null') && hasNonFinite(value)) || (form !== 'python' && plain.includes('"$evalrun"'));
    if (!needsWalk) {
      if (floats === undefined) return plain;
      // Only floats at every leaf, no strings: mark integral number tokens directly.
      if (onlyFloatLeaves(floats, 0) && !plain.includes('"')) {
        return plain.replace(/(^|[[,])(-?\d+)(?=[\],]|$)/g, (_, before: string, digits: string) => before + floatTagText(Number(digits)));
      }
    }
  }
  return write(value, floats, form, 0);
}

function floatTagText(n: number): string {
  return `{"$evalrun":"float","value":"${pythonFloatRepr(n)}"}`;
}

const MAX_WRITE_DEPTH = 5000;

function write(v: Value, type: TypeNode | undefined, form: WireForm, depth: number): string {
  if (depth > MAX_WRITE_DEPTH) throw new RangeError('value nested too deeply to encode');
  switch (typeof v) {
    case 'number':
      if (!Number.isFinite(v)) return floatTagText(v);
      if (type !== undefined && Number.isInteger(v) && isFloatAt(type, 0)) return floatTagText(v);
      return JSON.stringify(v);
    case 'bigint':
      return `{"$evalrun":"int","value":"${v.toString()}"}`;
    case 'string':
    case 'boolean':
      return JSON.stringify(v);
  }
  if (v === null) return 'null';
  const t = type === undefined ? undefined : unwrapOptional(type);
  if (Array.isArray(v)) return writeItems(v, t, form, depth, '[', ']');
  const tag = tagOf(v);
  if (tag === undefined) {
    const record = v as { [key: string]: Value };
    const valueType = t?.kind === 'dict' ? t.value : undefined;
    const parts: string[] = [];
    for (const key of Object.keys(record)) parts.push(`${JSON.stringify(key)}:${write(record[key]!, valueType, form, depth + 1)}`);
    return `{${parts.join(',')}}`;
  }
  const tagged = v as unknown as Record<string, unknown>;
  switch (tag) {
    case 'tuple': {
      const items = (v as unknown as TupleTag).items;
      if (form === 'python') return writeItems(items, t, form, depth, '{"$evalrun":"tuple","items":[', ']}');
      return writeItems(items, t, form, depth, '[', ']');
    }
    case 'set':
    case 'frozenset': {
      const items = tagged.items as Value[];
      if (form === 'javascript-result') return writeItems(items, t, form, depth, '[', ']');
      const kind = form === 'python' ? tag : 'set';
      return writeItems(items, t, form, depth, `{"$evalrun":"${kind}","items":[`, ']}');
    }
    case 'dict': {
      const entries = (v as unknown as DictTag).entries;
      const keyType = t?.kind === 'dict' ? t.key : undefined;
      const valueType = t?.kind === 'dict' ? t.value : undefined;
      if (form === 'javascript-result' && entries.every(([key]) => isScalarKey(key))) {
        const parts = entries.map(([key, item]) => `${JSON.stringify(String(key))}:${write(item, valueType, form, depth + 1)}`);
        return `{${parts.join(',')}}`;
      }
      const parts = entries.map(
        ([key, item]) => `[${write(key, keyType, form, depth + 1)},${write(item, valueType, form, depth + 1)}]`,
      );
      return `{"$evalrun":"dict","entries":[${parts.join(',')}]}`;
    }
    case 'float':
      return JSON.stringify(tagged);
  }
  throw new Error(`cannot encode a value tagged ${JSON.stringify(tag)}`);
}

function writeItems(items: Value[], type: TypeNode | undefined, form: WireForm, depth: number, open: string, close: string): string {
  let out = open;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += write(items[i]!, type === undefined ? undefined : itemType(type, i), form, depth + 1);
  }
  return out + close;
}

function isScalarKey(key: Value): boolean {
  return key === null || typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean' || typeof key === 'bigint';
}

function unwrapOptional(type: TypeNode): TypeNode {
  let t = type;
  while (t.kind === 'optional') t = t.inner;
  return t;
}

function itemType(type: TypeNode, index: number): TypeNode | undefined {
  switch (type.kind) {
    case 'list':
    case 'set':
      return type.item;
    case 'tuple':
      return type.items[index] ?? type.rest;
    default:
      return undefined;
  }
}

/**
 * Whether an integral number where `type` is declared is a float: `float`,
 * or a union whose first numeric option is float (the first that fits).
 */
function isFloatAt(type: TypeNode, depth: number): boolean {
  if (depth > 50) return false;
  switch (type.kind) {
    case 'float':
      return true;
    case 'optional':
      return isFloatAt(type.inner, depth + 1);
    case 'union': {
      const first = type.options.find((o) => o.kind === 'int' || o.kind === 'float' || o.kind === 'bool' || o.kind === 'any' || o.kind === 'unknown');
      return first?.kind === 'float';
    }
    default:
      return false;
  }
}

function containsFloat(type: TypeNode, depth: number): boolean {
  if (depth > 50) return false;
  switch (type.kind) {
    case 'float':
      return true;
    case 'list':
    case 'set':
      return containsFloat(type.item, depth + 1);
    case 'dict':
      return containsFloat(type.key, depth + 1) || containsFloat(type.value, depth + 1);
    case 'tuple':
      return type.items.some((t) => containsFloat(t, depth + 1)) || (type.rest !== undefined && containsFloat(type.rest, depth + 1));
    case 'optional':
      return containsFloat(type.inner, depth + 1);
    case 'union':
      return type.options.some((t) => containsFloat(t, depth + 1));
    default:
      return false;
  }
}

/** `float`, `List[float]`, `List[List[float]]`: every number in such a value is a float. */
function onlyFloatLeaves(type: TypeNode, depth: number): boolean {
  if (depth > 50) return false;
  if (type.kind === 'float') return true;
  if (type.kind === 'list') return onlyFloatLeaves(type.item, depth + 1);
  return false;
}

function hasNonFinite(v: Value): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) {
    for (const item of v) if (hasNonFinite(item)) return true;
    return false;
  }
  for (const key in v) if (Object.hasOwn(v, key) && hasNonFinite(v[key] as Value)) return true;
  return false;
}

export type WireDecode = { ok: true; value: Value } | { ok: false; error: string };

export interface DecodeOptions {
  /** Keep integral floats as float tags (strict types), instead of plain numbers. */
  floatTags?: boolean;
}

/**
 * Decodes wire text that evalrun wrote itself, or already decoded once: it
 * cannot be malformed, so failing to read it is a bug here and throws,
 * naming `what` it was.
 */
export function decodeTrustedWire(text: string, what: string, options: DecodeOptions = {}): Value {
  const decoded = decodeWire(text, options);
  if (!decoded.ok) throw new Error(`${what} did not decode: ${decoded.error}`);
  return decoded.value;
}

/**
 * Parses a returned value. Anything that is not plain JSON plus the known
 * tags, well formed, is rejected: a candidate that forged a malformed
 * envelope gets an error, never a pass.
 */
export function decodeWire(text: string, options: DecodeOptions = {}): WireDecode {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `sandbox returned malformed data: ${(e as Error).message}` };
  }
  // Without a tag anywhere in the text, what JSON.parse built is already the
  // value: plain arrays, plain objects (a "__proto__" key is an own data
  // property there, as revive makes it) and primitives. Most results take
  // this path and skip the second walk. A \u escape could spell the tag, so
  // text with one takes the checked path.
  if (!text.includes(WIRE_TAG) && !text.includes('\\u')) return { ok: true, value: parsed as Value };
  try {
    return { ok: true, value: revive(parsed, options.floatTags === true) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const FLOAT_TEXT = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function revive(v: unknown, floatTags: boolean): Value {
  // Iterative so that a deeply nested return value cannot overflow the host's stack.
  const root: { v: Value } = { v: null };
  const stack: Array<{ src: unknown; set: (x: Value) => void }> = [{ src: v, set: (x) => (root.v = x) }];
  const items = (src: unknown, what: string, build: (items: Value[]) => Value, set: (x: Value) => void): void => {
    if (!Array.isArray(src)) throw new Error(`sandbox returned a malformed ${what}`);
    const out: Value[] = new Array<Value>(src.length);
    set(build(out));
    for (let i = 0; i < src.length; i++) stack.push({ src: src[i], set: (x) => (out[i] = x) });
  };
  while (stack.length > 0) {
    const { src, set } = stack.pop()!;
    if (src === null || typeof src === 'string' || typeof src === 'number' || typeof src === 'boolean') {
      set(src);
    } else if (Array.isArray(src)) {
      items(src, 'array', (out) => out, set);
    } else if (typeof src === 'object') {
      const obj = src as Record<string, unknown>;
      if (Object.hasOwn(obj, WIRE_TAG)) {
        const tag = obj[WIRE_TAG];
        const keys = Object.keys(obj).length;
        if (tag === 'float' && typeof obj.value === 'string' && keys === 2) {
          const name = obj.value;
          if (name === 'NaN' || name === 'Infinity' || name === '-Infinity') set(Number(name));
          else if (FLOAT_TEXT.test(name)) set(floatTags ? floatTag(Number(name)) : Number(name));
          else throw new Error('sandbox returned a malformed float');
        } else if (tag === 'int' && typeof obj.value === 'string' && INTEGER_TEXT.test(obj.value) && keys === 2) {
          set(normalInt(BigInt(obj.value)));
        } else if ((tag === 'tuple' || tag === 'set' || tag === 'frozenset') && keys === 2) {
          items(obj.items, tag, (out) => (tag === 'tuple' ? tuple(out) : pySet(out, tag === 'frozenset')), set);
        } else if (tag === 'dict' && Array.isArray(obj.entries) && keys === 2) {
          const entries: [Value, Value][] = [];
          set(dict(entries));
          for (const entry of obj.entries as unknown[]) {
            if (!Array.isArray(entry) || entry.length !== 2) throw new Error('sandbox returned a malformed dict');
            const pair: [Value, Value] = [null, null];
            entries.push(pair);
            stack.push({ src: entry[0], set: (x) => (pair[0] = x) });
            stack.push({ src: entry[1], set: (x) => (pair[1] = x) });
          }
        } else {
          throw new Error(`sandbox returned an unknown tagged value ${JSON.stringify(tag)}`);
        }
        continue;
      }
      const out: { [key: string]: Value } = {};
      set(out);
      for (const key of Object.keys(obj)) {
        stack.push({
          src: obj[key],
          set: (x) => Object.defineProperty(out, key, { value: x, enumerable: true, writable: true, configurable: true }),
        });
      }
    } else {
      throw new Error('sandbox returned a value that is not JSON');
    }
  }
  return root.v;
}

// -- JSON text with exact integers -------------------------------------------------

/** A marker no candidate can spell: it holds a secret made when this process started. */
const BIGINT_MARK = `\u0000evalrun-int-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}:`;
const BIGINT_MARK_PATTERN = new RegExp(`"${JSON.stringify(BIGINT_MARK).slice(1, -1).replace(/\\/g, '\\\\')}(-?\\d+)"`, 'g');

/**
 * JSON.stringify that writes bigints as the integers they are, with every
 * digit. Values without a bigint (nearly all) take JSON.stringify alone.
 */
export function stringifyJson(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (e) {
    if (!(e instanceof TypeError) || !/BigInt/i.test(e.message)) throw e;
  }
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? BIGINT_MARK + v.toString() : v), space);
  return text.replace(BIGINT_MARK_PATTERN, '$1');
}
