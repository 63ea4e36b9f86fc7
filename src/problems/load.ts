/**
 * Loading problem files from disk. A bad file becomes an `InvalidProblemFile`
 * with every reason found; it never throws and never stops the other files.
 * Only a problem directory that cannot be used at all is an exception
 * (`ProblemDirectoryError`), and so is one with no problem file in it.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_PROBLEM_FILE_BYTES, osReason, readProblemText } from './file-text.js';
import { formatJsonPath } from './json-path.js';
import { checkJsonStructure, lineAndColumn, MAX_JSON_DEPTH } from './json-structure.js';
import { prepareProblem } from './prepare.js';
import type { InvalidProblemFile, LoadedProblems, PreparedProblem } from './prepared.js';
import { identifierOf, validateProblemDocument } from './validate.js';

export { lineAndColumn };

export interface LoadOptions {
  /** Files larger than this are reported invalid unread; default `MAX_PROBLEM_FILE_BYTES`. */
  maxFileBytes?: number;
  /** Deepest array/object nesting accepted; default `MAX_JSON_DEPTH`. */
  maxDepth?: number;
}

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

/**
 * Loads every `*.json` file under `dir`, recursively, in a stable order
 * (entries sorted by name, depth first). Paths are `join(dir, ...)`, so they
 * are relative when `dir` is. Hidden entries and `node_modules` are skipped.
 * Symlinks are followed, each real directory entered once: a link back to a
 * directory being walked, or a link that resolves to itself, is reported as
 * a symlink loop; a second link to a directory already walked elsewhere is
 * skipped, its files having been loaded once already. Throws
 * `ProblemDirectoryError` when `dir` is missing, not a directory, unreadable,
 * or has nothing to load.
 */
export async function loadProblems(dir: string, options: LoadOptions = {}): Promise<LoadedProblems> {
  return loadProblemsAs(dir, (prepared) => prepared, options);
}

/** What a problem must keep for duplicate detection. */
export interface ProblemIdentity {
  id: string;
  file: string;
}

/**
 * Like `loadProblems`, but keeps only `keep(problem)` of each valid problem,
 * so a run over a million tests need not hold them all: the runner keeps a
 * small summary and loads each file again just before grading it.
 */
export async function loadProblemsAs<T extends ProblemIdentity>(
  dir: string,
  keep: (problem: PreparedProblem) => T,
  options: LoadOptions = {},
): Promise<{ problems: T[]; invalid: InvalidProblemFile[] }> {
  const found = await listProblemFiles(dir);
  // One file at a time: validation is CPU-bound anyway, and a large tree
  // read all at once could run out of file descriptors.
  const loaded: (T | InvalidProblemFile)[] = [];
  for (const item of found) {
    if (typeof item !== 'string') {
      loaded.push(item);
      continue;
    }
    const result = await loadProblemFile(item, options);
    loaded.push(isInvalidProblemFile(result) ? result : keep(result));
  }
  return splitAndRejectDuplicates(loaded);
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

/** Loads one problem file; every failure is returned, not thrown. */
export async function loadProblemFile(
  file: string,
  options: LoadOptions = {},
): Promise<PreparedProblem | InvalidProblemFile> {
  const read = await readProblemText(file, options.maxFileBytes ?? MAX_PROBLEM_FILE_BYTES);
  if (!read.ok) return invalid(file, null, [`${file}: ${read.message}`]);
  const text = read.text.startsWith('\uFEFF') ? read.text.slice(1) : read.text;
  const parsed = parseJsonText(text);
  if (!parsed.ok) return invalid(file, null, [`${file}: not valid JSON: ${parsed.message}`]);
  const id = identifierOf(parsed.value);
  const structure = checkJsonStructure(text, options.maxDepth ?? MAX_JSON_DEPTH);
  if (structure.length > 0) return invalid(file, id, structure.map((message) => `${file}: ${message}`));
  try {
    const validated = validateProblemDocument(parsed.value, file);
    if (!validated.ok) return invalid(file, validated.id, validated.errors);
    const warnings = [...read.warnings.map((warning) => `${file}: ${warning}`), ...validated.warnings];
    const prepared = prepareProblem(validated.problem, file, warnings);
    if (!prepared.ok) return invalid(file, validated.problem.identifier, prepared.errors);
    return prepared.prepared;
  } catch (error) {
    // The depth limit keeps the recursive steps above within the stack; should
    // one still overflow, it costs this file, not the run.
    if (!(error instanceof RangeError)) throw error;
    return invalid(file, id, [`${file}: too deeply nested to check (${error.message})`]);
  }
}

export function isInvalidProblemFile(result: PreparedProblem | InvalidProblemFile): result is InvalidProblemFile {
  return 'errors' in result;
}

function invalid(file: string, id: string | null, errors: string[]): InvalidProblemFile {
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
    if ('errors' in result) {
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

// ---------------------------------------------------------------------------
// JSON text
// ---------------------------------------------------------------------------

type ParsedJson = { ok: true; value: unknown } | { ok: false; message: string };

/** Parses file text (a leading UTF-8 BOM is ignored); a syntax error says where, as line and column. */
export function parseJsonText(text: string): ParsedJson {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: describeSyntaxError(message, body) };
  }
}

function describeSyntaxError(message: string, text: string): string {
  const position = syntaxErrorPosition(message, text);
  const reason = oneLine(
    message.replace(/ in JSON at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, ''),
  );
  if (position === null) return reason;
  const { line, column } = lineAndColumn(text, position);
  return `${reason} (line ${line}, column ${column})`;
}

/** V8 quotes the offending character as is, which may be a newline; messages must stay one line. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f]/g, (char) => JSON.stringify(char).slice(1, -1));
}

/**
 * Where V8 found the error. Some of its messages carry no position
 * (`Unexpected token '}', "..." is not valid JSON`), so then the text is
 * scanned for the first offending character.
 */
function syntaxErrorPosition(message: string, text: string): number | null {
  const reported = /at position (\d+)/.exec(message);
  if (reported?.[1] !== undefined) return Math.min(Number(reported[1]), text.length);
  if (message.startsWith('Unexpected end of JSON input')) return text.length;
  return findJsonErrorOffset(text);
}

class JsonErrorAt {
  constructor(readonly offset: number) {}
}

/** Offset of the first character a JSON parser would reject, or null when the text is valid JSON. */
export function findJsonErrorOffset(text: string): number | null {
  let pos = 0;
  const fail = (): never => {
    throw new JsonErrorAt(pos);
  };
  const skipWhitespace = (): void => {
    while (pos < text.length && ' \t\n\r'.includes(text.charAt(pos))) pos++;
  };
  const expect = (char: string): void => {
    if (text.charAt(pos) !== char) fail();
    pos++;
  };
  const literal = (word: string): void => {
    for (const char of word) expect(char);
  };
  const number = (): void => {
    const match = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    match.lastIndex = pos;
    if (!match.exec(text)) {
      if (text.charAt(pos) === '-') pos++;
      fail();
    }
    pos = match.lastIndex;
  };
  const string = (): void => {
    expect('"');
    for (;;) {
      if (pos >= text.length) fail();
      const char = text.charAt(pos);
      if (char === '"') {
        pos++;
        return;
      }
      if (char.charCodeAt(0) < 0x20) fail();
      if (char === '\\') {
        pos++;
        const escape = text.charAt(pos);
        if (escape === 'u') {
          for (let i = 0; i < 4; i++) {
            pos++;
            if (!/[0-9a-fA-F]/.test(text.charAt(pos))) fail();
          }
        } else if (!'"\\/bfnrt'.includes(escape) || escape === '') {
          fail();
        }
      }
      pos++;
    }
  };
  const sequence = (close: string, item: () => void): void => {
    pos++;
    skipWhitespace();
    if (text.charAt(pos) === close) {
      pos++;
      return;
    }
    for (;;) {
      skipWhitespace();
      item();
      skipWhitespace();
      if (text.charAt(pos) === close) {
        pos++;
        return;
      }
      expect(',');
    }
  };
  const value = (): void => {
    skipWhitespace();
    const char = text.charAt(pos);
    if (char === '{') {
      sequence('}', () => {
        string();
        skipWhitespace();
        expect(':');
        value();
      });
    } else if (char === '[') sequence(']', value);
    else if (char === '"') string();
    else if (char === 't') literal('true');
    else if (char === 'f') literal('false');
    else if (char === 'n') literal('null');
    else if (char === '-' || (char >= '0' && char <= '9')) number();
    else fail();
  };
  try {
    value();
    skipWhitespace();
    if (pos < text.length) fail();
    return null;
  } catch (error) {
    if (error instanceof JsonErrorAt) return error.offset;
    return null; // e.g. nesting too deep for the stack: fall back to no position
  }
}
