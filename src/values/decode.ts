/**
 * Turns a value as written in a problem file into the value its declared type
 * describes, the way the reference Python framework converts inputs and
 * expected outputs before calling and comparing, but checked:
 *
 * - a value already of the right JSON shape is used as is (checked item by item);
 * - a string for a non-`str` type is read as a Python literal and decoded
 *   again, so `"7"` is 7, `"[1, 2]"` a list and `"\"[1, 2]\""` a list too;
 * - a `str` that is the whole value, written as a quoted literal
 *   (`"'Hi '"`), is unquoted; any other string, and every string inside a
 *   container, is taken literally, quotes and all, as the reference
 *   framework takes the items of a JSON array;
 * - `Any` and unknown types take the value exactly as given;
 * - the result is of the declared type at every depth: tuples, sets and
 *   frozensets are their tags (py-tags.ts), a dict whose key type is not
 *   `str` is a dict tag with keys read by that type (`"1"` -> 1,
 *   `"(1, 2)"` -> a tuple), integers beyond the safe range are bigints;
 * - a number keeps the kind it is written in (`3` an int, `3.0` a float, held
 *   as a float tag), at every depth and under every type, except a bare
 *   top-level value declared `float`/`Optional[float]` (an int becomes a
 *   float) or `int`/`Optional[int]` (an integral float becomes an int), as
 *   the reference framework's `get_python_type` converts them;
 * - a union takes the first option the value fits (see decodeUnion).
 */

import { escapeTagKeys, hasTagKey } from './decode-tag-keys.js';
import { quotedLiteral, quotedString, readLiteral, scalarFromText } from './decode-text.js';
import { formatValue } from './format.js';
import { isValue } from './is-value.js';
import { dict, floatValue, isIndexKey, normalInt, pySet, tagItems, tagOf, tuple, tupleKeyedDict, WIRE_TAG, type DictTag, type FloatTag } from './py-tags.js';
import { setOwn, type LiteralResult } from './python-literal.js';
import { formatType } from './type-format.js';
import type { TypeNode, Value } from './type-node.js';
import { distinctItems, valueKey } from './value-key.js';

export type DecodeResult = { ok: true; value: Value } | { ok: false; expected: string; got: string };

const ANY: TypeNode = { kind: 'any' };

/** A string holding a string holding a list is in the corpus; five layers is plenty. */
const MAX_STRING_LAYERS = 5;
/** Only a cyclic TypeNode built in code can be this deep; stop rather than overflow. */
const MAX_TYPE_DEPTH = 1000;

/**
 * Decodes `raw` by `type`. On failure `expected` describes what was wanted,
 * with the place inside the value when it is not the value itself
 * (`int at [2]`, `int at ["a"][0]`, `int key` for a bad dict key) and `got`
 * is a short display of the offending part of the value.
 */
export function decodeValue(raw: unknown, type: TypeNode): DecodeResult {
  const result = decode(raw, type, { strings: 0, depth: 0, top: true, whole: true, literal: false });
  if (result.ok) return result;
  const where = result.segments.length > 0 ? ` at ${renderSegments(result.segments)}` : '';
  return { ok: false, expected: result.expected + where, got: result.got };
}

type Segment = string | number;

/** Segments run innermost first: a failure collects them while unwinding. */
interface Failure {
  ok: false;
  expected: string;
  got: string;
  segments: Segment[];
}

type Decoded = { ok: true; value: Value } | Failure;

interface Context {
  /** How many string layers have been unwrapped on the way here. */
  strings: number;
  depth: number;
  /**
   * The value is a bare top-level parameter or return value (through
   * `Optional` and string layers): only there does a declared `float` make
   * an int a float, and a declared `int` an integral float an int.
   */
  top: boolean;
  /**
   * The value is the whole parameter or return value as the file writes it
   * (through `Optional` and `Union`, not inside a container or a string):
   * only there is a quoted `str` (`"'a'"`) unquoted.
   */
  whole: boolean;
  /**
   * The value was read from a Python literal: a string in it is a Python
   * str, so where the type takes a str it is that str, never text to read
   * again (`['None', '7']` for `List[Optional[str]]` or
   * `List[Union[int, str]]` holds two strings).
   */
  literal: boolean;
}

function ok(value: Value): Decoded {
  return { ok: true, value };
}

function failure(expected: string, raw: unknown): Failure {
  return { ok: false, expected, got: formatValue(raw), segments: [] };
}

function within(result: Failure, segment: Segment): Failure {
  result.segments.push(segment);
  return result;
}

function decode(raw: unknown, type: TypeNode, context: Context): Decoded {
  if (context.depth > MAX_TYPE_DEPTH) return failure(`a value nested less than ${MAX_TYPE_DEPTH} levels deep`, raw);
  switch (type.kind) {
    case 'any':
    case 'unknown':
      if (!isValue(raw)) return failure('a JSON value', raw);
      // A JSON object of the file's own with a "$evalrun" key is data: a dict, never a tag.
      return ok(context.strings === 0 && hasTagKey(raw) ? escapeTagKeys(raw) : raw);
    case 'str':
      return decodeStr(raw, context);
    case 'int': {
      if (typeof raw === 'number') return Number.isInteger(raw) ? ok(exactInt(raw)) : failure('int', raw);
      if (typeof raw === 'bigint') return ok(normalInt(raw));
      // An integral float fits an int; it stays a float except where `int()` would apply (a bare top-level value).
      const float = floatOf(raw);
      if (float === undefined) return fromString(raw, type, context);
      if (!Number.isInteger(float)) return failure('int', raw);
      return ok(context.top ? exactInt(float) : (raw as Value));
    }
    case 'float': {
      // Ints stay ints except where `float()` would apply (a bare top-level value).
      if (typeof raw === 'number') return ok(context.top ? floatValue(raw) : raw);
      if (typeof raw === 'bigint') {
        if (!context.top) return ok(raw);
        const n = Number(raw);
        return Number.isFinite(n) ? ok(floatValue(n)) : failure('float (int too large to convert to float)', raw);
      }
      return floatOf(raw) !== undefined ? ok(raw as Value) : fromString(raw, type, context);
    }
    case 'bool':
      return typeof raw === 'boolean' ? ok(raw) : fromString(raw, type, context);
    case 'none':
      return raw === null ? ok(null) : fromString(raw, type, context);
    case 'optional':
      // `Optional[float]` coerces as `float` does: the value is still the bare one.
      return decodeOptional(raw, type, { ...deeper(context), top: context.top, whole: context.whole });
    case 'union':
      return decodeUnion(raw, type, { ...deeper(context), whole: context.whole });
    case 'list': {
      if (Array.isArray(raw)) return decodeItems(raw, type.item, null, deeper(context));
      // A tuple reads as a list; a set does not (its order is not the one written).
      const items = tagOf(raw) === 'tuple' ? tagItems(raw) : undefined;
      return items !== undefined ? decodeItems(items.slice(), type.item, null, deeper(context)) : fromString(raw, type, context);
    }
    case 'tuple': {
      const items = Array.isArray(raw) ? raw : tagOf(raw) === 'tuple' ? tagItems(raw) : undefined;
      if (items === undefined) return fromString(raw, type, context);
      const decoded = decodeTuple(items, type, deeper(context));
      return decoded.ok ? ok(tuple(decoded.value as Value[])) : decoded;
    }
    case 'set':
      return decodeSet(raw, type, context);
    case 'dict':
      if (isPlainObject(raw)) {
        return tagOf(raw) === 'dict' ? decodeDictTag(raw as unknown as DictTag, type, deeper(context)) : decodeDict(raw, type, deeper(context));
      }
      return fromString(raw, type, context);
  }
}

/** An integral number read as an int: exact, so a bigint beyond the safe range (and 0 for -0). */
function exactInt(n: number): number | bigint {
  if (n === 0) return 0;
  return Number.isSafeInteger(n) ? n : BigInt(n);
}

/** The value of a float tag; undefined for anything else. */
function floatOf(raw: unknown): number | undefined {
  return tagOf(raw) === 'float' ? Number((raw as FloatTag).value) : undefined;
}

function deeper(context: Context): Context {
  return { strings: context.strings, depth: context.depth + 1, top: false, whole: false, literal: context.literal };
}

/**
 * A string where another type is declared: read it as a Python literal and
 * decode the result by the same type. When it is not a literal at all, the
 * scalars still accept what Python's int()/float() accept (`007`, `INF`).
 */
function fromString(raw: unknown, type: TypeNode, context: Context): Decoded {
  const expected = formatType(type);
  if (typeof raw !== 'string' || context.strings >= MAX_STRING_LAYERS) return failure(expected, raw);
  const layer = { strings: context.strings + 1, depth: context.depth, top: context.top, whole: false, literal: true };
  const literal = readLiteral(raw);
  const result = literal.ok ? decode(literal.value, type, layer) : undefined;
  if (result?.ok === true) return result;
  // Text wrapped whole in the quote it uses inside (`'['a', 'b']'`) is no literal; the reference framework strips
  // one pair of quotes from the whole text and reads what is inside, and so does this, when nothing else reads it.
  const inside = quotedInside(raw);
  const unwrapped = inside === undefined ? undefined : readLiteral(inside);
  const stripped = unwrapped?.ok === true ? decode(unwrapped.value, type, layer) : undefined;
  if (stripped?.ok === true) return stripped;
  if (result === undefined) {
    const scalar = scalarFromText(raw, type);
    return scalar !== undefined ? ok(scalar) : failure(expected + unsupported(literal), raw);
  }
  // A failure of the value as a whole is reported against the text as written.
  if (!result.ok && result.segments.length === 0) return failure(result.expected, raw);
  return result;
}

/** The text between a pair of quotes that wraps it whole (`'…'` or `"…"`), or undefined. */
function quotedInside(text: string): string | undefined {
  const quote = text[0];
  return text.length >= 2 && (quote === "'" || quote === '"') && text.endsWith(quote) ? text.slice(1, -1) : undefined;
}

/**
 * `"'Hi '"` and `"\"x\""`, as the whole value, are quoted literals and lose
 * their quotes, exactly once; inside a container a string is kept as
 * written, since `["'a'"]` may well mean the text with its quotes.
 */
function decodeStr(raw: unknown, context: Context): Decoded {
  if (typeof raw !== 'string') return failure('str', raw);
  if (!context.whole) return ok(raw);
  const literal = quotedLiteral(raw);
  if (literal === undefined) return ok(raw);
  if (literal.ok && typeof literal.value === 'string') return ok(literal.value);
  // A quoted literal this reader cannot read (a `\N{...}` escape) is not text to take as written: Python would read it.
  const why = unsupported(literal);
  return why === '' ? ok(raw) : failure(`str${why}`, raw);
}

/** ` (why)` when `literal` is Python this reader does not read (a `\N{...}` escape, a complex number); '' otherwise. */
function unsupported(literal: LiteralResult): string {
  return !literal.ok && literal.error.includes('not supported') ? ` (${literal.error})` : '';
}

const NONE_TEXT = /^\s*(None|null)\s*$/;

function decodeOptional(raw: unknown, type: TypeNode & { kind: 'optional' }, context: Context): Decoded {
  if (raw === null || (typeof raw === 'string' && NONE_TEXT.test(raw) && !(context.literal && takesStr(type.inner)))) return ok(null);
  const result = decode(raw, type.inner, context);
  if (result.ok || result.segments.length > 0) return result;
  // A string holding a string (`"'None'"`) is read again by the Optional itself, which takes `None`.
  if (typeof raw === 'string' && type.inner.kind !== 'str') {
    const again = fromString(raw, type, context);
    if (again.ok) return again;
  }
  return failure(formatType(type), raw);
}

/** Whether a string fits the type as itself: a str, or anything that takes one. */
function takesStr(type: TypeNode): boolean {
  switch (type.kind) {
    case 'str':
    case 'any':
    case 'unknown':
      return true;
    case 'optional':
      return takesStr(type.inner);
    case 'union':
      return type.options.some(takesStr);
    default:
      return false;
  }
}

/**
 * The first option the value fits, in declared order, reading a string as
 * a Python literal as `ast.literal_eval` would (`"7"` for `Union[int, str]`
 * is 7, and for `Union[float, int]` too: a number keeps its kind). `str` accepts any string,
 * so it comes last, unless the string is a quoted literal (`"'7'"`), which
 * was written as a string on purpose.
 */
function decodeUnion(raw: unknown, type: TypeNode & { kind: 'union' }, context: Context): Decoded {
  if (type.options.some((option) => option.kind === 'str') && (quotedString(raw) !== undefined || (context.literal && typeof raw === 'string'))) {
    return decodeStr(raw, context);
  }
  const ordered = [...type.options.filter((option) => option.kind !== 'str'), ...type.options.filter((option) => option.kind === 'str')];
  // Only a bare `float` or `int` coerces: inside a Union a number keeps the kind it is written in.
  const inside = { ...context, top: false };
  for (const option of ordered) {
    const result = decode(raw, option, inside);
    if (result.ok) return result;
  }
  return failure(formatType(type), raw);
}

/**
 * Items decoded by `item`, or by `items[i]` (then `item` past their end).
 * An array whose items all decode to themselves is used as it is: nothing
 * downstream modifies decoded values, and most arrays in problem files are
 * already of their declared type, so copying them would only double what a
 * loaded problem holds.
 */
function decodeItems(raw: unknown[], item: TypeNode, items: readonly TypeNode[] | null, context: Context): Decoded {
  let values: Value[] | null = null;
  for (let i = 0; i < raw.length; i++) {
    const result = decode(raw[i], (items === null ? undefined : items[i]) ?? item, context);
    if (!result.ok) return within(result, i);
    if (values === null && result.value !== raw[i]) values = raw.slice(0, i) as Value[];
    if (values !== null) values.push(result.value);
  }
  return ok(values ?? (raw as Value[]));
}

function decodeTuple(raw: unknown[], type: TypeNode & { kind: 'tuple' }, context: Context): Decoded {
  const { items, rest } = type;
  const lengthOk = rest === undefined ? raw.length === items.length : raw.length >= items.length;
  if (!lengthOk) return failure(formatType(type), raw);
  return decodeItems(raw, rest ?? ANY, items, context);
}

/** Items decoded, then duplicates dropped (first kept), as building a Python set would. */
function decodeSet(raw: unknown, type: TypeNode & { kind: 'set' }, context: Context): Decoded {
  const frozen = type.frozen === true;
  // `{}` is an empty dict in Python, but written for a set it can only mean an empty set.
  if (isPlainObject(raw) && Object.keys(raw).length === 0) return ok(pySet([], frozen));
  const given = Array.isArray(raw) ? raw : tagItems(raw);
  if (given === undefined) return fromString(raw, type, context);
  const decoded = decodeItems(given, type.item, null, deeper(context));
  if (!decoded.ok || !Array.isArray(decoded.value)) return decoded;
  return ok(pySet(distinctItems(decoded.value.map(hashable)), frozen));
}

/**
 * A value as a set's item or a dict's key can hold it in Python, where it
 * must be hashable: a list is the tuple of its items and a set a frozenset,
 * at any depth (`Set[List[int]]` written `[[1, 2]]` holds the tuple
 * `(1, 2)`, `Set[Set[int]]` frozensets). This is what the candidate
 * receives, so it is also what the records show. A dict is left a dict: the
 * harness hands it over as the tuple of its items, and a returned list of
 * dicts still meets it. Unchanged values are the same object.
 */
function hashable(value: Value): Value {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return tuple(value.map(hashable));
  const tag = tagOf(value);
  if (tag === 'set') return pySet(tagItems(value)!.map(hashable), true);
  if (tag !== 'tuple' && tag !== 'frozenset') return value;
  const items = tagItems(value)!;
  const frozen = items.map(hashable);
  return frozen.every((item, i) => item === items[i]) ? value : tag === 'tuple' ? tuple(frozen) : pySet(frozen, true);
}

/**
 * A JSON object for a dict: with str (or Any) keys it stays an object, used
 * as it is when its values all decode to themselves, like a list's items;
 * any other key type makes a dict tag whose keys are read by it.
 */
function decodeDict(raw: Record<string, unknown>, type: TypeNode & { kind: 'dict' }, context: Context): Decoded {
  if (!stringKeyed(type.key) || Object.hasOwn(raw, WIRE_TAG)) {
    const pairs: Array<[unknown, unknown]> = Object.keys(raw).map((key) => [key, raw[key]]);
    // A JSON key is text: for str keys it is the key itself, not a literal to read.
    return decodeEntries(pairs, type, context);
  }
  let values: { [key: string]: Value } | null = null;
  const keys = Object.keys(raw);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const result = decode(raw[key], type.value, context);
    if (!result.ok) return within(result, key);
    if (values === null && result.value !== raw[key]) {
      values = {};
      for (let j = 0; j < i; j++) setOwn(values, keys[j]!, raw[keys[j]!] as Value);
    }
    if (values !== null) setOwn(values, key, result.value);
  }
  return ok(values ?? (raw as { [key: string]: Value }));
}

/** Key types whose keys are strings in Python too: the dict stays a plain object. */
function stringKeyed(keyType: TypeNode): boolean {
  return keyType.kind === 'str' || keyType.kind === 'any' || keyType.kind === 'unknown';
}

/** A dict as a dict tag: keys decoded by the key type (a JSON key is text to read), values by the value type. */
function decodeEntries(pairs: Array<[unknown, unknown]>, type: TypeNode & { kind: 'dict' }, context: Context): Decoded {
  const entries: [Value, Value][] = [];
  const seen = new Map<string, number>();
  for (const [rawKey, rawValue] of pairs) {
    // A str key is the key as written, not a literal to unquote.
    const read = typeof rawKey === 'string' && stringKeyed(type.key) ? ({ ok: true, value: rawKey } as const) : decode(rawKey, type.key, context);
    if (!read.ok) return failure(`${formatType(type.key)} key`, rawKey);
    const key = hashable(read.value);
    const value = decode(rawValue, type.value, context);
    if (!value.ok) return within(value, typeof rawKey === 'string' ? rawKey : formatValue(rawKey));
    // `"1"` and `"01"` are the same int key: the later value wins, as in a Python dict display.
    const id = valueKey(key);
    const earlier = id === undefined ? undefined : seen.get(id);
    if (earlier !== undefined) entries[earlier]![1] = value.value;
    else {
      if (id !== undefined) seen.set(id, entries.length);
      entries.push([key, value.value]);
    }
  }
  if (stringKeyed(type.key) && entries.every(([key]) => typeof key === 'string' && key !== WIRE_TAG && !isIndexKey(key))) {
    const out: { [key: string]: Value } = {};
    for (const [key, value] of entries) setOwn(out, key as string, value);
    return ok(out);
  }
  return ok(type.key.kind === 'tuple' ? tupleKeyedDict(entries) : dict(entries));
}

function decodeDictTag(raw: DictTag, type: TypeNode & { kind: 'dict' }, context: Context): Decoded {
  return decodeEntries(raw.entries, type, context);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `[2]["key"][0]`: bracket form throughout, so it can follow any JSON path. */
function renderSegments(innermostFirst: Segment[]): string {
  let path = '';
  for (let i = innermostFirst.length - 1; i >= 0; i--) {
    const segment = innermostFirst[i]!;
    path += typeof segment === 'number' ? `[${segment}]` : `[${JSON.stringify(segment)}]`;
  }
  return path;
}
