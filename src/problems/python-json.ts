import { floatValue } from '../values/py-tags.js';

/**
 * Python's `json.dump` writes a float JSON cannot spell as `NaN`,
 * `Infinity` or `-Infinity`, and `json.load` reads them back, so problem
 * files written from Python hold them. JSON.parse does not: each is
 * written as a stand-in string for it to read, and the stand-ins become the
 * floats once the document is parsed.
 */

const STAND_IN = '\u0000evalrun:';
const CONSTANTS: Readonly<Record<string, number>> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

/** The text with every bare `NaN`, `Infinity` and `-Infinity` outside a string made a stand-in string, or null when it has none. */
export function standInPythonConstants(text: string): string | null {
  let out = '';
  let from = 0;
  let found = false;
  for (let pos = 0; pos < text.length; pos++) {
    const c = text[pos];
    if (c === '"') {
      // Past the string, escapes and all.
      for (pos++; pos < text.length && text[pos] !== '"'; pos++) if (text[pos] === '\\') pos++;
      continue;
    }
    if (c !== 'N' && c !== 'I' && c !== '-') continue;
    const word = /-?Infinity|NaN/y;
    word.lastIndex = pos;
    const m = word.exec(text);
    if (m === null || /[\w$]/.test(text[pos + m[0].length] ?? '') || (pos > 0 && /[\w$.]/.test(text[pos - 1] ?? ''))) continue;
    out += `${text.slice(from, pos)}${JSON.stringify(STAND_IN + m[0])}`;
    pos += m[0].length - 1;
    from = pos + 1;
    found = true;
  }
  return found ? out + text.slice(from) : null;
}

/** The parsed document with each stand-in string made the float it stands for. */
export function restorePythonConstants(value: unknown): unknown {
  if (typeof value === 'string') return value.startsWith(STAND_IN) ? floatValue(CONSTANTS[value.slice(STAND_IN.length)] ?? NaN) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restorePythonConstants(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record))
    Object.defineProperty(record, key, { value: restorePythonConstants(record[key]), enumerable: true, writable: true, configurable: true });
  return value;
}

/** Whether a parsed document holds a stand-in anywhere (`standInPythonConstants`), before `restorePythonConstants`. */
export function holdsPythonConstant(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith(STAND_IN);
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value as Record<string, unknown>).some(holdsPythonConstant);
}
