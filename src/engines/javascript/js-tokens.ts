/**
 * A small JavaScript/TypeScript tokenizer: just enough structure to find
 * top-level declarations and ESM statements without a full parser. It skips
 * comments, strings, template literals (with nested `${}`) and regex literals,
 * and records the bracket depth of every token.
 *
 * It never throws: unterminated strings, comments and templates end at the end
 * of the line or text, and unbalanced closers are tolerated, because the code
 * it reads is whatever a model wrote.
 */

export type TokenKind = 'word' | 'punct' | 'string' | 'template' | 'number' | 'regex' | 'private';

export interface Token {
  kind: TokenKind;
  value: string;
  /**
   * Number of enclosing `{`, `(`, `[` and `${`. An opener carries the depth
   * outside it and its closer the same, so a matched pair has equal depths.
   */
  depth: number;
  /** True when a line break (also inside a comment) separates it from the previous token. */
  newlineBefore: boolean;
}

/** Keywords after which a `/` starts a regex literal rather than a division. */
const REGEX_AFTER_WORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

// Longest first, so that `===` is not read as `==` `=`.
const PUNCTUATORS = [
  '>>>=',
  '...',
  '===',
  '!==',
  '**=',
  '<<=',
  '>>=',
  '>>>',
  '&&=',
  '||=',
  '??=',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
];

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS = new Set([')', ']', '}']);

const IDENT_START = /[\p{ID_Start}$_\\]/u;
const IDENT_PART = /[\p{ID_Continue}$_\\\u200c\u200d]/u;
const NUMBER = /(?:0[xXoObB][\da-fA-F_]+n?|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?n?)/y;

/** What an open bracket on the stack is: a plain bracket, or a template substitution. */
type Frame = '(' | '[' | '{' | '${';

class Scanner {
  private pos = 0;
  private readonly tokens: Token[] = [];
  private readonly stack: Frame[] = [];
  private newlineBefore = false;

  constructor(private readonly src: string) {}

  run(): Token[] {
    this.skipHashbang();
    while (this.pos < this.src.length) this.step();
    return this.tokens;
  }

  private skipHashbang(): void {
    if (this.src.startsWith('#!')) this.skipToLineEnd();
  }

  private step(): void {
    const ch = this.src[this.pos] as string;
    const next = this.src[this.pos + 1];
    if (ch === '\n' || ch === '\r' || ch === '\u2028' || ch === '\u2029') {
      this.newlineBefore = true;
      this.pos++;
    } else if (/\s/.test(ch)) {
      this.pos++;
    } else if (ch === '/' && next === '/') {
      this.skipToLineEnd();
    } else if (ch === '/' && next === '*') {
      this.skipBlockComment();
    } else if (ch === '"' || ch === "'") {
      this.readString(ch);
    } else if (ch === '`') {
      this.pos++;
      this.readTemplateChunk();
    } else if (ch === '}' && this.stack[this.stack.length - 1] === '${') {
      // End of a `${...}` substitution: back inside the template literal.
      this.stack.pop();
      this.pos++;
      this.readTemplateChunk();
    } else if (ch === '#' && next !== undefined && IDENT_START.test(next)) {
      this.pos++;
      this.push('private', '#' + this.readIdentifierText());
    } else if (IDENT_START.test(ch)) {
      this.push('word', this.readIdentifierText());
    } else if (/\d/.test(ch) || (ch === '.' && next !== undefined && /\d/.test(next))) {
      this.readNumber();
    } else if (ch === '/' && this.regexAllowed()) {
      this.readRegexOrSlash();
    } else {
      this.readPunctuator();
    }
  }

  private push(kind: TokenKind, value: string, depth = this.stack.length): void {
    this.tokens.push({ kind, value, depth, newlineBefore: this.newlineBefore });
    this.newlineBefore = false;
  }

  private skipToLineEnd(): void {
    while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
  }

  private skipBlockComment(): void {
    const end = this.src.indexOf('*/', this.pos + 2);
    const stop = end === -1 ? this.src.length : end + 2;
    if (this.src.slice(this.pos, stop).includes('\n')) this.newlineBefore = true;
    this.pos = stop;
  }

  private readString(quote: string): void {
    const start = this.pos++;
    while (this.pos < this.src.length) {
      const c = this.src[this.pos];
      if (c === '\\') this.pos += 2;
      else if (c === quote) {
        this.pos++;
        break;
      } else if (c === '\n')
        break; // unterminated: stop at the line end
      else this.pos++;
    }
    this.push('string', this.src.slice(start, this.pos));
  }

  /** Reads template text up to the closing backtick or the next `${`. */
  private readTemplateChunk(): void {
    const start = this.pos;
    while (this.pos < this.src.length) {
      const c = this.src[this.pos];
      if (c === '\\') {
        this.pos += 2;
        continue;
      }
      if (c === '`') {
        this.push('template', this.src.slice(start, this.pos));
        this.pos++;
        return;
      }
      if (c === '$' && this.src[this.pos + 1] === '{') {
        this.push('template', this.src.slice(start, this.pos));
        this.pos += 2;
        this.stack.push('${');
        return;
      }
      this.pos++;
    }
    this.push('template', this.src.slice(start));
  }

  private readIdentifierText(): string {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.src.length && IDENT_PART.test(this.src[this.pos] as string)) this.pos++;
    return this.src.slice(start, this.pos);
  }

  private readNumber(): void {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.src);
    const text = m ? m[0] : (this.src[this.pos] as string);
    this.pos += text.length;
    this.push('number', text);
  }

  /** The usual heuristic: `/` after something that ends an expression divides. */
  private regexAllowed(): boolean {
    const prev = this.tokens[this.tokens.length - 1];
    if (prev === undefined) return true;
    switch (prev.kind) {
      case 'word':
        return REGEX_AFTER_WORDS.has(prev.value);
      case 'punct':
        return !(prev.value === ')' || prev.value === ']' || prev.value === '++' || prev.value === '--');
      default:
        return false;
    }
  }

  private readRegexOrSlash(): void {
    let i = this.pos + 1;
    let inClass = false;
    while (i < this.src.length) {
      const c = this.src[i];
      if (c === '\n') return this.readPunctuator(); // not a regex after all
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      i++;
    }
    if (i >= this.src.length) return this.readPunctuator();
    i++;
    while (i < this.src.length && /[A-Za-z]/.test(this.src[i] as string)) i++;
    this.push('regex', this.src.slice(this.pos, i));
    this.pos = i;
  }

  private readPunctuator(): void {
    const multi = PUNCTUATORS.find((p) => this.src.startsWith(p, this.pos));
    const value = multi ?? this.src.charAt(this.pos);
    this.pos += value.length;
    if (value in OPENERS) {
      this.push('punct', value);
      this.stack.push(value as Frame);
    } else if (CLOSERS.has(value)) {
      // Tolerate unbalanced code: pop whatever is open.
      if (this.stack.length > 0) this.stack.pop();
      this.push('punct', value);
    } else {
      this.push('punct', value);
    }
  }
}

export function tokenizeJs(code: string): Token[] {
  return new Scanner(code).run();
}

/** Index of the closer matching the opener at `openIndex`, or -1. */
export function matchingCloser(tokens: readonly Token[], openIndex: number): number {
  const open = tokens[openIndex];
  if (open === undefined) return -1;
  const close = OPENERS[open.value];
  for (let i = openIndex + 1; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.depth === open.depth && t.kind === 'punct' && t.value === close) return i;
    if (t.depth < open.depth) return -1;
  }
  return -1;
}

/** True when the code has a static `import` or any `export` at top level. */
export function hasModuleSyntax(tokens: readonly Token[]): boolean {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind !== 'word' || t.depth !== 0) continue;
    if (t.value !== 'import' && t.value !== 'export') continue;
    const prev = tokens[i - 1];
    if (prev !== undefined && prev.kind === 'punct' && (prev.value === '.' || prev.value === '?.')) continue;
    if (t.value === 'export') return true;
    const next = tokens[i + 1];
    // `import(...)` and `import.meta` are expressions, legal in scripts.
    if (next !== undefined && next.kind === 'punct' && (next.value === '(' || next.value === '.')) continue;
    return true;
  }
  return false;
}
