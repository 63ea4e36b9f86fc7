/**
 * A parser for Python data literals, in the spirit of `ast.literal_eval`:
 * numbers, strings, True/False/None, lists, tuples, sets and dicts. It also
 * takes the JSON spellings people mix in (`true`, `null`, `"\u00e9"`) and the
 * float spellings that Python's `repr` and JavaScript print (`inf`, `nan`,
 * `Infinity`, `NaN`, `float('inf')`).
 *
 * Nothing is evaluated and nesting is bounded, so hostile input yields an
 * error, never a crash. Tuples, sets and frozensets become their tags
 * (py-tags.ts), integers beyond the safe range bigints, and a dict whose
 * keys are all strings a plain object (otherwise a dict tag).
 */

import { distinctItems, formatValue, valueKey } from './format.js';
import { dict, floatValue, isIndexKey, normalInt, pySet, tagItems, tagOf, tuple, WIRE_TAG, type FloatTag } from './py-tags.js';
import type { Value } from './type-node.js';

export type LiteralResult = { ok: true; value: Value } | { ok: false; error: string };

/** Deeper nesting is refused: each level costs a few stack frames. */
export const MAX_LITERAL_DEPTH = 1000;

export function parsePythonLiteral(text: string): LiteralResult {
  if (typeof text !== 'string') return { ok: false, error: 'a literal must be a string' };
  try {
    return { ok: true, value: new LiteralParser(text).parseDocument() };
  } catch (error) {
    if (error instanceof LiteralSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

class LiteralSyntaxError extends Error {}

// Character classes by code: this parser reads megabyte-sized lists, and a
// regular expression per character costs several times more.
const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isNameStart = (code: number): boolean => isLetter(code) || code === 95;
const isNamePart = (code: number): boolean => isNameStart(code) || isDigit(code);
const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13);
const STRING_PREFIXES = new Set(['u', 'r', 'b', 'br', 'rb', 'f', 'fr', 'rf']);
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  // Python keeps `\/` as two characters; JSON means '/'. JSON's reading is
  // the one that can have been intended.
  '/': '/',
};

class LiteralParser {
  private pos = 0;
  private readonly multiline: boolean;

  constructor(private readonly src: string) {
    this.multiline = src.includes('\n');
  }

  /** A whole input: one value, or a bare tuple `1, 2` as Python allows. */
  parseDocument(): Value {
    this.skipSpace();
    if (this.atEnd()) this.fail('empty input', this.pos);
    const first = this.parseValue(0);
    this.skipSpace();
    let value = first;
    if (this.peek() === ',') {
      const items = [first];
      while (this.peek() === ',') {
        this.pos++;
        this.skipSpace();
        if (this.atEnd()) break;
        items.push(this.parseValue(1));
        this.skipSpace();
      }
      value = tuple(items);
    }
    if (!this.atEnd()) this.unexpected();
    return value;
  }

  private parseValue(depth: number): Value {
    if (depth >= MAX_LITERAL_DEPTH) this.fail(`nesting deeper than ${MAX_LITERAL_DEPTH} levels`, this.pos);
    this.skipSpace();
    const ch = this.peek();
    if (ch === undefined) return this.unexpected();
    if (ch === '[') return this.parseList(depth);
    if (ch === '(') return this.parseParenthesized(depth);
    if (ch === '{') return this.parseBraced(depth);
    if (ch === '"' || ch === "'") return this.parseStrings();
    if (ch === '-' || ch === '+') return this.parseSigned();
    if (this.startsNumber()) return this.parseNumber();
    if (isNameStart(this.code())) return this.startsString() ? this.parseStrings() : this.parseName(depth);
    return this.unexpected();
  }

  // -- containers -----------------------------------------------------------

  private parseList(depth: number): Value[] {
    this.pos++;
    const items: Value[] = [];
    for (;;) {
      this.skipSpace();
      if (this.eat(']')) return items;
      items.push(this.parseValue(depth + 1));
      this.skipSpace();
      if (this.eat(',')) continue;
      if (this.eat(']')) return items;
      this.unexpected("',' or ']'");
    }
  }

  /** `()` and `(1,)` are tuples; `(1)` is just 1 in parentheses. */
  private parseParenthesized(depth: number): Value {
    this.pos++;
    this.skipSpace();
    if (this.eat(')')) return tuple([]);
    const first = this.parseValue(depth + 1);
    this.skipSpace();
    if (this.eat(')')) return first;
    if (this.peek() !== ',') this.unexpected("',' or ')'");
    const items = [first];
    while (this.eat(',')) {
      this.skipSpace();
      if (this.eat(')')) return tuple(items);
      items.push(this.parseValue(depth + 1));
      this.skipSpace();
    }
    if (this.eat(')')) return tuple(items);
    return this.unexpected("',' or ')'");
  }

  /** `{}` is an empty dict, as in Python; `{1, 2}` a set; `{k: v}` a dict. */
  private parseBraced(depth: number): Value {
    this.pos++;
    this.skipSpace();
    if (this.eat('}')) return {};
    const firstAt = this.pos;
    const first = this.parseValue(depth + 1);
    this.skipSpace();
    if (this.peek() === ':') return this.parseDictRest(depth, first, firstAt);
    const items = [first];
    for (;;) {
      if (this.eat('}')) return pySet(distinctItems(items));
      if (!this.eat(',')) this.unexpected("',' or '}'");
      this.skipSpace();
      if (this.eat('}')) return pySet(distinctItems(items));
      items.push(this.parseValue(depth + 1));
      this.skipSpace();
    }
  }

  private parseDictRest(depth: number, firstKey: Value, firstKeyAt: number): Value {
    const entries: [Value, Value][] = [];
    const seen = new Map<string, number>();
    let key = firstKey;
    let keyAt = firstKeyAt;
    for (;;) {
      if (!this.eat(':')) this.unexpected("':'");
      const value = this.parseValue(depth + 1);
      this.checkKey(key, keyAt);
      // A repeated key keeps its first place and its last value, as in Python.
      const id = valueKey(key);
      const earlier = id === undefined ? undefined : seen.get(id);
      if (earlier !== undefined) entries[earlier]![1] = value;
      else {
        if (id !== undefined) seen.set(id, entries.length);
        entries.push([key, value]);
      }
      this.skipSpace();
      if (this.eat('}')) return dictValue(entries);
      if (!this.eat(',')) this.unexpected("',' or '}'");
      this.skipSpace();
      if (this.eat('}')) return dictValue(entries);
      keyAt = this.pos;
      key = this.parseValue(depth + 1);
      this.skipSpace();
    }
  }

  /** Keys must be hashable: scalars, and tuples and frozensets of hashable things. */
  private checkKey(key: Value, at: number): void {
    if (isHashable(key, 0)) return;
    this.fail(`dict key must be hashable (str, int, float, bool, None or a tuple of them), got ${formatValue(key, 30)}`, at);
  }

  // -- names and calls ------------------------------------------------------

  private parseName(depth: number): Value {
    const start = this.pos;
    const name = this.readName();
    switch (name) {
      case 'True':
      case 'true':
        return true;
      case 'False':
      case 'false':
        return false;
      case 'None':
      case 'null':
        return null;
      case 'inf':
      case 'Infinity':
        return floatValue(Infinity);
      case 'nan':
      case 'NaN':
        return floatValue(NaN);
      case 'float':
        return floatValue(this.parseFloatCall(start));
      case 'set':
      case 'frozenset':
        return pySet(this.parseIterableCall(name, depth, true), name === 'frozenset');
      case 'list':
        return this.parseIterableCall(name, depth, false);
      case 'tuple':
        return tuple(this.parseIterableCall(name, depth, false));
      case 'dict':
        if (this.parseCallArguments(name, depth) !== undefined) this.fail('dict() takes no arguments here', start);
        return {};
      default:
        return this.fail(`unexpected name '${name}'`, start);
    }
  }

  /** `float('inf')`, `float("-inf")`, `float('nan')`, `float('1.5')`, `float(2)`. */
  private parseFloatCall(start: number): number {
    const argAt = this.pos;
    const arg = this.parseCallArguments('float', 0);
    if (typeof arg === 'number') return arg;
    if (typeof arg === 'bigint') return Number(arg);
    if (tagOf(arg) === 'float') return Number((arg as unknown as FloatTag).value);
    if (typeof arg === 'string') {
      const value = pythonFloat(arg);
      if (value !== undefined) return value;
      return this.fail(`could not convert string to float: ${formatValue(arg, 30)}`, argAt);
    }
    return this.fail('float() needs a string or a number', start);
  }

  private parseIterableCall(name: string, depth: number, unique: boolean): Value[] {
    const at = this.pos;
    const arg = this.parseCallArguments(name, depth);
    if (arg === undefined) return [];
    const given = Array.isArray(arg) ? arg : tagItems(arg);
    if (given === undefined) return this.fail(`${name}() needs a list, tuple or set literal`, at);
    return unique ? distinctItems(given) : given;
  }

  /** `(` [value [`,`]] `)`: calls here take at most one argument. */
  private parseCallArguments(name: string, depth: number): Value | undefined {
    this.skipSpace();
    if (!this.eat('(')) this.unexpected(`'(' after '${name}'`);
    this.skipSpace();
    if (this.eat(')')) return undefined;
    const arg = this.parseValue(depth + 1);
    this.skipSpace();
    if (this.eat(',')) this.skipSpace();
    if (!this.eat(')')) this.unexpected("')'");
    return arg;
  }

  // -- numbers --------------------------------------------------------------

  private parseSigned(): Value {
    const sign = this.src[this.pos];
    this.pos++;
    this.skipSpace();
    let value: Value;
    if (this.startsNumber()) {
      value = this.parseNumber();
    } else if (isNameStart(this.code())) {
      const start = this.pos;
      const name = this.readName();
      if (name === 'float') value = floatValue(this.parseFloatCall(start));
      else if (name === 'inf' || name === 'Infinity') value = floatValue(Infinity);
      else if (name === 'nan' || name === 'NaN') value = floatValue(NaN);
      else return this.fail(`unexpected name '${name}' after '${sign}'`, start);
    } else {
      return this.unexpected(`a number after '${sign}'`);
    }
    if (sign !== '-') return value;
    if (typeof value === 'bigint') return normalInt(-value);
    // An int is negated as an int (-0 is 0); a float as a float (-0.0 stays -0.0).
    if (typeof value === 'number') return Number.isInteger(value) ? 0 - value : -value;
    return floatValue(-Number((value as unknown as FloatTag).value));
  }

  private startsNumber(): boolean {
    const code = this.code();
    return isDigit(code) || (code === 46 && isDigit(this.code(1)));
  }

  private parseNumber(): Value {
    const start = this.pos;
    const radix = this.src[start] === '0' ? RADIX_PREFIX[(this.src[start + 1] ?? '').toLowerCase()] : undefined;
    const value = radix !== undefined ? this.parseRadixInteger(start, radix) : this.parseDecimal(start);
    const after = this.peek();
    if (after !== undefined && isNamePart(this.code())) {
      if (after === 'j' || after === 'J') this.fail('complex numbers are not supported', start);
      this.fail(`invalid number '${this.src.slice(start, this.pos + 1)}'`, start);
    }
    return value;
  }

  private parseRadixInteger(start: number, radix: number): number | bigint {
    this.pos = start + 2;
    while (isNamePart(this.code())) this.pos++;
    const digits = this.src.slice(start + 2, this.pos);
    const valid = RADIX_DIGITS[radix]!;
    if (!valid.test(digits)) this.fail(`invalid number '${this.src.slice(start, this.pos)}'`, start);
    const clean = digits.replace(/_/g, '');
    const prefix = radix === 16 ? '0x' : radix === 8 ? '0o' : '0b';
    return normalInt(BigInt(prefix + clean));
  }

  private parseDecimal(start: number): Value {
    const whole = this.readDigits();
    let fraction: string | undefined;
    let exponent: string | undefined;
    if (this.eat('.')) fraction = this.readDigits();
    const e = this.peek();
    if (e === 'e' || e === 'E') {
      this.pos++;
      const sign = this.peek() === '+' || this.peek() === '-' ? this.src[this.pos++]! : '';
      exponent = sign + this.readDigits();
      if (!/\d/.test(exponent)) this.fail(`invalid number '${this.src.slice(start, this.pos)}'`, start);
    }
    const text = this.src.slice(start, this.pos);
    const underscores = text.includes('_');
    if (underscores) {
      const parts = [whole, fraction ?? '', (exponent ?? '').replace(/^[+-]/, '')];
      if (parts.some((part) => part !== '' && !/^\d+(_\d+)*$/.test(part))) {
        this.fail(`invalid number '${text}'`, start);
      }
    }
    if (fraction === undefined && exponent === undefined && whole[0] === '0' && /^0+_?[1-9]/.test(whole)) {
      this.fail('leading zeros in decimal integer literals are not permitted', start);
    }
    const clean = underscores ? text.replace(/_/g, '') : text;
    // Integers are exact at any length, as Python's are.
    if (fraction === undefined && exponent === undefined) return clean.length > 15 ? normalInt(BigInt(clean)) : Number(clean);
    // A float is a float whatever its value: 3.0 and 1e2 keep their kind.
    return floatValue(Number(clean));
  }

  private readDigits(): string {
    const start = this.pos;
    for (let code = this.code(); isDigit(code) || code === 95; code = this.code()) this.pos++;
    return this.src.slice(start, this.pos);
  }

  // -- strings --------------------------------------------------------------

  /** Adjacent literals concatenate: `'a' "b"` is `'ab'`. */
  private parseStrings(): string {
    let text = this.parseString();
    for (;;) {
      const save = this.pos;
      this.skipSpace();
      if (!this.startsString()) {
        this.pos = save;
        return text;
      }
      text += this.parseString();
    }
  }

  private startsString(): boolean {
    let i = this.pos;
    while (i - this.pos < 2 && isLetter(this.src.charCodeAt(i))) i++;
    const quote = this.src[i];
    if (quote !== '"' && quote !== "'") return false;
    return i === this.pos || STRING_PREFIXES.has(this.src.slice(this.pos, i).toLowerCase());
  }

  private parseString(): string {
    const start = this.pos;
    while (isLetter(this.code())) this.pos++;
    const prefix = this.src.slice(start, this.pos).toLowerCase();
    if (prefix.includes('b')) this.fail('bytes literals are not supported', start);
    if (prefix.includes('f')) this.fail('f-strings are not literals', start);
    const raw = prefix.includes('r');
    const quote = this.src[this.pos]!;
    const triple = this.src.startsWith(quote.repeat(3), this.pos);
    this.pos += triple ? 3 : 1;
    const chunks: string[] = [];
    let chunkStart = this.pos;
    for (;;) {
      const ch = this.src[this.pos];
      if (ch === undefined || (ch === '\n' && !triple)) this.fail('unterminated string', start);
      if (ch === quote && (!triple || this.src.startsWith(quote.repeat(3), this.pos))) {
        chunks.push(this.src.slice(chunkStart, this.pos));
        this.pos += triple ? 3 : 1;
        return chunks.join('');
      }
      if (ch === '\\') {
        chunks.push(this.src.slice(chunkStart, this.pos));
        chunks.push(raw ? this.rawEscape(start) : this.escape(start));
        chunkStart = this.pos;
      } else {
        this.pos++;
      }
    }
  }

  /** In raw strings a backslash only stops the next character from closing the string. */
  private rawEscape(stringStart: number): string {
    const next = this.src[this.pos + 1];
    if (next === undefined) this.fail('unterminated string', stringStart);
    this.pos += 2;
    return '\\' + next;
  }

  private escape(stringStart: number): string {
    const at = this.pos;
    const next = this.src[at + 1];
    if (next === undefined) return this.fail('unterminated string', stringStart);
    this.pos += 2;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) return simple;
    if (next === '\n') return '';
    if (next === '\r') {
      if (this.peek() === '\n') this.pos++;
      return '';
    }
    if (/[0-7]/.test(next)) {
      let digits = next;
      while (digits.length < 3 && /[0-7]/.test(this.peek() ?? '')) digits += this.src[this.pos++]!;
      return String.fromCharCode(parseInt(digits, 8));
    }
    const hexLength = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
    if (hexLength > 0) {
      const hex = this.src.slice(this.pos, this.pos + hexLength);
      if (hex.length !== hexLength || !/^[0-9a-fA-F]+$/.test(hex)) this.fail(`truncated \\${next} escape`, at);
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) this.fail(`invalid \\${next} escape`, at);
      this.pos += hexLength;
      return String.fromCodePoint(code);
    }
    if (next === 'N') this.fail('\\N{...} escapes are not supported', at);
    // Python keeps unknown escapes such as `\d` as they are.
    return '\\' + next;
  }

  // -- low level ------------------------------------------------------------

  private readName(): string {
    const start = this.pos;
    while (isNamePart(this.code())) this.pos++;
    return this.src.slice(start, this.pos);
  }

  /** Whitespace, `# comments` and backslash line continuations. */
  private skipSpace(): void {
    for (;;) {
      const ch = this.src[this.pos];
      if (ch === undefined) return;
      if (isSpace(this.code())) {
        this.pos++;
      } else if (ch === '#') {
        const end = this.src.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.src.length : end;
      } else if (ch === '\\' && (this.src[this.pos + 1] === '\n' || this.src.startsWith('\r\n', this.pos + 1))) {
        this.pos += this.src[this.pos + 1] === '\n' ? 2 : 3;
      } else {
        return;
      }
    }
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  /** The UTF-16 code `ahead` characters on; NaN past the end, which no class accepts. */
  private code(ahead = 0): number {
    return this.src.charCodeAt(this.pos + ahead);
  }

  private atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  private eat(ch: string): boolean {
    if (this.src[this.pos] !== ch) return false;
    this.pos++;
    return true;
  }

  private unexpected(expected?: string): never {
    const at = this.pos;
    const ch = this.src[at];
    let what: string;
    if (ch === undefined) what = 'end of input';
    else if (isNameStart(ch.charCodeAt(0))) what = `name '${/^[A-Za-z0-9_]+/.exec(this.src.slice(at))![0]}'`;
    else if (isDigit(ch.charCodeAt(0))) what = `number '${/^[0-9A-Za-z_.]+/.exec(this.src.slice(at))![0]}'`;
    else what = `'${ch}'`;
    return this.fail(`unexpected ${what}`, at, expected ? ` (expected ${expected})` : '');
  }

  private fail(message: string, at: number, detail = ''): never {
    throw new LiteralSyntaxError(`${message} at ${this.where(at)}${detail}`);
  }

  private where(at: number): string {
    if (!this.multiline) return `column ${at + 1}`;
    const before = this.src.slice(0, at);
    const line = before.split('\n').length;
    return `line ${line}, column ${at - before.lastIndexOf('\n')}`;
  }
}

const RADIX_PREFIX: Readonly<Record<string, number>> = { x: 16, o: 8, b: 2 };
const RADIX_DIGITS: Readonly<Record<number, RegExp>> = {
  16: /^_?[0-9a-fA-F]+(_[0-9a-fA-F]+)*$/,
  8: /^_?[0-7]+(_[0-7]+)*$/,
  2: /^_?[01]+(_[01]+)*$/,
};

/** The characters str.isspace() holds (JavaScript's trim() differs: it takes U+FEFF, leaves U+001C-U+001F and U+0085). */
const PYTHON_SPACE = '[\\t\\n\\v\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PYTHON_STRIP = new RegExp(`^${PYTHON_SPACE}+|${PYTHON_SPACE}+$`, 'g');

/** `text.strip()` as Python does it, which int() and float() do to their argument. */
export function pythonStrip(text: string): string {
  return text.replace(PYTHON_STRIP, '');
}

const PYTHON_DECIMAL = /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;

/**
 * What Python's `float(text)` accepts: surrounding whitespace, a sign,
 * `inf`/`infinity`/`nan` in any case, decimal digits with underscores.
 */
export function pythonFloat(text: string): number | undefined {
  const trimmed = pythonStrip(text);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(trimmed);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  return PYTHON_DECIMAL.test(trimmed) ? Number(trimmed.replace(/_/g, '')) : undefined;
}


/** A dict whose keys are all strings (none of them the tag's name nor an array index) is a plain object; any other a dict tag. */
function dictValue(entries: [Value, Value][]): Value {
  // A key such as "7" would move to the front of a JavaScript object: the entries keep the order written.
  if (!entries.every(([key]) => typeof key === 'string' && key !== WIRE_TAG && !isIndexKey(key))) return dict(entries);
  const out: { [key: string]: Value } = {};
  for (const [key, value] of entries) setOwn(out, key as string, value);
  return out;
}

function isHashable(key: Value, depth: number): boolean {
  if (depth > 100) return false;
  if (key === null || typeof key !== 'object') return true;
  const tag = tagOf(key);
  if (tag === 'tuple' || tag === 'frozenset') return (tagItems(key) ?? []).every((item) => isHashable(item, depth + 1));
  return tag === 'float';
}

/** A key named `__proto__` must become data, not replace the prototype. */
export function setOwn(target: { [key: string]: Value }, key: string, value: Value): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
