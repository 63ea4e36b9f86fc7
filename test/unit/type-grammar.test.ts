import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatType } from '../../src/values/type-format.js';
import { parseType } from '../../src/values/type-grammar.js';
import type { TypeNode } from '../../src/values/type-node.js';
import { Rng } from '../../bench/rng.js';

const int: TypeNode = { kind: 'int' };
const float: TypeNode = { kind: 'float' };
const str: TypeNode = { kind: 'str' };
const bool: TypeNode = { kind: 'bool' };
const none: TypeNode = { kind: 'none' };
const any: TypeNode = { kind: 'any' };
const list = (item: TypeNode): TypeNode => ({ kind: 'list', item });
const set = (item: TypeNode): TypeNode => ({ kind: 'set', item });
const dict = (key: TypeNode, value: TypeNode): TypeNode => ({ kind: 'dict', key, value });
const tuple = (items: TypeNode[], rest?: TypeNode): TypeNode => (rest === undefined ? { kind: 'tuple', items } : { kind: 'tuple', items, rest });
const optional = (inner: TypeNode): TypeNode => ({ kind: 'optional', inner });
const union = (...options: TypeNode[]): TypeNode => ({ kind: 'union', options });
const unknown = (text: string): TypeNode => ({ kind: 'unknown', text });

describe('parseType: scalars', () => {
  it.each<[string, TypeNode]>([
    ['int', int],
    ['float', float],
    ['str', str],
    ['string', str],
    ['bool', bool],
    ['boolean', bool],
    ['None', none],
    ['NoneType', none],
    ['Any', any],
    ['any', any],
    ['object', any],
    ['typing.Any', any],
    ['integer', int],
    ['double', float],
    ['numpy.int64', int],
    ['np.float32', float],
    ['  int  ', int],
    ['\tstr\n', str],
  ])('%j', (text, expected) => {
    expect(parseType(text)).toEqual(expected);
  });
});

describe('parseType: generic Python forms', () => {
  it.each<[string, TypeNode]>([
    ['List[int]', list(int)],
    ['list[int]', list(int)],
    ['List', list(any)],
    ['list', list(any)],
    ['List[List[int]]', list(list(int))],
    ['List[List[str]]', list(list(str))],
    ['typing.List[int]', list(int)],
    ['Dict[str, int]', dict(str, int)],
    ['dict[str, int]', dict(str, int)],
    ['dict', dict(any, any)],
    ['Dict', dict(any, any)],
    ['Dict[str, List[int]]', dict(str, list(int))],
    ['Tuple[int, int]', tuple([int, int])],
    ['tuple[int, str, float]', tuple([int, str, float])],
    ['Tuple[int, ...]', tuple([], int)],
    ['Tuple[int, …]', tuple([], int)],
    ['Tuple[()]', tuple([])],
    ['tuple', tuple([], any)],
    ['Set[int]', set(int)],
    ['set[str]', set(str)],
    ['FrozenSet[int]', { kind: 'set', item: int, frozen: true }],
    ['frozenset[int]', { kind: 'set', item: int, frozen: true }],
    ['set', set(any)],
    ['Optional[int]', optional(int)],
    ['Optional[List[int]]', optional(list(int))],
    ['Union[int, str]', union(int, str)],
    ['Union[int]', int],
    ['Union[int, int]', int],
    ['Union[int, None]', optional(int)],
    ['Union[None, int]', optional(int)],
    ['Union[int, None, str]', optional(union(int, str))],
    ['Union[int, Union[str, float]]', union(int, str, float)],
    ['Optional[Optional[int]]', optional(int)],
    ['Optional[Union[int, str]]', optional(union(int, str))],
    ['Optional[None]', none],
    ['int | None', optional(int)],
    ['None | int', optional(int)],
    ['int | str', union(int, str)],
    ['int|str|None', optional(union(int, str))],
    ['List[int | None]', list(optional(int))],
    ['Sequence[int]', list(int)],
    ['Mapping[str, float]', dict(str, float)],
    ['Counter[str]', dict(str, int)],
    ["List['int']", list(int)],
    ['Dict[str, int,]', dict(str, int)],
    [' List [ Dict [ str ,int ] ] ', list(dict(str, int))],
    ['t.Optional[typing.List[int]]', optional(list(int))],
  ])('%j', (text, expected) => {
    expect(parseType(text)).toEqual(expected);
  });

  it('reads a Tuple with fixed items before the repeated one', () => {
    expect(parseType('Tuple[str, int, ...]')).toEqual(tuple([str], int));
  });
});

describe('parseType: informal forms', () => {
  it.each<[string, TypeNode]>([
    ['list of int', list(int)],
    ['list of ints', list(int)],
    ['List of integers', list(int)],
    ['list of list of int', list(list(int))],
    ['list of lists of strings', list(list(str))],
    ['array of int', list(int)],
    ['array of float', list(float)],
    ['int[]', list(int)],
    ['int[][]', list(list(int))],
    ['str []', list(str)],
    ['set of str', set(str)],
    ['tuple of int', tuple([], int)],
    ['str or None', optional(str)],
    ['string or null', optional(str)],
    ['None or str', optional(str)],
    ['int or float', union(int, float)],
    ['int or float or None', optional(union(int, float))],
    ['dict of str to int', dict(str, int)],
    ['dict from str to list of int', dict(str, list(int))],
    ['dict of str -> int', dict(str, int)],
    ['map of str to int', dict(str, int)],
    ['dict of int', dict(str, int)],
    ['optional int', optional(int)],
    ['Optional of str', optional(str)],
    ['list of (int or None)', list(optional(int))],
    ['(int, str)', tuple([int, str])],
    ['(int,)', tuple([int])],
    ['(int or str)', union(int, str)],
    ['List[int] or None', optional(list(int))],
  ])('%j', (text, expected) => {
    expect(parseType(text)).toEqual(expected);
  });

  it('lets "of" take everything after it, so alternatives apply to the items', () => {
    expect(parseType('list of int or None')).toEqual(list(optional(int)));
  });
});

describe('parseType: unknown types', () => {
  it.each([
    '',
    '   ',
    'List[int] x',
    'List[int',
    'List[int]]',
    'Dict[int]',
    'Dict[str, int, float]',
    'List[int, str]',
    'List[]',
    'Optional',
    'Optional[]',
    'Optional[int, str]',
    'Union',
    'Tuple[...]',
    'Tuple[..., int]',
    'Set[()]',
    'int[3]',
    'int[str]',
    'list of',
    'dict of str to',
    'or',
    'int or',
    '| int',
    'int $ str',
    'positive int',
    'foo bar',
    "List['int",
    '(int',
    '()',
  ])('%j is unknown, with its text', (text) => {
    expect(parseType(text)).toEqual(unknown(text.trim()));
  });

  it('keeps the surrounding structure of an unknown name', () => {
    expect(parseType('List[MyClass]')).toEqual(list(unknown('MyClass')));
    expect(parseType('Dict[str, Foo[int, Bar]]')).toEqual(dict(str, unknown('Foo[int, Bar]')));
    expect(parseType('Callable')).toEqual(unknown('Callable'));
  });

  it('does not throw or overflow on pathological input', () => {
    const deep = 'List['.repeat(10_000) + 'int' + ']'.repeat(10_000);
    expect(parseType(deep)).toEqual(unknown(deep));
    const informal = 'list of '.repeat(10_000) + 'int';
    expect(parseType(informal).kind).toBe('unknown');
    const longUnion = Array.from({ length: 5_000 }, () => 'int').join(' | ');
    expect(parseType(longUnion)).toEqual(int);
    expect(parseType(undefined as unknown as string)).toEqual(unknown('undefined'));
  });

  it('never throws on random input built from the grammar alphabet', () => {
    const pieces = [
      'List',
      'Dict',
      'int',
      'str',
      'None',
      'Optional',
      'Union',
      'Tuple',
      '[',
      ']',
      ',',
      '|',
      '...',
      ' of ',
      ' or ',
      '(',
      ')',
      "'",
      'x',
      ':',
      '->',
    ];
    const rng = new Rng(12345);
    const random = (n: number): number => rng.int(0, n - 1);
    let understood = 0;
    // Most random strings are no type at all: enough of them that a few hundred are.
    for (let i = 0; i < 8000; i++) {
      const text = Array.from({ length: 1 + random(12) }, () => pieces[random(pieces.length)]).join('');
      const type = parseType(text);
      expect(typeof formatType(type)).toBe('string');
      if (type.kind !== 'unknown') {
        understood++;
        expect(parseType(formatType(type))).toEqual(type);
      }
    }
    // The property above must have been exercised, not vacuously true.
    expect(understood).toBeGreaterThan(100);
  });
});

describe('formatType', () => {
  it.each<[TypeNode, string]>([
    [int, 'int'],
    [float, 'float'],
    [str, 'str'],
    [bool, 'bool'],
    [none, 'None'],
    [any, 'Any'],
    [list(dict(str, int)), 'List[Dict[str, int]]'],
    [set(int), 'Set[int]'],
    [tuple([int, str]), 'Tuple[int, str]'],
    [tuple([], int), 'Tuple[int, ...]'],
    [tuple([str], int), 'Tuple[str, int, ...]'],
    [tuple([]), 'Tuple[()]'],
    [optional(int), 'Optional[int]'],
    [union(int, str), 'Union[int, str]'],
    [unknown('Foo[int]'), 'Foo[int]'],
    [list(unknown('Foo')), 'List[Foo]'],
  ])('%j -> %s', (type, text) => {
    expect(formatType(type)).toBe(text);
  });

  it.each([
    ['list of int', 'List[int]'],
    ['str or None', 'Optional[str]'],
    ['int[]', 'List[int]'],
    ['dict of str to int', 'Dict[str, int]'],
    ['typing.Tuple[int,int]', 'Tuple[int, int]'],
    ['int | str | None', 'Optional[Union[int, str]]'],
    ['bare list', 'bare list'],
  ])('canonicalises %j as %j', (text, canonical) => {
    expect(formatType(parseType(text))).toBe(canonical);
  });

  it('round-trips every canonical form through parseType', () => {
    const types: TypeNode[] = [
      list(list(int)),
      dict(str, list(optional(float))),
      tuple([int, str, bool]),
      tuple([], float),
      tuple([]),
      set(tuple([int, int])),
      optional(union(int, str, list(any))),
      union(bool, dict(int, str)),
      list(unknown('Foo')),
    ];
    for (const type of types) expect(parseType(formatType(type))).toEqual(type);
  });

  it('survives a cyclic TypeNode built in code', () => {
    const cyclic = { kind: 'list', item: int } as { kind: 'list'; item: TypeNode };
    cyclic.item = cyclic;
    expect(formatType(cyclic)).toMatch(/^List\[List\[.*…/);
  });
});

const corpus = fileURLToPath(new URL('../../../shared/corpus-sample', import.meta.url));

describe.skipIf(!existsSync(corpus))('parseType on the corpus sample', () => {
  const typeStrings = new Set<string>();
  // The body runs at collection even when the suite is skipped.
  for (const group of existsSync(corpus) ? readdirSync(corpus) : []) {
    const dir = join(corpus, group, 'problems');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      const problem = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        function_prototype?: { parameters?: Array<{ type: string }>; return_values?: Array<{ type: string }> };
      };
      const prototype = problem.function_prototype ?? {};
      for (const entry of [...(prototype.parameters ?? []), ...(prototype.return_values ?? [])]) {
        typeStrings.add(entry.type);
      }
    }
  }

  it('finds the type strings', () => {
    expect(typeStrings.size).toBeGreaterThanOrEqual(5);
  });

  it.each([...typeStrings])('understands %j and prints it back unchanged', (text) => {
    const type = parseType(text);
    expect(type.kind).not.toBe('unknown');
    expect(formatType(type)).toBe(text);
  });

  it('reads them as the expected nodes', () => {
    expect(parseType('List[List[int]]')).toEqual(list(list(int)));
    expect(parseType('List[str]')).toEqual(list(str));
  });
});
