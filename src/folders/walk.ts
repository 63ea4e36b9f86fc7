/**
 * One walk of a folder tree, for problem files, solution files and Python
 * packages alike: every entry in code-unit order of names, depth first,
 * with links followed. What the walk meets that cannot be used (a folder it
 * may not list, a broken link, a FIFO, a link that leads back into the walk)
 * is an entry of its own, so that each caller words it in its own terms and
 * decides what to keep; the walk itself never throws for what it finds.
 *
 * A folder listing carries each entry's type, so a regular file or folder
 * costs no system call of its own: only links (and entries of unknown type)
 * are looked up, to follow them. Each folder's real path is taken once, to
 * notice a link that leads back to a folder already being walked.
 *
 * The walk is written once, as a generator that asks for each file system
 * call, and run by a synchronous or an asynchronous driver.
 */
import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What the walk found at `path`, which is the root or `join(root, ...parts)`;
 * `parts` are the names from the root down (empty for the root itself).
 */
export type WalkEntry =
  /** A regular file, or a link to one. */
  | { kind: 'file'; path: string; parts: string[] }
  /** Neither a regular file nor a folder (a FIFO, a socket, a device), or a link to one; never opened. */
  | { kind: 'not-regular'; path: string; parts: string[] }
  /** A link that does not resolve: its target is missing, or links lead in a circle (`ELOOP`). */
  | { kind: 'broken-link'; path: string; parts: string[]; error: unknown }
  /** A folder whose real path or listing could not be had; the root too. */
  | { kind: 'unreadable-folder'; path: string; parts: string[]; error: unknown }
  /** A link to a folder that encloses it: `ancestor` is that folder's path as walked. Not entered. */
  | { kind: 'folder-loop'; path: string; parts: string[]; real: string; ancestor: string }
  /** A folder already walked under another name (not enclosing this one), unless `reenter` is set. Not entered. */
  | { kind: 'folder-again'; path: string; parts: string[]; real: string };

export interface WalkOptions {
  /** Names left out wherever they stand, folders with all they hold; never asked of the root. */
  ignore: (name: string) => boolean;
  /** Walk a folder again each time a link leads to it from elsewhere, instead of reporting `folder-again`. */
  reenter?: boolean;
  /** Folders more than this many levels below the root are left out without a word. */
  maxDepth?: number;
}

/** The names that problems and solutions ignore: hidden ones (`.git`) and installed JavaScript packages. */
export function isHiddenOrNodeModules(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** Every entry under `root`, in walk order. */
export async function walkFolder(root: string, options: WalkOptions): Promise<WalkEntry[]> {
  const found: WalkEntry[] = [];
  await eachInFolder(root, options, (entry) => found.push(entry));
  return found;
}

/**
 * The same, each entry handed to `visit` as the walk reaches it and kept by
 * no one else: a caller that keeps a little of each (a path) does not hold
 * an object per entry until the walk ends. `visit` must not throw: some
 * entries are handed over inside the walk's own handling of a folder's
 * errors, which would take its error for the folder's.
 */
export async function eachInFolder(root: string, options: WalkOptions, visit: (entry: WalkEntry) => void): Promise<void> {
  const steps = walkRoot(root, options, visit);
  for (let step = steps.next(); !step.done;) {
    const call = step.value;
    step = await ASYNC_CALLS[call.op](call.path).then(
      (result) => steps.next(result),
      (error: unknown) => steps.throw(error),
    );
  }
}

/** `walkFolder`, blocking: for callers that are synchronous themselves. */
export function walkFolderSync(root: string, options: WalkOptions): WalkEntry[] {
  const found: WalkEntry[] = [];
  const steps = walkRoot(root, options, (entry) => found.push(entry));
  for (let step = steps.next(); !step.done;) {
    const call = step.value;
    let result: unknown;
    try {
      result = SYNC_CALLS[call.op](call.path);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next(result);
  }
  return found;
}

// ---------------------------------------------------------------------------
// File system calls, asked for by the walk and made by a driver
// ---------------------------------------------------------------------------

interface FsCall {
  op: 'list' | 'realpath' | 'stat';
  path: string;
}

/** The walk: it yields each call it needs and is resumed with the call's result, or its error thrown in. */
type Steps<T = void> = Generator<FsCall, T, unknown>;

// Both drivers must agree on results and errors: the native realpath is the
// one fs/promises uses.
const SYNC_CALLS = {
  list: (path: string): Dirent[] => readdirSync(path, { withFileTypes: true }),
  realpath: (path: string): string => realpathSync.native(path),
  stat: (path: string): Stats => statSync(path),
};

const ASYNC_CALLS = {
  list: (path: string): Promise<Dirent[]> => readdir(path, { withFileTypes: true }),
  realpath: (path: string): Promise<string> => realpath(path),
  stat: (path: string): Promise<Stats> => stat(path),
};

// Each call's result has the type its driver function returns; the generator
// protocol cannot say so, hence the assertions here and nowhere else.
function* list(path: string): Steps<Dirent[]> {
  return (yield { op: 'list', path }) as Dirent[];
}

function* realPath(path: string): Steps<string> {
  return (yield { op: 'realpath', path }) as string;
}

function* statOf(path: string): Steps<Stats> {
  return (yield { op: 'stat', path }) as Stats;
}

// ---------------------------------------------------------------------------
// The walk
// ---------------------------------------------------------------------------

interface Walk {
  options: WalkOptions;
  found: (entry: WalkEntry) => void;
  /** Real paths of every folder entered so far. */
  entered: Set<string>;
  /** Real path -> path as walked, for the folders enclosing the current one. */
  ancestors: Map<string, string>;
}

function* walkRoot(root: string, options: WalkOptions, found: (entry: WalkEntry) => void): Steps {
  yield* walkInto({ options, found, entered: new Set(), ancestors: new Map() }, root, []);
}

function* walkInto(walk: Walk, path: string, parts: string[]): Steps {
  let real: string;
  let entries: Dirent[];
  try {
    real = yield* realPath(path);
    const ancestor = walk.ancestors.get(real);
    if (ancestor !== undefined) {
      walk.found({ kind: 'folder-loop', path, parts, real, ancestor });
      return;
    }
    if (walk.entered.has(real) && walk.options.reenter !== true) {
      walk.found({ kind: 'folder-again', path, parts, real });
      return;
    }
    walk.entered.add(real);
    entries = yield* list(path);
  } catch (error) {
    walk.found({ kind: 'unreadable-folder', path, parts, error });
    return;
  }
  walk.ancestors.set(real, path);
  // A listed name is one component (never `.` or `..`), so `join(path, name)` is this
  // prefix and the name: joined once per folder rather than normalized once per entry.
  const prefix = join(path, '_').slice(0, -1);
  entries.sort(byName);
  for (let at = 0; at < entries.length;) {
    // The listing types a regular file or folder: files are handed over in a plain loop, and
    // only a folder, a link or an entry the listing could not type takes a step of the walk.
    at = handTypedFiles(walk, prefix, parts, entries, at);
    const entry = entries[at++];
    if (entry === undefined) break;
    const entryPath = prefix + entry.name;
    const entryParts = [...parts, entry.name];
    let kind = kindOf(entry);
    if (kind === 'unknown') {
      const looked = yield* kindOfPath(walk, entryPath, entryParts);
      if (looked === null) continue;
      kind = looked;
    }
    if (kind === 'file') walk.found({ kind: 'file', path: entryPath, parts: entryParts });
    else if (kind !== 'folder') walk.found({ kind: 'not-regular', path: entryPath, parts: entryParts });
    else if (walk.options.maxDepth === undefined || entryParts.length <= walk.options.maxDepth) yield* walkInto(walk, entryPath, entryParts);
  }
  walk.ancestors.delete(real);
}

/**
 * Hands over the entries from `at` on that need no call, regular files and
 * the special files the listing names, and returns the place of the first
 * that does (a folder, a link, an untyped entry), or the end. A plain
 * function rather than the generator's own loop: a folder of many files
 * makes its loop hot, and a small function is far cheaper for V8 to
 * optimize than the generator around it.
 */
function handTypedFiles(walk: Walk, prefix: string, parts: readonly string[], entries: readonly Dirent[], at: number): number {
  for (; at < entries.length; at++) {
    const entry = entries[at]!;
    if (walk.options.ignore(entry.name)) continue;
    const kind = kindOf(entry);
    if (kind === 'folder' || kind === 'unknown') return at;
    const found: 'file' | 'not-regular' = kind === 'file' ? 'file' : 'not-regular';
    walk.found({ kind: found, path: prefix + entry.name, parts: [...parts, entry.name] });
  }
  return at;
}

/** What a link (or an entry the listing could not type) leads to; null, once reported, when it leads nowhere. */
function* kindOfPath(walk: Walk, path: string, parts: string[]): Steps<'file' | 'folder' | 'other' | 'unknown' | null> {
  try {
    return kindOf(yield* statOf(path));
  } catch (error) {
    walk.found({ kind: 'broken-link', path, parts, error });
    return null;
  }
}

/** A link, or an entry the listing could not type, is `unknown` until looked up. */
function kindOf(entry: Dirent | Stats): 'file' | 'folder' | 'other' | 'unknown' {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'folder';
  const special = entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();
  return special ? 'other' : 'unknown';
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function byName(a: Dirent, b: Dirent): number {
  if (a.name === b.name) return 0;
  return a.name < b.name ? -1 : 1;
}
