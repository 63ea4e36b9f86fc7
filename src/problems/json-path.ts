/**
 * JSON paths for messages: `$.function_prototype.parameters[1].type`,
 * `$["odd key"]`. Numbers are array indices, strings are object keys, so a
 * key that looks like a number (`"1"`) still renders as `["1"]`.
 */

export type PathSegment = string | number;

/** Keys that read unambiguously after a dot; everything else is bracketed and quoted. */
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function renderSegment(segment: PathSegment): string {
  if (typeof segment === 'number') return `[${segment}]`;
  return PLAIN_KEY.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
}

/** Renders segments from the document root: `["a", 1, "b"]` -> `$.a[1].b`. */
export function formatJsonPath(segments: readonly PathSegment[]): string {
  return '$' + segments.map(renderSegment).join('');
}

/** Extends a rendered path by one or more segments: `childPath('$.a', 1)` -> `$.a[1]`. */
export function childPath(path: string, ...segments: readonly PathSegment[]): string {
  return path + segments.map(renderSegment).join('');
}

/**
 * Splits a JSON pointer (RFC 6901, as TypeBox reports paths) into segments.
 * A pointer cannot say whether `/1` is an index or a key; with `root` the
 * document is walked to tell; without it (or with `undefined`) all-digit
 * segments are taken as indices.
 */
export function jsonPointerToSegments(pointer: string, root?: unknown): PathSegment[] {
  if (pointer === '') return [];
  const raw = pointer
    .slice(pointer.startsWith('/') ? 1 : 0)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const hasRoot = root !== undefined;
  const segments: PathSegment[] = [];
  let node: unknown = root;
  for (const part of raw) {
    const isIndex = /^(0|[1-9][0-9]*)$/.test(part) && (!hasRoot || Array.isArray(node));
    const segment: PathSegment = isIndex ? Number(part) : part;
    segments.push(segment);
    node = descend(node, segment);
  }
  return segments;
}

function descend(node: unknown, segment: PathSegment): unknown {
  if (Array.isArray(node) && typeof segment === 'number') return node[segment];
  if (node !== null && typeof node === 'object' && !Array.isArray(node) && typeof segment === 'string') {
    return Object.prototype.hasOwnProperty.call(node, segment)
      ? (node as Record<string, unknown>)[segment]
      : undefined;
  }
  return undefined;
}

/** `"/function_prototype/parameters/1/type"` -> `$.function_prototype.parameters[1].type`. */
export function formatJsonPointer(pointer: string, root?: unknown): string {
  return formatJsonPath(jsonPointerToSegments(pointer, root));
}
