/**
 * The names a type string may use, and what each means: a scalar type, or
 * a generic that takes arguments (`List[int]`, `list of int`).
 */

import type { TypeNode } from './type-node.js';

export type Generic = 'list' | 'set' | 'frozenset' | 'dict' | 'tuple' | 'optional' | 'union' | 'counter';
export type Meaning = { scalar: TypeNode } | { generic: Generic };

// Leaves are shared between results, so they are frozen.
export const INT: TypeNode = Object.freeze({ kind: 'int' });
const FLOAT: TypeNode = Object.freeze({ kind: 'float' });
export const STR: TypeNode = Object.freeze({ kind: 'str' });
const BOOL: TypeNode = Object.freeze({ kind: 'bool' });
export const NONE: TypeNode = Object.freeze({ kind: 'none' });
export const ANY: TypeNode = Object.freeze({ kind: 'any' });

/**
 * Looked up in lower case: no two names people use differ only by case, so
 * `List`/`list`, `None`/`none` and `Bool`/`bool` can all be accepted.
 */
const VOCABULARY: ReadonlyMap<string, Meaning> = new Map<string, Meaning>([
  ...names(['int', 'integer', 'long'], { scalar: INT }),
  ...names(['float', 'double', 'number'], { scalar: FLOAT }),
  ...names(['str', 'string', 'unicode', 'char', 'text'], { scalar: STR }),
  ...names(['bool', 'boolean'], { scalar: BOOL }),
  ...names(['none', 'nonetype', 'null'], { scalar: NONE }),
  ...names(['any', 'object'], { scalar: ANY }),
  ...names(['list', 'array', 'sequence', 'mutablesequence', 'iterable', 'collection', 'deque'], {
    generic: 'list',
  }),
  ...names(['set', 'abstractset', 'mutableset'], { generic: 'set' }),
  ...names(['frozenset'], { generic: 'frozenset' }),
  ...names(['dict', 'mapping', 'mutablemapping', 'ordereddict', 'defaultdict', 'map'], {
    generic: 'dict',
  }),
  ...names(['tuple'], { generic: 'tuple' }),
  ...names(['optional'], { generic: 'optional' }),
  ...names(['union'], { generic: 'union' }),
  ...names(['counter'], { generic: 'counter' }),
]);

function names(list: string[], meaning: Meaning): Array<[string, Meaning]> {
  return list.map((name) => [name, meaning]);
}

/** Words of the informal forms; never type names themselves. */
export const KEYWORDS = new Set(['or', 'of', 'to', 'from']);

export function lookup(dotted: string): Meaning | undefined {
  // `typing.List`, `t.Optional`, `collections.abc.Sequence`: the module does not matter.
  const name = (dotted.slice(dotted.lastIndexOf('.') + 1) || dotted).toLowerCase();
  const meaning = VOCABULARY.get(name);
  if (meaning !== undefined) return meaning;
  // numpy-style sized names: int64, uint8, float32.
  if (/^u?int(8|16|32|64)$/.test(name)) return { scalar: INT };
  if (/^float(16|32|64|128)$/.test(name)) return { scalar: FLOAT };
  // Informal plurals: `list of ints`, `list of lists of strings`.
  if (name.endsWith('s') && name.length > 1) return VOCABULARY.get(name.slice(0, -1));
  return undefined;
}
