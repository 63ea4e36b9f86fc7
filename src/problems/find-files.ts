/**
 * Finding problem files and settling their identifiers: the part of loading
 * that does not read a file's contents. The runner's supervisor uses only
 * this (workers read the files), so it stays free of the schema and the
 * value decoders and starts quickly.
 */
import { stat } from 'node:fs/promises';
import { eachInFolder, isHiddenOrNodeModules } from '../folders/walk.js';
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
  const found: Found[] = [];
  let rootError: { error: unknown } | null = null;
  await eachInFolder(dir, { ignore: isHiddenOrNodeModules }, (entry) => {
    const isProblemName = entry.path.endsWith('.json');
    switch (entry.kind) {
      case 'file':
        if (isProblemName) found.push(entry.path);
        break;
      case 'not-regular':
        // Never opened: a FIFO would block the whole run until someone wrote to it.
        if (isProblemName) found.push(invalid(entry.path, null, [`${entry.path}: cannot read file: not a regular file`]));
        break;
      case 'broken-link':
        // A link that resolves to itself is reported whatever its name; another
        // broken `.json` link is reported by the failed read.
        if ((entry.error as NodeJS.ErrnoException).code === 'ELOOP') {
          found.push(symlinkLoop(entry.path, 'too many levels of symbolic links'));
        } else if (isProblemName) found.push(entry.path);
        break;
      case 'unreadable-folder':
        if (entry.parts.length === 0) rootError = { error: entry.error };
        else found.push(invalid(entry.path, null, [`${entry.path}: cannot read folder: ${osReason(entry.error)}`]));
        break;
      case 'folder-loop':
        found.push(symlinkLoop(entry.path, `leads back to ${entry.ancestor}`));
        break;
      case 'folder-again':
        // Its files were found under the name that reached it first.
        break;
    }
  });
  if (rootError !== null) {
    const { error } = rootError;
    throw new ProblemDirectoryError(dir, `cannot read folder: ${osReason(error)}`, `problem directory "${dir}" cannot be read: ${osReason(error)}`, {
      cause: error,
    });
  }
  return found;
}

function symlinkLoop(path: string, why: string): InvalidProblemFile {
  return invalid(path, null, [`${path}: symlink loop (${why}), not followed`]);
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
    loaded.invalid.push(invalid(result.file, result.id, [`${result.file}: ${path}: duplicate identifier ${JSON.stringify(result.id)} (also in ${first})`]));
  }
  return loaded;
}
