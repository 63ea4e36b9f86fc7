import { isIndexKey } from '../values/py-tags.js';
/**
 * What JSON.parse accepts but a problem file must not have: duplicate keys
 * (JSON.parse silently keeps the last one, so a test could quietly differ
 * from what its author reads) and nesting so deep that the recursive steps
 * after parsing (schema check, decoding) would overflow the stack.
 *
 * One pass over the characters with an explicit stack instead of recursion,
 * so that the check itself cannot overflow. It only has to track brackets,
 * commas and keys: the text is already known to be JSON, so everything else
 * (values, colons, whitespace) is skipped without being checked.
 */
import { formatJsonPath, type PathSegment } from './json-path.js';

/**
 * Deepest nesting of arrays and objects accepted, the document itself being
 * level 1. As deep as the Python-literal reader goes (MAX_LITERAL_DEPTH) and
 * Jackson's default; the host's later steps are tested well past it.
 */
export const MAX_JSON_DEPTH = 1000;

/** More duplicate keys than this are counted, not listed: one is enough to act on. */
const MAX_LISTED_DUPLICATES = 20;

/** Path segments shown before `...` in a depth error, which would otherwise be a thousand `[0]`s long. */
const SHOWN_DEPTH_SEGMENTS = 8;

/**
 * Objects with up to this many keys look keys up by a linear scan of the
 * frame's arrays, which needs no allocation; past it, a Map. Nearly every
 * object in a problem file (a test, its input) has a handful of keys.
 */
const LINEAR_KEY_LIMIT = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * One open array or object. Frames are reused by depth rather than
 * allocated per container: a problem file holds tens of thousands of
 * small objects, and per-object garbage was most of this check's cost.
 */
class Frame {
  isObject = false;
  /** Array: index of the current element. */
  index = 0;
  /** Object: the key of the current member, '' before the first. */
  key = '';
  /** Object: whether the next string is a key (after `{` or `,`). */
  expectingKey = false;
  /**
   * Object: each key seen so far, with the offset where it was first
   * written: the first `keyCount` entries (the rest are left over from an
   * earlier object at this depth).
   */
  keyCount = 0;
  readonly keys: string[] = [];
  readonly keyOffsets: number[] = [];
  /** Object: every key instead, once there are more than LINEAR_KEY_LIMIT. */
  keyMap: Map<string, number> | null = null;
  /** Object: whether a key is one JavaScript would move to the front (isIndexKey). */
  indexKey = false;

  open(isObject: boolean): void {
    this.isObject = isObject;
    this.indexKey = false;
    this.index = 0;
    this.key = '';
    this.expectingKey = isObject;
    this.keyCount = 0;
    this.keyMap = null;
  }

  /** Records `key` written at `offset`; returns the offset of an earlier identical key, or -1. */
  addKey(key: string, offset: number): number {
    if (this.keyMap !== null) {
      const first = this.keyMap.get(key);
      if (first !== undefined) return first;
      this.keyMap.set(key, offset);
      return -1;
    }
    const count = this.keyCount;
    const keys = this.keys;
    for (let i = 0; i < count; i++) {
      if (keys[i] === key) return this.keyOffsets[i] ?? -1;
    }
    if (count === LINEAR_KEY_LIMIT) {
      this.keyMap = new Map();
      for (let i = 0; i < count; i++) this.keyMap.set(keys[i] ?? '', this.keyOffsets[i] ?? -1);
      this.keyMap.set(key, offset);
      return -1;
    }
    keys[count] = key;
    this.keyOffsets[count] = offset;
    this.keyCount = count + 1;
    return -1;
  }
}

/**
 * A number literal that JSON.parse reads as something other than what
 * Python's json.loads makes of it, and where it is: an integer too long for
 * a double to hold exactly, `-0` (the int 0), or a float whose value is
 * integral (`3.0`, `1e2`, `-0.0`, or `1e400`, which overflows to infinity),
 * which JavaScript would hold as an integral number.
 */
export interface ExactNumber {
  path: PathSegment[];
  /** The literal as written, with a leading `-` when negative. */
  text: string;
}

/**
 * An object with a key JavaScript would move to the front (`"7"`), and its
 * keys in the order written; found in the order the objects close, so an
 * object comes after every object inside it.
 */
export interface OrderedObject {
  path: PathSegment[];
  keys: string[];
}

const MINUS = 0x2d;
/** 2**53 has 16 digits: shorter integers are always exact as doubles. */
const EXACT_DIGITS = 15;

/**
 * Problems with the structure of `text`, which must already be valid JSON
 * (JSON.parse accepted it). Each message is `<json path>: <what>` with the
 * line and column of the offending token; an empty list means none.
 * Number literals that JSON.parse misreads (see ExactNumber) are added to
 * `exactNumbers` when it is given, so that the caller can put the exact
 * values in their place, and objects whose key order JSON.parse loses to
 * `orderedObjects` (see OrderedObject).
 */
export function checkJsonStructure(text: string, maxDepth = MAX_JSON_DEPTH, exactNumbers?: ExactNumber[], orderedObjects?: OrderedObject[]): string[] {
  const frames: Frame[] = [];
  /** Frames in use: frames[0 .. depth - 1]; the rest are kept for reuse. */
  let depth = 0;
  const messages: string[] = [];
  let duplicates = 0;
  const length = text.length;
  let pos = 0;
  while (pos < length) {
    const c = text.charCodeAt(pos);
    if (c === QUOTE) {
      const top = depth > 0 ? frames[depth - 1] : undefined;
      if (top === undefined || !top.expectingKey) {
        pos = skipString(text, pos);
        continue;
      }
      const start = pos;
      pos = skipString(text, pos);
      const key = keyValue(text.slice(start + 1, pos - 1));
      top.expectingKey = false;
      top.key = key;
      if (orderedObjects !== undefined && !top.indexKey && isIndexKey(key)) top.indexKey = true;
      const first = top.addKey(key, start);
      if (first !== -1) {
        duplicates++;
        if (duplicates <= MAX_LISTED_DUPLICATES) {
          const path = formatJsonPath(segments(frames, depth - 1));
          messages.push(`${path}: duplicate key ${JSON.stringify(key)} (${where(text, start)}; first at ${where(text, first)})`);
        }
      }
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth >= maxDepth) {
        messages.push(`${shortPath(frames, depth)}: nested deeper than the limit of ${maxDepth} levels (${where(text, pos)})`);
        return messages;
      }
      let frame = frames[depth];
      if (frame === undefined) {
        frame = new Frame();
        frames.push(frame);
      }
      frame.open(c === OPEN_BRACE);
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      const closed = depth > 0 ? frames[depth - 1] : undefined;
      if (closed !== undefined && closed.isObject && closed.indexKey && orderedObjects !== undefined) {
        const keys = closed.keyMap !== null ? [...closed.keyMap.keys()] : closed.keys.slice(0, closed.keyCount);
        orderedObjects.push({ path: segments(frames, depth - 1), keys });
      }
      if (depth > 0) depth--;
    } else if (c === COMMA && depth > 0) {
      const top = frames[depth - 1];
      if (top !== undefined) {
        if (top.isObject) top.expectingKey = true;
        else top.index++;
      }
    } else if ((c >= 0x30 && c <= 0x39) || c === MINUS) {
      // A number token: digits, then maybe a fraction or an exponent.
      const start = pos;
      let integral = true;
      pos++;
      for (; pos < length; pos++) {
        const d = text.charCodeAt(pos);
        if (d >= 0x30 && d <= 0x39) continue;
        if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === MINUS) {
          integral = false;
          continue;
        }
        break;
      }
      if (exactNumbers !== undefined) {
        const digits = pos - start - (c === MINUS ? 1 : 0);
        const literal = text.slice(start, pos);
        const misread = integral ? digits > EXACT_DIGITS || literal === '-0' : !isNonIntegral(Number(literal));
        if (misread) exactNumbers.push({ path: segments(frames, depth), text: literal });
      }
      continue;
    }
    pos++;
  }
  if (duplicates > MAX_LISTED_DUPLICATES) {
    messages.push(`$: ${duplicates - MAX_LISTED_DUPLICATES} more duplicate keys not listed`);
  }
  return messages;
}

/** A finite double that is not an integer, nor -0: the only floats JavaScript keeps apart from ints. */
function isNonIntegral(n: number): boolean {
  return Number.isFinite(n) && !Number.isInteger(n);
}

/** Offset just past the string starting at `start` (its opening quote), or the text's length if it never ends. */
function skipString(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    // A quote is escaped when an odd number of backslashes precedes it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/**
 * The value of a key written as `raw` (between its quotes), as JSON.parse
 * reads it, so that `"a"` and `"\u0061"` are the same key. Only a key with a
 * backslash in it needs decoding, and few have one.
 */
function keyValue(raw: string): string {
  if (!raw.includes('\\')) return raw;
  let value = '';
  let i = 0;
  while (i < raw.length) {
    const char = raw.charAt(i);
    if (char !== '\\') {
      value += char;
      i++;
      continue;
    }
    const kind = raw.charAt(i + 1);
    const code = kind === 'u' ? hexValue(raw.slice(i + 2, i + 6)) : -1;
    if (code !== -1) {
      value += String.fromCharCode(code);
      i += 6;
    } else {
      value += ESCAPES[kind] ?? kind;
      i += 2;
    }
  }
  return value;
}

/** The value of exactly four hex digits, or -1. */
function hexValue(digits: string): number {
  return /^[0-9a-fA-F]{4}$/.test(digits) ? parseInt(digits, 16) : -1;
}

/** What the one-letter escapes stand for; any other escaped character (`"`, `\`, `/`) stands for itself. */
const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function where(text: string, offset: number): string {
  const { line, column } = lineAndColumn(text, offset);
  return `line ${line}, column ${column}`;
}

/** 1-based line and column of a UTF-16 offset; `\r\n` and `\n` both end a line. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The path of the value the first `count` frames are at, from the root. */
function segments(frames: readonly Frame[], count: number): PathSegment[] {
  const path: PathSegment[] = [];
  for (let i = 0; i < count; i++) {
    const frame = frames[i];
    if (frame !== undefined) path.push(frame.isObject ? frame.key : frame.index);
  }
  return path;
}

function shortPath(frames: readonly Frame[], count: number): string {
  const all = segments(frames, count);
  const shown = formatJsonPath(all.slice(0, SHOWN_DEPTH_SEGMENTS));
  return all.length > SHOWN_DEPTH_SEGMENTS ? `${shown}...` : shown;
}
