/**
 * The lexical stage of the Python literal parser (python-literal.ts): a
 * cursor over the text that skips space and comments, reads names, numbers
 * and strings, and reports errors with their line and column.
 */

import { floatValue, normalInt } from './py-tags.js';
import type { Value } from './type-node.js';

export class LiteralSyntaxError extends Error {}

// Character classes by code rather than regular expressions: the parser
// reads megabyte-sized lists one character at a time, and comparing a
// character code is the cheaper test.
const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
export const isNameStart = (code: number): boolean => isLetter(code) || code === 95;
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

export class LiteralScanner {
  protected pos = 0;
  private readonly multiline: boolean;

  constructor(protected readonly src: string) {
    this.multiline = src.includes('\n');
  }

  // -- numbers --------------------------------------------------------------

  protected startsNumber(): boolean {
    const code = this.code();
    return isDigit(code) || (code === 46 && isDigit(this.code(1)));
  }

  protected parseNumber(): Value {
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
  protected parseStrings(): string {
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

  protected startsString(): boolean {
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
    if (next === 'N') {
      // A character's name needs the Unicode name table, which is not kept here; Python refuses a \N without one.
      if (/^\{[A-Za-z0-9 -]+\}/.test(this.src.slice(this.pos, this.pos + 100))) {
        this.fail('\\N{...} escapes (characters by name) are not supported: write the character, or a \\u escape', at);
      }
      this.fail('malformed \\N character escape', at);
    }
    // Python keeps unknown escapes such as `\d` as they are.
    return '\\' + next;
  }

  // -- low level ------------------------------------------------------------

  protected readName(): string {
    const start = this.pos;
    while (isNamePart(this.code())) this.pos++;
    return this.src.slice(start, this.pos);
  }

  /** Whitespace, `# comments` and backslash line continuations. */
  protected skipSpace(): void {
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

  protected peek(): string | undefined {
    return this.src[this.pos];
  }

  /** The UTF-16 code `ahead` characters on; NaN past the end, which no class accepts. */
  protected code(ahead = 0): number {
    return this.src.charCodeAt(this.pos + ahead);
  }

  protected atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  protected eat(ch: string): boolean {
    if (this.src[this.pos] !== ch) return false;
    this.pos++;
    return true;
  }

  protected unexpected(expected?: string): never {
    const at = this.pos;
    const ch = this.src[at];
    let what: string;
    if (ch === undefined) what = 'end of input';
    else if (isNameStart(ch.charCodeAt(0))) what = `name '${/^[A-Za-z0-9_]+/.exec(this.src.slice(at))![0]}'`;
    else if (isDigit(ch.charCodeAt(0))) what = `number '${/^[0-9A-Za-z_.]+/.exec(this.src.slice(at))![0]}'`;
    else what = `'${ch}'`;
    return this.fail(`unexpected ${what}`, at, expected ? ` (expected ${expected})` : '');
  }

  protected fail(message: string, at: number, detail = ''): never {
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
