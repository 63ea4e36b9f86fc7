/** The lexical stage of the type grammar: a type string as a list of tokens. */

export type Punct = '[' | ']' | ',' | '|' | '(' | ')' | '...' | '->' | ':';
export type Token =
  | { kind: 'name'; text: string; start: number; end: number }
  | { kind: 'string'; text: string; start: number; end: number }
  | { kind: 'punct'; text: Punct; start: number; end: number }
  | { kind: 'end'; start: number; end: number };

export class TypeSyntaxError extends Error {}

export function fail(): never {
  throw new TypeSyntaxError();
}

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const start = i;
    if (NAME_START.test(ch)) {
      i = scanDottedName(text, i);
      tokens.push({ kind: 'name', text: text.slice(start, i), start, end: i });
    } else if (ch === "'" || ch === '"') {
      const close = text.indexOf(ch, i + 1);
      if (close < 0) fail();
      tokens.push({ kind: 'string', text: text.slice(i + 1, close), start, end: close + 1 });
      i = close + 1;
    } else if (text.startsWith('...', i)) {
      i += 3;
      tokens.push({ kind: 'punct', text: '...', start, end: i });
    } else if (ch === '…') {
      i += 1;
      tokens.push({ kind: 'punct', text: '...', start, end: i });
    } else if (text.startsWith('->', i)) {
      i += 2;
      tokens.push({ kind: 'punct', text: '->', start, end: i });
    } else if ('[],|():'.includes(ch)) {
      i += 1;
      tokens.push({ kind: 'punct', text: ch as Punct, start, end: i });
    } else {
      fail();
    }
  }
  tokens.push({ kind: 'end', start: text.length, end: text.length });
  return tokens;
}

function scanDottedName(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && NAME_PART.test(text[i]!)) i++;
    const next = text[i + 1];
    if (text[i] !== '.' || next === undefined || !NAME_START.test(next)) return i;
    i++;
  }
}
