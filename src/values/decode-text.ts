/**
 * Text where a value is expected: read as JSON or as a Python literal, or,
 * for scalars, as Python's int() and float() read it (decode.ts decodes
 * the result by the declared type).
 */

import { floatValue, normalInt, WIRE_TAG } from './py-tags.js';
import { pythonFloat, pythonStrip } from './python-float.js';
import { type LiteralResult, parsePythonLiteral } from './python-literal.js';
import type { TypeNode, Value } from './type-node.js';

/**
 * Most encoded values are JSON, which JSON.parse reads faster than the
 * literal parser, and to the same value (every JSON text means the same as a Python literal
 * here); anything else goes to the Python literal parser.
 */
export function readLiteral(text: string): LiteralResult {
  // JSON.parse would round an integer of 16 digits or more; the literal parser keeps it exact,
  // and reads an object with a "$evalrun" key as the dict it is.
  if (LONG_DIGITS.test(text) || FLOAT_OR_MINUS_ZERO.test(text) || INDEX_KEY.test(text) || text.includes(WIRE_TAG)) return parsePythonLiteral(text);
  try {
    return { ok: true, value: JSON.parse(text) as Value };
  } catch {
    return parsePythonLiteral(text);
  }
}

const LONG_DIGITS = /\d{16}/;
/**
 * JSON.parse reads `3.0` as 3 and `-0` as -0: text that may hold a float
 * literal or a negative zero goes to the literal parser, which keeps kinds.
 */
const FLOAT_OR_MINUS_ZERO = /\d[.eE]|\.\d|-\s*0/;
/** JSON.parse moves a key such as "7" to the front of its object; the literal parser keeps the order written. */
const INDEX_KEY = /"\d+"\s*:/;

export function scalarFromText(text: string, type: TypeNode): Value | undefined {
  const trimmed = pythonStrip(text);
  switch (type.kind) {
    case 'int':
      return /^[+-]?\d+(_\d+)*$/.test(trimmed) ? normalInt(BigInt(trimmed.replace(/_/g, ''))) : undefined;
    case 'float': {
      const n = pythonFloat(trimmed);
      return n === undefined ? undefined : floatValue(n);
    }
    case 'bool': {
      const lower = trimmed.toLowerCase();
      return lower === 'true' ? true : lower === 'false' ? false : undefined;
    }
    case 'none':
      return /^(none|null)$/i.test(trimmed) ? null : undefined;
    default:
      return undefined;
  }
}

/** The contents of a string that is one quoted Python/JSON string literal. */
export function quotedString(raw: unknown): string | undefined {
  const literal = quotedLiteral(raw);
  return literal?.ok === true && typeof literal.value === 'string' ? literal.value : undefined;
}

/** The reading of text that opens as a quoted string literal would, whatever it turns out to be; undefined for other text. */
export function quotedLiteral(raw: unknown): LiteralResult | undefined {
  return typeof raw === 'string' && /^\s*[uUrR]?["']/.test(raw) ? readLiteral(raw) : undefined;
}
