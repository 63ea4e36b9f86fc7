/**
 * What JSON.parse accepts but a problem file must not have: duplicate keys
 * (JSON.parse silently keeps the last one, so a test could quietly differ
 * from what its author reads) and nesting so deep that the recursive steps
 * after parsing (schema check, cloning, decoding) would overflow the stack.
 *
 * One pass over the tokens of jsonc-parser's scanner, with an explicit stack
 * instead of recursion, so that the check itself cannot overflow.
 */
import { createScanner, SyntaxKind } from 'jsonc-parser';
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

interface ObjectFrame {
  kind: 'object';
  /** Each key seen so far, with the offset where it was first written. */
  keys: Map<string, number>;
  key: string | null;
  expectingKey: boolean;
}

interface ArrayFrame {
  kind: 'array';
  index: number;
}

type Frame = ObjectFrame | ArrayFrame;

/**
 * Problems with the structure of `text`, which must already be valid JSON
 * (JSON.parse accepted it). Each message is `<json path>: <what>` with the
 * line and column of the offending token; an empty list means none.
 */
export function checkJsonStructure(text: string, maxDepth = MAX_JSON_DEPTH): string[] {
  const scanner = createScanner(text, true);
  const frames: Frame[] = [];
  const messages: string[] = [];
  let duplicates = 0;
  const where = (offset = scanner.getTokenOffset()): string => {
    const { line, column } = lineAndColumn(text, offset);
    return `line ${line}, column ${column}`;
  };

  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    const top = frames[frames.length - 1];
    switch (token) {
      case SyntaxKind.OpenBraceToken:
      case SyntaxKind.OpenBracketToken:
        if (frames.length >= maxDepth) {
          messages.push(`${shortPath(frames)}: nested deeper than the limit of ${maxDepth} levels (${where()})`);
          return messages;
        }
        frames.push(
          token === SyntaxKind.OpenBraceToken
            ? { kind: 'object', keys: new Map(), key: null, expectingKey: true }
            : { kind: 'array', index: 0 },
        );
        break;
      case SyntaxKind.CloseBraceToken:
      case SyntaxKind.CloseBracketToken:
        frames.pop();
        break;
      case SyntaxKind.CommaToken:
        if (top?.kind === 'array') top.index++;
        else if (top?.kind === 'object') top.expectingKey = true;
        break;
      case SyntaxKind.StringLiteral:
        if (top?.kind !== 'object' || !top.expectingKey) break;
        top.expectingKey = false;
        top.key = scanner.getTokenValue();
        {
          const first = top.keys.get(top.key);
          if (first === undefined) {
            top.keys.set(top.key, scanner.getTokenOffset());
          } else {
            duplicates++;
            if (duplicates <= MAX_LISTED_DUPLICATES) {
              const path = formatJsonPath(segments(frames.slice(0, -1)));
              messages.push(`${path}: duplicate key ${JSON.stringify(top.key)} (${where()}; first at ${where(first)})`);
            }
          }
        }
        break;
      default:
        break;
    }
  }
  if (duplicates > MAX_LISTED_DUPLICATES) {
    messages.push(`$: ${duplicates - MAX_LISTED_DUPLICATES} more duplicate keys not listed`);
  }
  return messages;
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

/** The path of the value each frame is currently at, from the root. */
function segments(frames: readonly Frame[]): PathSegment[] {
  return frames.map((frame) => (frame.kind === 'array' ? frame.index : (frame.key ?? '')));
}

function shortPath(frames: readonly Frame[]): string {
  const all = segments(frames);
  const shown = formatJsonPath(all.slice(0, SHOWN_DEPTH_SEGMENTS));
  return all.length > SHOWN_DEPTH_SEGMENTS ? `${shown}...` : shown;
}
