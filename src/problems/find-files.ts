/**
 * Finding problem files and settling their identifiers: the part of loading
 * that does not read a file's contents. The runner's supervisor uses only
 * this (workers read the files), so it stays free of the schema and the
 * value decoders and starts quickly.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { osReason } from './file-text.js';
import { formatJsonPath } from './json-path.js';
import { isInvalidProblemFile, type InvalidProblemFile } from './prepared.js';

export { isInvalidProblemFile };

/**
 * The problem directory cannot be used: missing, not a directory, not
 * listable, or holding no problem file. `reason` is short enough to follow
 * the directory name in a one-line message.
 */
export class ProblemDirectoryError extends Error {
  constructor(
    readonly dir: string,
    readonly reason: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ProblemDirectoryError';
  }
}

/** What a problem must keep for duplicate detection. */
export interface ProblemIdentity {
  id: string;
  file: string;
}

/**
 * The problem files under `dir` in load order, as `loadProblems` finds
 * them, without reading them: a path to load, or an entry already known to
 * be bad (a symlink loop, a FIFO, an unreadable folder). Throws
 * `ProblemDirectoryError` as `loadProblems` does. For callers that read the
 * files elsewhere (the runner loads them in its worker processes) and then
 * settle identifiers with `splitAndRejectDuplicates`.
 */
export async function listProblemFiles(dir: string): Promise<Array<string | InvalidProblemFile>> {
  await assertDirectory(dir);
  const found = await findProblemFiles(dir);
  if (found.length === 0) {
    throw new ProblemDirectoryError(
      dir,
      'no problem files (*.json) found in it or its subfolders',
      `problem directory "${dir}" has no problem files (*.json) in it or its subfolders`,
    );
  }
  return found;
}

export function invalid(file: string, id: string | null, errors: string[]): InvalidProblemFile {
  return { file, id, errors };
}

// ---------------------------------------------------------------------------
// Finding files
// ---------------------------------------------------------------------------

async function assertDirectory(dir: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(dir)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such folder' : `cannot use folder: ${osReason(error)}`;
    throw new ProblemDirectoryError(dir, reason, `problem directory "${dir}" cannot be used: ${osReason(error)}`, {
      cause: error,
    });
  }
  if (!isDirectory) throw new ProblemDirectoryError(dir, 'not a folder', `problem directory "${dir}" is not a directory`);
}

/** A file to load, or a folder entry already known to be bad, in walk order. */
type Found = string | InvalidProblemFile;

async function findProblemFiles(dir: string): Promise<Found[]> {
  let entries: Dirent[];
  let real: string;
  try {
    entries = await readdir(dir, { withFileTypes: true });
    real = await realpath(dir);
  } catch (error) {
    throw new ProblemDirectoryError(
      dir,
      `cannot read folder: ${osReason(error)}`,
      `problem directory "${dir}" cannot be read: ${osReason(error)}`,
      { cause: error },
    );
  }
  const found: Found[] = [];
  await walk(dir, entries, { visited: new Set([real]), ancestors: new Map([[real, dir]]), found });
  return found;
}

interface Walk {
  /** Real paths of every directory entered so far. */
  visited: Set<string>;
  /** Real path -> path as walked, for the directories enclosing the current one. */
  ancestors: Map<string, string>;
  found: Found[];
}

async function walk(dir: string, entries: Dirent[], state: Walk): Promise<void> {
  for (const entry of [...entries].sort((a, b) => compareNames(a.name, b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    const kind = await entryKind(entry, path);
    const isProblemName = entry.name.endsWith('.json');
    if (kind === 'directory') await walkSubdirectory(path, state);
    else if (kind === 'loop') state.found.push(symlinkLoop(path, 'too many levels of symbolic links'));
    else if (isProblemName && (kind === 'file' || kind === 'broken')) state.found.push(path);
    else if (isProblemName && kind === 'other') {
      // Never opened: a FIFO would block the whole run until someone wrote to it.
      state.found.push(invalid(path, null, [`${path}: cannot read file: not a regular file`]));
    }
  }
}

async function walkSubdirectory(path: string, state: Walk): Promise<void> {
  let real: string;
  let entries: Dirent[];
  try {
    real = await realpath(path);
    const ancestor = state.ancestors.get(real);
    if (ancestor !== undefined) {
      state.found.push(symlinkLoop(path, `leads back to ${ancestor}`));
      return;
    }
    if (state.visited.has(real)) return;
    state.visited.add(real);
    entries = await readdir(path, { withFileTypes: true });
  } catch (error) {
    state.found.push(invalid(path, null, [`${path}: cannot read folder: ${osReason(error)}`]));
    return;
  }
  state.ancestors.set(real, path);
  try {
    await walk(path, entries, state);
  } finally {
    state.ancestors.delete(real);
  }
}

function symlinkLoop(path: string, why: string): InvalidProblemFile {
  return invalid(path, null, [`${path}: symlink loop (${why}), not followed`]);
}

/**
 * What an entry is, looking through symlinks. A link that cannot be
 * resolved is `broken` (a `.json` one is then reported by the failed read)
 * or `loop` when it resolves to itself, which is reported whatever its name.
 */
async function entryKind(entry: Dirent, path: string): Promise<'file' | 'directory' | 'other' | 'broken' | 'loop'> {
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (!entry.isSymbolicLink()) return 'other';
  try {
    const target = await stat(path);
    if (target.isDirectory()) return 'directory';
    return target.isFile() ? 'file' : 'other';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'loop' : 'broken';
  }
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

// ---------------------------------------------------------------------------
// Duplicate identifiers
// ---------------------------------------------------------------------------

/** The first file (in load order) to use an identifier keeps it; later ones are invalid. */
export function splitAndRejectDuplicates<T extends ProblemIdentity>(
  results: readonly (T | InvalidProblemFile)[],
): { problems: T[]; invalid: InvalidProblemFile[] } {
  const owner = new Map<string, string>();
  const loaded: { problems: T[]; invalid: InvalidProblemFile[] } = { problems: [], invalid: [] };
  for (const result of results) {
    if (isInvalidProblemFile(result)) {
      loaded.invalid.push(result);
      continue;
    }
    const first = owner.get(result.id);
    if (first === undefined) {
      owner.set(result.id, result.file);
      loaded.problems.push(result);
      continue;
    }
    const path = formatJsonPath(['identifier']);
    loaded.invalid.push(
      invalid(result.file, result.id, [
        `${result.file}: ${path}: duplicate identifier ${JSON.stringify(result.id)} (also in ${first})`,
      ]),
    );
  }
  return loaded;
}
