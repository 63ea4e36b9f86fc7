import { dict, floatTag, floatValue, isTupleKeyed, normalInt, pySet, tagOf, tuple, WIRE_TAG, type DictTag, type FloatTag, type TupleTag } from './py-tags.js';
import type { Value } from './type-node.js';

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
 * - `python`: every tag as it is; this is also the form the run log and
 *   the scorecard record values in;
 * - `javascript`: arguments for a JavaScript candidate: tuples as arrays,
 *   sets and frozensets as set tags (the harness makes Sets), finite floats
 *   as plain numbers (JavaScript has one number type), the rest as is;
 * - `javascript-result`: an expected value, as the JavaScript harness writes
 *   what a candidate returned (tuples as arrays, dicts with scalar keys as
 *   objects, sets as set and frozenset tags, as it writes a Set), so that a
 *   candidate returning exactly it passes on text alone; a whole float keeps
 *   its tag, which no returned text has, so that it is judged as the float
 *   the file wrote.
 */
export type WireForm = 'python' | 'javascript' | 'javascript-result';

/**
 * Encodes a value. Most values need no tag at all and are then exactly
 * JSON.stringify's text: a bigint makes it throw, a tag spells
 * `"$evalrun"`, and a non-finite number (which the host never holds, but
 * which must not become None if one slipped in) shows as `null`, so only
 * text that shows one of these is walked.
 */
export function encodeWire(value: Value, form: WireForm = 'python'): string {
  let plain: string | undefined;
  try {
    plain = JSON.stringify(value);
  } catch {
    plain = undefined;
  }
  if (plain !== undefined && !plain.includes('null') && (form === 'python' || !plain.includes('"$evalrun"'))) return plain;
  return write(value, form, 0);
}

const MAX_WRITE_DEPTH = 5000;

function write(v: Value, form: WireForm, depth: number): string {
  if (depth > MAX_WRITE_DEPTH) throw new RangeError('value nested too deeply to encode');
  switch (typeof v) {
    case 'number':
      // Held only finite (see py-tags.ts); a stray non-finite number still keeps its value.
      return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(floatTag(v));
    case 'bigint':
      return `{"$evalrun":"int","value":"${v.toString()}"}`;
    case 'string':
    case 'boolean':
      return JSON.stringify(v);
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) return writeItems(v, form, depth, '[', ']');
  const tag = tagOf(v);
  if (tag === undefined) {
    const record = v;
    const parts: string[] = [];
    for (const key of Object.keys(record)) parts.push(`${JSON.stringify(key)}:${write(record[key]!, form, depth + 1)}`);
    return `{${parts.join(',')}}`;
  }
  const tagged = v as unknown as Record<string, unknown>;
  switch (tag) {
    case 'tuple': {
      const items = (v as unknown as TupleTag).items;
      if (form === 'python') return writeItems(items, form, depth, '{"$evalrun":"tuple","items":[', ']}');
      return writeItems(items, form, depth, '[', ']');
    }
    case 'set':
    case 'frozenset': {
      const items = tagged.items as Value[];
      // A result keeps its kind: written as a list, a set under `Any` would be judged as the list, in its order.
      const kind = form === 'javascript' ? 'set' : tag;
      return writeItems(items, form, depth, `{"$evalrun":"${kind}","items":[`, ']}');
    }
    case 'dict': {
      const entries = (v as unknown as DictTag).entries;
      // A key that spells the tag keeps the dict a dict tag, as the harness writes such an object.
      if (form === 'javascript-result' && entries.every(([key]) => isScalarKey(key) && key !== WIRE_TAG)) {
        const parts = entries.map(
          ([key, item]) => `${JSON.stringify(String(javascriptKey(key) as string | number | boolean | bigint | null))}:${write(item, form, depth + 1)}`,
        );
        return `{${parts.join(',')}}`;
      }
      const parts = entries.map(([key, item]) => `[${write(key, form, depth + 1)},${write(item, form, depth + 1)}]`);
      // An argument for a JavaScript candidate says its keys are tuples: an empty one is a Map too.
      if (form === 'javascript' && isTupleKeyed(v)) return `{"$evalrun":"dict","entries":[${parts.join(',')}],"map":true}`;
      return `{"$evalrun":"dict","entries":[${parts.join(',')}]}`;
    }
    case 'float': {
      // An expected value keeps the tag of a float the file wrote whole (`1e16`, `3.0`): the judge meets it within the
      // tolerance, as a float, where a whole number the candidate returned is its rounding (1.0000000000000002e16).
      if (form !== 'javascript') return JSON.stringify(tagged);
      // An argument: JavaScript's one number type, 3.0 is 3, and -0.0 keeps its sign (JSON.parse reads "-0" as -0).
      const n = Number((tagged as unknown as FloatTag).value);
      if (Object.is(n, -0)) return '-0';
      return Number.isFinite(n) ? JSON.stringify(n) : JSON.stringify(tagged);
    }
  }
  throw new Error(`cannot encode a value tagged ${JSON.stringify(tag)}`);
}

function writeItems(items: Value[], form: WireForm, depth: number, open: string, close: string): string {
  let out = open;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += write(items[i]!, form, depth + 1);
  }
  return out + close;
}

/** A scalar key as JavaScript's String() names the property (a float key 3.0 is "3"). */
function javascriptKey(key: Value): Value {
  return tagOf(key) === 'float' ? Number((key as unknown as FloatTag).value) : key;
}

function isScalarKey(key: Value): boolean {
  return key === null || typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean' || typeof key === 'bigint' || tagOf(key) === 'float';
}

export type WireDecode = { ok: true; value: Value } | { ok: false; error: string };

/**
 * Decodes wire text that evalrun wrote itself, or already decoded once: it
 * cannot be malformed, so failing to read it is a bug here and throws,
 * naming `what` it was.
 */
export function decodeTrustedWire(text: string, what: string): Value {
  const decoded = decodeWire(text);
  if (!decoded.ok) throw new Error(`${what} did not decode: ${decoded.error}`);
  return decoded.value;
}

/**
 * Parses a returned value. Anything that is not plain JSON plus the known
 * tags, well formed, is rejected: a candidate that forged a malformed
 * envelope gets an error, never a pass.
 */
export function decodeWire(text: string): WireDecode {
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
    return { ok: true, value: revive(parsed) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const FLOAT_TEXT = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function revive(v: unknown): Value {
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
          if (name === 'NaN' || name === 'Infinity' || name === '-Infinity' || FLOAT_TEXT.test(name)) set(floatValue(Number(name)));
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
      // Every key is made now, in order; the stack fills the values later, in reverse.
      for (const key of Object.keys(obj)) {
        Object.defineProperty(out, key, { value: null, enumerable: true, writable: true, configurable: true });
        stack.push({ src: obj[key], set: (x) => (out[key] = x) });
      }
    } else {
      throw new Error('sandbox returned a value that is not JSON');
    }
  }
  return root.v;
}

// -- records --------------------------------------------------------------------

/**
 * JSON text of a record holding host values (a run log line, a scorecard):
 * every value in the wire's python form, so a bigint is an int tag and the
 * record reads back to the same values (readRecordValues). Records without
 * a bigint (nearly all) take JSON.stringify alone.
 */
export function recordJson(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (e) {
    if (!(e instanceof TypeError) || !/BigInt/i.test(e.message)) throw e;
  }
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { [WIRE_TAG]: 'int', value: v.toString() } : v), space);
}

/** The same record text as UTF-8 bytes, as the run log and the JSON scorecard hold records. */
export function recordBytes(value: unknown): Buffer {
  return Buffer.from(recordJson(value), 'utf8');
}

/**
 * A parsed record's values back in their host forms: int tags become
 * bigints (or numbers, when a record of an older evalrun wrote a small one
 * so). Every other tag is already the host form. Only text that holds an
 * int tag is walked.
 */
export function reviveRecordInts<T>(parsed: T, text: string): T {
  if (!text.includes('"int"')) return parsed;
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const container = node as Record<string, unknown>;
    for (const key of Object.keys(container)) {
      const item = container[key];
      if (item === null || typeof item !== 'object') continue;
      const tagged = item as Record<string, unknown>;
      if (
        !Array.isArray(item) &&
        tagged[WIRE_TAG] === 'int' &&
        typeof tagged.value === 'string' &&
        INTEGER_TEXT.test(tagged.value) &&
        Object.keys(tagged).length === 2
      ) {
        container[key] = normalInt(BigInt(tagged.value));
      } else {
        stack.push(item);
      }
    }
  }
  return parsed;
}
