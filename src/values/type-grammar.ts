/**
 * The type strings of `function_prototype`, parsed into {@link TypeNode}s.
 *
 * People write Python annotations (`List[Dict[str, int]]`, `int | None`,
 * `typing.Tuple[int, ...]`) and informal English (`list of int`,
 * `str or None`, `dict of str to int`, `int[]`). Both are read by one small
 * grammar; anything outside it becomes `{ kind: 'unknown', text }`, because an
 * unrecognised type must never stop a problem file from loading.
 *
 *   union     := postfix (('|' | 'or') postfix)*
 *   postfix   := primary ('[' ']')*
 *   primary   := NAME ('[' args ']')?
 *              | GENERIC ('of' | 'from') union [('to' | '->' | ':') union]
 *              | 'optional' postfix
 *              | '(' union (',' union)* ','? ')'
 *              | STRING                      -- a forward reference: 'int'
 *   args      := arg (',' arg)* ','?
 *   arg       := union | '...' | '(' ')'
 *
 * This file is the parsing stage; type-tokens.ts is the lexical one,
 * type-vocabulary.ts the names, type-format.ts the way back to text.
 */

import { formatType } from './type-format.js';
import { fail, tokenize, TypeSyntaxError, type Punct, type Token } from './type-tokens.js';
import { ANY, INT, KEYWORDS, lookup, NONE, STR, type Generic } from './type-vocabulary.js';
import { MAX_TYPE_DEPTH, type TypeNode } from './type-node.js';

export function parseType(text: string): TypeNode {
  if (typeof text !== 'string') return { kind: 'unknown', text: String(text) };
  try {
    return parseTypeText(text, 0);
  } catch (error) {
    if (error instanceof TypeSyntaxError) return { kind: 'unknown', text: text.trim() };
    throw error;
  }
}

const ELLIPSIS = Symbol('...');
const EMPTY_TUPLE = Symbol('()');
type Arg = TypeNode | typeof ELLIPSIS | typeof EMPTY_TUPLE;

function parseTypeText(text: string, depth: number): TypeNode {
  const parser = new Parser(text, tokenize(text), depth);
  const type = parser.parseUnion();
  parser.expectEnd();
  return type;
}

class Parser {
  private index = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
    private depth: number,
  ) {}

  parseUnion(): TypeNode {
    const options = [this.parsePostfix()];
    while (this.isPunct('|') || this.isWord('or')) {
      this.index++;
      options.push(this.parsePostfix());
    }
    return options.length === 1 ? options[0]! : makeUnion(options);
  }

  expectEnd(): void {
    if (this.peek().kind !== 'end') fail();
  }

  private parsePostfix(): TypeNode {
    let type = this.parsePrimary();
    while (this.isEmptyBrackets()) {
      this.index += 2;
      type = { kind: 'list', item: type };
    }
    return type;
  }

  private parsePrimary(): TypeNode {
    if (++this.depth > MAX_TYPE_DEPTH) fail();
    const type = this.parsePrimaryInner();
    this.depth--;
    return type;
  }

  private parsePrimaryInner(): TypeNode {
    const token = this.next();
    if (token.kind === 'punct' && token.text === '(') return this.parseParenthesized();
    if (token.kind === 'string') return parseTypeText(token.text, this.depth);
    if (token.kind !== 'name' || KEYWORDS.has(token.text.toLowerCase())) fail();
    const meaning = lookup(token.text);
    if (meaning === undefined) return this.parseUnknownName(token);
    if ('scalar' in meaning) {
      if (this.isPunct('[') && !this.isEmptyBrackets()) fail();
      return meaning.scalar;
    }
    return this.parseGeneric(meaning.generic);
  }

  private parseGeneric(generic: Generic): TypeNode {
    if (this.isPunct('[')) {
      if (this.isEmptyBrackets()) fail();
      this.index++;
      return buildGeneric(generic, this.parseArgs());
    }
    if (this.isWord('of') || (generic === 'dict' && this.isWord('from'))) {
      this.index++;
      return this.parseInformal(generic);
    }
    if (generic === 'optional' && this.startsType()) return makeUnion([this.parsePostfix(), NONE]);
    return bareGeneric(generic);
  }

  /** `list of int`, `tuple of str`, `dict of str to int`, `optional of int`. */
  private parseInformal(generic: Generic): TypeNode {
    const first = this.parseUnion();
    switch (generic) {
      case 'list':
      case 'set':
        return { kind: generic, item: first };
      case 'frozenset':
        return { kind: 'set', item: first, frozen: true };
      case 'tuple':
        return { kind: 'tuple', items: [], rest: first };
      case 'optional':
        return makeUnion([first, NONE]);
      case 'counter':
        return { kind: 'dict', key: first, value: INT };
      case 'dict':
        if (this.isWord('to') || this.isPunct('->') || this.isPunct(':')) {
          this.index++;
          return { kind: 'dict', key: first, value: this.parseUnion() };
        }
        // `dict of int` names the values; JSON object keys are strings anyway.
        return { kind: 'dict', key: STR, value: first };
      case 'union':
        return fail();
    }
  }

  /** `(int, str)` is an informal tuple; `(int or None)` is just grouping. */
  private parseParenthesized(): TypeNode {
    if (this.isPunct(')')) fail();
    const items = [this.parseUnion()];
    let trailingComma = false;
    while (this.isPunct(',')) {
      this.index++;
      if (this.isPunct(')')) {
        trailingComma = true;
        break;
      }
      items.push(this.parseUnion());
    }
    this.expectPunct(')');
    return items.length === 1 && !trailingComma ? items[0]! : { kind: 'tuple', items };
  }

  /** Keeps the structure around an unknown name: `List[MyClass]` is still a list. */
  private parseUnknownName(token: Token & { kind: 'name' }): TypeNode {
    if (this.isPunct('[') && !this.isEmptyBrackets()) {
      this.index++;
      this.parseArgs();
      const end = this.tokens[this.index - 1]!.end;
      return { kind: 'unknown', text: this.source.slice(token.start, end) };
    }
    return { kind: 'unknown', text: token.text };
  }

  /** After `[`: the comma-separated arguments and the closing `]`. */
  private parseArgs(): Arg[] {
    const args: Arg[] = [];
    while (!(args.length > 0 && this.isPunct(']'))) {
      if (this.isPunct('...')) {
        this.index++;
        args.push(ELLIPSIS);
      } else if (this.isPunct('(') && this.isPunctAt(this.index + 1, ')')) {
        this.index += 2;
        args.push(EMPTY_TUPLE);
      } else {
        args.push(this.parseUnion());
      }
      if (!this.isPunct(',')) break;
      this.index++;
    }
    this.expectPunct(']');
    return args;
  }

  private startsType(): boolean {
    const token = this.peek();
    if (token.kind === 'string') return true;
    if (token.kind === 'punct') return token.text === '(';
    return token.kind === 'name' && !KEYWORDS.has(token.text.toLowerCase());
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private isPunct(text: Punct): boolean {
    return this.isPunctAt(this.index, text);
  }

  private isPunctAt(index: number, text: Punct): boolean {
    const token = this.tokens[index];
    return token !== undefined && token.kind === 'punct' && token.text === text;
  }

  private isEmptyBrackets(): boolean {
    return this.isPunct('[') && this.isPunctAt(this.index + 1, ']');
  }

  private isWord(word: string): boolean {
    const token = this.peek();
    return token.kind === 'name' && token.text.toLowerCase() === word;
  }

  private expectPunct(text: Punct): void {
    if (!this.isPunct(text)) fail();
    this.index++;
  }
}

function typesOnly(args: Arg[]): TypeNode[] {
  return args.map((arg) => (typeof arg === 'symbol' ? fail() : arg));
}

function buildGeneric(generic: Generic, args: Arg[]): TypeNode {
  if (generic === 'tuple') return buildTuple(args);
  const types = typesOnly(args);
  switch (generic) {
    case 'list':
    case 'set':
      return types.length === 1 ? { kind: generic, item: types[0]! } : fail();
    case 'frozenset':
      return types.length === 1 ? { kind: 'set', item: types[0]!, frozen: true } : fail();
    case 'dict':
      return types.length === 2 ? { kind: 'dict', key: types[0]!, value: types[1]! } : fail();
    case 'counter':
      return types.length === 1 ? { kind: 'dict', key: types[0]!, value: INT } : fail();
    case 'optional':
      return types.length === 1 ? makeUnion([types[0]!, NONE]) : fail();
    case 'union':
      return makeUnion(types);
  }
}

function buildTuple(args: Arg[]): TypeNode {
  if (args.length === 1 && args[0] === EMPTY_TUPLE) return { kind: 'tuple', items: [] };
  if (args[args.length - 1] === ELLIPSIS) {
    // `Tuple[int, ...]`; `Tuple[str, int, ...]` is read as a str then any number of ints.
    const types = typesOnly(args.slice(0, -1));
    if (types.length === 0) fail();
    return { kind: 'tuple', items: types.slice(0, -1), rest: types[types.length - 1]! };
  }
  return { kind: 'tuple', items: typesOnly(args) };
}

function bareGeneric(generic: Generic): TypeNode {
  switch (generic) {
    case 'list':
    case 'set':
      return { kind: generic, item: ANY };
    case 'frozenset':
      return { kind: 'set', item: ANY, frozen: true };
    case 'dict':
      return { kind: 'dict', key: ANY, value: ANY };
    case 'counter':
      return { kind: 'dict', key: ANY, value: INT };
    case 'tuple':
      return { kind: 'tuple', items: [], rest: ANY };
    case 'optional':
    case 'union':
      return fail();
  }
}

/**
 * Flattens nested unions, drops duplicates and turns a None option into
 * `optional`, so `Union[int, None]`, `int | None`, `Optional[int]` and
 * `int or None` all give the same node.
 */
function makeUnion(options: TypeNode[]): TypeNode {
  const flat: TypeNode[] = [];
  const seen = new Set<string>();
  let nullable = false;
  const add = (type: TypeNode): void => {
    if (type.kind === 'union') {
      type.options.forEach(add);
    } else if (type.kind === 'optional') {
      nullable = true;
      add(type.inner);
    } else if (type.kind === 'none') {
      nullable = true;
    } else {
      const key = formatType(type);
      if (!seen.has(key)) {
        seen.add(key);
        flat.push(type);
      }
    }
  };
  options.forEach(add);
  if (flat.length === 0) return NONE;
  const inner: TypeNode = flat.length === 1 ? flat[0]! : { kind: 'union', options: flat };
  return nullable ? { kind: 'optional', inner } : inner;
}
