/** Type nodes written back as text: the canonical Python spelling. */

import { MAX_TYPE_DEPTH, type TypeNode } from './type-node.js';

/** Canonical Python spelling: `List[Dict[str, int]]`, `Optional[int]`, `Tuple[int, ...]`. */
export function formatType(type: TypeNode): string {
  return format(type, 0);
}

function format(type: TypeNode, depth: number): string {
  // TypeNodes built in code may be cyclic; a parsed one never is this deep.
  if (depth > MAX_TYPE_DEPTH) return '…';
  const inner = (t: TypeNode): string => format(t, depth + 1);
  switch (type.kind) {
    case 'int':
    case 'float':
    case 'str':
    case 'bool':
      return type.kind;
    case 'none':
      return 'None';
    case 'any':
      return 'Any';
    case 'list':
      return `List[${inner(type.item)}]`;
    case 'set':
      return `${type.frozen === true ? 'FrozenSet' : 'Set'}[${inner(type.item)}]`;
    case 'dict':
      return `Dict[${inner(type.key)}, ${inner(type.value)}]`;
    case 'tuple': {
      const parts = type.items.map(inner);
      if (type.rest !== undefined) return `Tuple[${[...parts, inner(type.rest), '...'].join(', ')}]`;
      return parts.length === 0 ? 'Tuple[()]' : `Tuple[${parts.join(', ')}]`;
    }
    case 'optional':
      return `Optional[${inner(type.inner)}]`;
    case 'union':
      return `Union[${type.options.map(inner).join(', ')}]`;
    case 'unknown':
      return type.text;
  }
}
