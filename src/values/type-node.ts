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
  | { kind: 'set'; item: TypeNode }
  | { kind: 'dict'; key: TypeNode; value: TypeNode }
  /** `items` for fixed-length tuples; `rest` for `Tuple[int, ...]`. */
  | { kind: 'tuple'; items: TypeNode[]; rest?: TypeNode }
  | { kind: 'optional'; inner: TypeNode }
  | { kind: 'union'; options: TypeNode[] }
  | { kind: 'unknown'; text: string };

/**
 * A decoded value on the host side. Tuples and sets are arrays here: the
 * type that accompanies a value says how it is compared. Dict keys are
 * strings, as they are in JSON. Floats may be NaN or +/-Infinity.
 */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
