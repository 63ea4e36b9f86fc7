/** Deeper type strings are not written by people: parsing refuses them, and formatting (of a node built cyclic in code) stops there. */
export const MAX_TYPE_DEPTH = 100;

/**
 * A parsed Python-style type string, as written in `function_prototype`.
 * `unknown` keeps the original text: an unrecognised type is never fatal,
 * values of that type are used as given and compared structurally.
 */
export type TypeNode =
  | { kind: 'int' }
  | { kind: 'float' }
  | { kind: 'str' }
  | { kind: 'bool' }
  | { kind: 'none' }
  | { kind: 'any' }
  | { kind: 'list'; item: TypeNode }
  /** `frozen` for `FrozenSet[...]`: a frozenset in Python, a Set in JavaScript. */
  | { kind: 'set'; item: TypeNode; frozen?: boolean }
  | { kind: 'dict'; key: TypeNode; value: TypeNode }
  /** `items` for fixed-length tuples; `rest` for `Tuple[int, ...]`. */
  | { kind: 'tuple'; items: TypeNode[]; rest?: TypeNode }
  | { kind: 'optional'; inner: TypeNode }
  | { kind: 'union'; options: TypeNode[] }
  | { kind: 'unknown'; text: string };

/**
 * A decoded value on the host side: JSON data, plus
 *
 * - `bigint` for integers outside the safe range (never for safe ones, so
 *   each integer has one form);
 * - the Python kinds JSON has no form for, as tagged objects in the same
 *   shape the wire format gives them (see py-tags.ts): tuples, sets,
 *   frozensets, dicts whose keys are not all strings (or whose order a
 *   JavaScript object would change), and floats JSON would read as ints
 *   (integral ones, -0.0, NaN and the infinities). A plain number is an int
 *   when it is integral and a float otherwise.
 *
 * A plain object with an own `$evalrun` key is always such a tag.
 */
export type Value = null | boolean | number | bigint | string | Value[] | { [key: string]: Value };
