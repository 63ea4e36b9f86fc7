/**
 * Names of the functions and classes a JavaScript/TypeScript solution binds at
 * top level, for the entry-point rule "else the last top-level function" used
 * with genericized prompts (the reference framework calls the last function
 * the code defines).
 *
 * Counted, at bracket depth 0 and in statement position:
 *   function f / async function f / function* f   (also after `export`, `export default`)
 *   class C                                        (also `abstract class C`)
 *   const|let|var f = function… | async… | class… | (…) => | x => | <T>(…) =>
 *     (every declarator of a `const a = …, b = …` list; TS type annotations allowed)
 * Not counted: nested functions, methods, object-literal members, anonymous
 * defaults (`export default () => …`), `declare function` (no body), and any
 * other value (`const x = 1`, `const f = make()`).
 *
 * Each name appears once, at its first binding, in source order: like the
 * reference framework, whose globals dict keeps a redefined name at its
 * original position. Meant for the source as the model wrote it (after
 * extractCode); on esbuild's CommonJS output (`prepareJavaScript`) the runtime
 * helpers esbuild adds (`__export`, `__toCommonJS`…) are left out.
 */
import { matchingCloser, tokenizeJs, type Token } from './js-tokens.js';

/** Words that start a new statement, so a declaration after a line break is not a continuation. */
const DECLARATION_WORDS = new Set(['function', 'async', 'class', 'const', 'let', 'var', 'export', 'import', 'abstract', 'declare']);

/** Words after which a line break does not end the statement (the expression continues). */
const CONTINUING_WORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'yield',
  'await',
  'extends',
  'as',
  'satisfies',
  'keyof',
]);

/** Tokens after which a line break may end a statement (automatic semicolon insertion). */
function canEndStatement(t: Token): boolean {
  switch (t.kind) {
    case 'word':
      return !CONTINUING_WORDS.has(t.value);
    case 'punct':
      return t.value === ')' || t.value === ']' || t.value === '}' || t.value === '++' || t.value === '--';
    default:
      return true;
  }
}

function isPunct(t: Token | undefined, value: string): boolean {
  return t !== undefined && t.kind === 'punct' && t.value === value;
}

function isWord(t: Token | undefined, value?: string): t is Token {
  return t !== undefined && t.kind === 'word' && (value === undefined || t.value === value);
}

function atStatementStart(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i] as Token;
  if (t.depth !== 0) return false;
  const prev = tokens[i - 1];
  if (prev === undefined) return true;
  if (isPunct(prev, ';') || isPunct(prev, '}')) return true;
  return t.newlineBefore && canEndStatement(prev);
}

/** True when the tokens from `i` on, at the depth of token `i`, reach `=>` before the expression ends. */
function arrowFollows(tokens: readonly Token[], i: number, depth: number): boolean {
  for (let k = i; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.depth < depth) return false;
    if (t.depth > depth) continue;
    if (isPunct(t, '=>')) return true;
    if (isPunct(t, ';') || isPunct(t, ',') || isPunct(t, '=')) return false;
    if (t.newlineBefore && t.kind === 'word' && DECLARATION_WORDS.has(t.value)) return false;
  }
  return false;
}

/** `(params) =>`, or `(params): ReturnType =>` in TypeScript, starting at `open`. */
function isParenArrow(tokens: readonly Token[], open: number): boolean {
  const close = matchingCloser(tokens, open);
  if (close === -1) return false;
  const after = tokens[close + 1];
  if (isPunct(after, '=>')) return true;
  return isPunct(after, ':') && arrowFollows(tokens, close + 2, (tokens[open] as Token).depth);
}

/** `<T>(params) =>`: skip the type parameters to the first `(` that follows a `>`. */
function isGenericArrow(tokens: readonly Token[], lt: number): boolean {
  const depth = (tokens[lt] as Token).depth;
  for (let k = lt + 1; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.depth < depth || isPunct(t, ';')) return false;
    if (t.depth === depth && isPunct(t, '(')) {
      const before = tokens[k - 1] as Token;
      return (isPunct(before, '>') || isPunct(before, '>>')) && isParenArrow(tokens, k);
    }
  }
  return false;
}

/** Whether the initializer starting at `i` makes the variable a function or class. */
function isFunctionInitializer(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i];
  if (t === undefined) return false;
  if (isWord(t, 'function') || isWord(t, 'class')) return true;
  if (isPunct(t, '(')) return isParenArrow(tokens, i);
  if (isPunct(t, '<')) return isGenericArrow(tokens, i);
  if (isWord(t, 'async')) {
    const next = tokens[i + 1];
    if (next === undefined || next.newlineBefore) return false;
    if (isWord(next, 'function')) return true;
    if (isPunct(next, '(')) return isParenArrow(tokens, i + 1);
    if (isPunct(next, '<')) return isGenericArrow(tokens, i + 1);
    return isWord(next) && isPunct(tokens[i + 2], '=>');
  }
  return isWord(t) && isPunct(tokens[i + 1], '=>');
}

/** Index just past the current declarator: its `,` or `;` at depth 0, or where a new statement starts. */
function endOfDeclarator(tokens: readonly Token[], i: number): number {
  for (let k = i; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.depth !== 0) continue;
    if (isPunct(t, ',') || isPunct(t, ';')) return k;
    if (k > i && t.newlineBefore && t.kind === 'word' && DECLARATION_WORDS.has(t.value)) return k;
  }
  return tokens.length;
}

interface Scan {
  names: string[];
  /** Where scanning resumes. */
  next: number;
}

/** `const a = …, b = …`: the declared names whose initializers are functions. */
function scanVariableDeclaration(tokens: readonly Token[], kw: number): Scan {
  const names: string[] = [];
  let i = kw + 1;
  for (;;) {
    const target = tokens[i];
    if (target === undefined) return { names, next: i };
    let k = i + 1;
    if (isPunct(target, '{') || isPunct(target, '[')) {
      // Destructuring binds no function we can name.
      const close = matchingCloser(tokens, i);
      k = close === -1 ? tokens.length : close + 1;
    } else if (!isWord(target)) {
      return { names, next: i };
    }
    if (isPunct(tokens[k], '!')) k++;
    if (isPunct(tokens[k], ':')) {
      // TypeScript annotation: skip to the `=` (or the end) at depth 0.
      while (k < tokens.length && !(tokens[k]!.depth === 0 && (isPunct(tokens[k], '=') || isPunct(tokens[k], ',') || isPunct(tokens[k], ';')))) k++;
    }
    if (isPunct(tokens[k], '=') && isWord(target) && isFunctionInitializer(tokens, k + 1)) names.push(target.value);
    const end = endOfDeclarator(tokens, k);
    if (!isPunct(tokens[end], ',')) return { names, next: end };
    i = end + 1;
  }
}

/** A declaration starting at statement position `i`, if there is one. */
function scanStatement(tokens: readonly Token[], i: number): Scan {
  let k = i;
  if (isWord(tokens[k], 'export')) k++;
  if (isWord(tokens[k], 'default')) k++;
  if (isWord(tokens[k], 'declare')) return { names: [], next: k + 1 };
  if (isWord(tokens[k], 'abstract') && isWord(tokens[k + 1], 'class')) k++;
  if (isWord(tokens[k], 'async') && isWord(tokens[k + 1], 'function') && !tokens[k + 1]!.newlineBefore) k++;
  const t = tokens[k];
  if (isWord(t, 'function')) {
    let n = k + 1;
    if (isPunct(tokens[n], '*')) n++;
    const name = tokens[n];
    return { names: isWord(name) ? [name.value] : [], next: n };
  }
  if (isWord(t, 'class')) {
    const name = tokens[k + 1];
    const named = isWord(name) && name.value !== 'extends' && name.value !== 'implements';
    return { names: named ? [name.value] : [], next: k + 1 };
  }
  if (isWord(t, 'const') || isWord(t, 'let') || isWord(t, 'var')) {
    // `const enum E {}` is a TypeScript enum, not a variable.
    if (isWord(tokens[k + 1], 'enum')) return { names: [], next: k + 2 };
    return scanVariableDeclaration(tokens, k);
  }
  return { names: [], next: i + 1 };
}

/** The helpers esbuild prepends to CommonJS output; not the candidate's functions. */
const ESBUILD_HELPER = /^__[A-Za-z]+$/;
const ESBUILD_CJS_MARKER = /\bmodule\.exports\s*=\s*__toCommonJS\(/;

export function topLevelFunctionNames(code: string): string[] {
  const tokens = tokenizeJs(code);
  const found: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (!atStatementStart(tokens, i)) {
      i++;
      continue;
    }
    const scan = scanStatement(tokens, i);
    found.push(...scan.names);
    i = Math.max(scan.next, i + 1);
  }
  const fromEsbuild = ESBUILD_CJS_MARKER.test(code);
  const unique = [...new Set(found)];
  return fromEsbuild ? unique.filter((n) => !ESBUILD_HELPER.test(n)) : unique;
}
