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

import { formatValue } from './format.js';
import { dict, floatValue, isIndexKey, normalInt, pySet, tagItems, tagOf, tuple, WIRE_TAG, type FloatTag } from './py-tags.js';
import { pythonFloat } from './python-float.js';
import { isNameStart, LiteralScanner, LiteralSyntaxError } from './python-literal-scanner.js';
import type { Value } from './type-node.js';
import { distinctItems, valueKey } from './value-key.js';

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

/** The grammar: values, containers, names and calls, over the scanner's tokens. */
class LiteralParser extends LiteralScanner {
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
