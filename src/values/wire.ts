import type { Value } from './type-node.js';

/**
 * The wire format: JSON text in which the few values JSON cannot hold are
 * tagged objects. It is the only thing that crosses into and out of a
 * sandbox, in both directions.
 *
 *   { "$evalrun": "float", "value": "NaN" | "Infinity" | "-Infinity" }
 *   { "$evalrun": "set", "items": [...] }      (host -> sandbox only: a Set argument)
 *
 * Results coming back are untrusted text produced by candidate-controlled
 * code, so decoding validates instead of assuming.
 */
export const WIRE_TAG = '$evalrun';

type NonFinite = 'NaN' | 'Infinity' | '-Infinity';

function nonFiniteName(n: number): NonFinite {
  if (Number.isNaN(n)) return 'NaN';
  return n > 0 ? 'Infinity' : '-Infinity';
}

/** Marks which array positions hold sets, so they are sent as JS Sets. */
export type SetShape = boolean | { items?: SetShape[] };

/**
 * Encodes arguments for a call; `asSet`, when given, decides which arrays
 * become Sets. Most values need no tag at all, and are then plain JSON.
 */
export function encodeWire(value: Value, asSet?: (path: readonly (string | number)[]) => boolean): string {
  if (asSet === undefined) {
    // JSON writes NaN and the infinities as null: text without "null" in it
    // had none, and needs no walk to find out.
    const plain = JSON.stringify(value);
    if (!plain.includes('null') || !hasNonFinite(value)) return plain;
  }
  const path: (string | number)[] = [];
  const walk = (v: Value): unknown => {
    if (typeof v === 'number') return Number.isFinite(v) ? v : { [WIRE_TAG]: 'float', value: nonFiniteName(v) };
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      const items = v.map((item, i) => {
        path.push(i);
        const out = walk(item);
        path.pop();
        return out;
      });
      return asSet?.(path) === true ? { [WIRE_TAG]: 'set', items } : items;
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      path.push(key);
      out[key] = walk(v[key] as Value);
      path.pop();
    }
    return out;
  };
  return JSON.stringify(walk(value));
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
 * Parses a returned value. Anything that is not plain JSON plus the float
 * tag is rejected: a candidate that forged a malformed envelope gets an
 * error, never a pass.
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

function revive(v: unknown): Value {
  // Iterative so that a deeply nested return value cannot overflow the host's stack.
  const root: { v: Value } = { v: null };
  const stack: Array<{ src: unknown; set: (x: Value) => void }> = [{ src: v, set: (x) => (root.v = x) }];
  while (stack.length > 0) {
    const { src, set } = stack.pop()!;
    if (src === null || typeof src === 'string' || typeof src === 'number' || typeof src === 'boolean') {
      set(src);
    } else if (Array.isArray(src)) {
      const arr: Value[] = new Array<Value>(src.length);
      set(arr);
      for (let i = 0; i < src.length; i++) stack.push({ src: src[i], set: (x) => (arr[i] = x) });
    } else if (typeof src === 'object') {
      const obj = src as Record<string, unknown>;
      const tag = obj[WIRE_TAG];
      if (tag !== undefined) {
        if (tag === 'float' && (obj.value === 'NaN' || obj.value === 'Infinity' || obj.value === '-Infinity')) {
          set(Number(obj.value));
          continue;
        }
        throw new Error(`sandbox returned an unknown tagged value ${JSON.stringify(tag)}`);
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
