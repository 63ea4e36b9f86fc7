/**
 * JSON paths for messages: `$.function_prototype.parameters[1].type`,
 * `$["odd key"]`. Numbers are array indices, strings are object keys, so a
 * key that looks like a number (`"1"`) still renders as `["1"]`.
 */

export type PathSegment = string | number;

/**
 * Whether a key reads unambiguously after a dot (`/^[A-Za-z_$][A-Za-z0-9_$]*$/`);
 * everything else is bracketed and quoted. A code-unit loop rather than the
 * regex: paths are built for every test of every file, mostly from short keys.
 */
function isPlainKey(key: string): boolean {
  const length = key.length;
  if (length === 0) return false;
  for (let i = 0; i < length; i++) {
    const c = key.charCodeAt(i);
    const isLetter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
    if (!isLetter && (i === 0 || c < 0x30 || c > 0x39)) return false;
  }
  return true;
}

/** One segment as it follows a path: `.key`, `["odd key"]` or `[3]`. */
export function renderPathSegment(segment: PathSegment): string {
  if (typeof segment === 'number') return '[' + String(segment) + ']';
  return isPlainKey(segment) ? '.' + segment : '[' + JSON.stringify(segment) + ']';
}

/** Renders segments from the document root: `["a", 1, "b"]` -> `$.a[1].b`. */
export function formatJsonPath(segments: readonly PathSegment[]): string {
  let rendered = '$';
  for (const segment of segments) rendered += renderPathSegment(segment);
  return rendered;
}

/** Extends a rendered path by one or more segments: `childPath('$.a', 1)` -> `$.a[1]`. */
export function childPath(path: string, ...segments: readonly PathSegment[]): string {
  let rendered = path;
  for (const segment of segments) rendered += renderPathSegment(segment);
  return rendered;
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
    return Object.prototype.hasOwnProperty.call(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return undefined;
}

/** `"/function_prototype/parameters/1/type"` -> `$.function_prototype.parameters[1].type`. */
export function formatJsonPointer(pointer: string, root?: unknown): string {
  return formatJsonPath(jsonPointerToSegments(pointer, root));
}
