/**
 * The text of one member of a JSON object, as it was written. A request's
 * inline problem is checked from its own text, like a file, because text
 * is where integers past 2^53 and `1.0` versus `1` in a test's values are
 * still told apart; the parsed body has lost both.
 */

/**
 * The text of the value of `name` in the top-level object of `text` (the
 * last one, as JSON.parse keeps the last of repeated names), or null when
 * there is none. `text` must be valid JSON (it was parsed already).
 */
export function memberText(text: string, name: string): string | null {
  let pos = skipSpace(text, 0);
  if (text.charCodeAt(pos) !== 0x7b) return null;
  pos++;
  let found: string | null = null;
  for (;;) {
    pos = skipSpace(text, pos);
    if (text.charCodeAt(pos) === 0x7d) return found;
    const keyEnd = skipString(text, pos);
    const key = JSON.parse(text.slice(pos, keyEnd)) as string;
    pos = skipSpace(text, keyEnd);
    pos++; // the colon
    pos = skipSpace(text, pos);
    const valueEnd = skipValue(text, pos);
    if (key === name) found = text.slice(pos, valueEnd);
    pos = skipSpace(text, valueEnd);
    if (text.charCodeAt(pos) === 0x2c) pos++;
    else return found;
  }
}

function skipSpace(text: string, pos: number): number {
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    pos++;
  }
  return pos;
}

/** `pos` is at the opening quote; returns the offset after the closing one. */
function skipString(text: string, pos: number): number {
  pos++;
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c === 0x5c) pos += 2;
    else if (c === 0x22) return pos + 1;
    else pos++;
  }
  return pos;
}

/** Returns the offset just after the value that starts at `pos`. */
function skipValue(text: string, pos: number): number {
  const c = text.charCodeAt(pos);
  if (c === 0x22) return skipString(text, pos);
  if (c !== 0x7b && c !== 0x5b) {
    // A number or a literal: up to the next delimiter.
    while (pos < text.length && !',}] \t\r\n'.includes(text.charAt(pos))) pos++;
    return pos;
  }
  let depth = 0;
  while (pos < text.length) {
    const d = text.charCodeAt(pos);
    if (d === 0x22) {
      pos = skipString(text, pos);
      continue;
    }
    if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      depth--;
      if (depth === 0) return pos + 1;
    }
    pos++;
  }
  return pos;
}
