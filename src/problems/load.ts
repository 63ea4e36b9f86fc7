/**
 * Loading problem files from disk. A bad file becomes an `InvalidProblemFile`
 * with every reason found; it never throws and never stops the other files.
 * Only a problem directory that cannot be used at all is an exception.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatJsonPath } from './json-path.js';
import { prepareProblem } from './prepare.js';
import type { InvalidProblemFile, LoadedProblems, PreparedProblem } from './prepared.js';
import { validateProblemDocument } from './validate.js';

/**
 * Loads every `*.json` file under `dir`, recursively, in a stable order
 * (entries sorted by name, depth first). Paths are `join(dir, ...)`, so they
 * are relative when `dir` is. Hidden entries and `node_modules` are skipped;
 * symlinked directories are followed once each. Throws only when `dir`
 * itself is missing, not a directory, or unreadable.
 */
export async function loadProblems(dir: string): Promise<LoadedProblems> {
  await assertDirectory(dir);
  const found = await findProblemFiles(dir);
  // One file at a time: validation is CPU-bound anyway, and a large tree
  // read all at once could run out of file descriptors.
  const loaded: (PreparedProblem | InvalidProblemFile)[] = [];
  for (const file of found.files) loaded.push(await loadProblemFile(file));
  return splitAndRejectDuplicates([...found.unreadable, ...loaded]);
}

/** Loads one problem file; every failure is returned, not thrown. */
export async function loadProblemFile(file: string): Promise<PreparedProblem | InvalidProblemFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return invalid(file, null, [`${file}: cannot read file: ${osReason(error)}`]);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) return invalid(file, null, [`${file}: not valid JSON: ${parsed.message}`]);
  const validated = validateProblemDocument(parsed.value, file);
  if (!validated.ok) return invalid(file, validated.id, validated.errors);
  const prepared = prepareProblem(validated.problem, file, validated.warnings);
  if (!prepared.ok) return invalid(file, validated.problem.identifier, prepared.errors);
  return prepared.prepared;
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
    throw new Error(`problem directory "${dir}" cannot be used: ${osReason(error)}`, { cause: error });
  }
  if (!isDirectory) throw new Error(`problem directory "${dir}" is not a directory`);
}

interface FoundFiles {
  files: string[];
  /** Subdirectories that could not be listed; reported like bad files. */
  unreadable: InvalidProblemFile[];
}

async function findProblemFiles(dir: string): Promise<FoundFiles> {
  const found: FoundFiles = { files: [], unreadable: [] };
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    throw new Error(`problem directory "${dir}" cannot be read: ${osReason(error)}`, { cause: error });
  }
  await walk(dir, entries, new Set([await realpath(dir)]), found);
  return found;
}

/** `visited` holds real paths, so a symlink back up the tree is entered once at most. */
async function walk(dir: string, entries: Dirent[], visited: Set<string>, found: FoundFiles): Promise<void> {
  for (const entry of [...entries].sort((a, b) => compareNames(a.name, b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    const kind = await entryKind(entry, path);
    if (kind === 'file' && entry.name.endsWith('.json')) found.files.push(path);
    if (kind === 'directory') await walkSubdirectory(path, visited, found);
  }
}

async function walkSubdirectory(path: string, visited: Set<string>, found: FoundFiles): Promise<void> {
  try {
    const real = await realpath(path);
    if (visited.has(real)) return;
    visited.add(real);
    const entries = await readdir(path, { withFileTypes: true });
    await walk(path, entries, visited, found);
  } catch (error) {
    found.unreadable.push(invalid(path, null, [`${path}: cannot read directory: ${osReason(error)}`]));
  }
}

/** What an entry is, looking through symlinks; a dangling link counts as a file so its error is reported. */
async function entryKind(entry: Dirent, path: string): Promise<'file' | 'directory' | 'other'> {
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (!entry.isSymbolicLink()) return 'other';
  try {
    const target = await stat(path);
    if (target.isDirectory()) return 'directory';
    return target.isFile() ? 'file' : 'other';
  } catch {
    return 'file';
  }
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** The OS's reason without the `, open '<path>'` tail Node adds (the path is already named). */
function osReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { syscall, path } = error as NodeJS.ErrnoException;
  const tail = syscall !== undefined && path !== undefined ? `, ${syscall} '${path}'` : '';
  return tail !== '' && error.message.endsWith(tail) ? error.message.slice(0, -tail.length) : error.message;
}

// ---------------------------------------------------------------------------
// Duplicate identifiers
// ---------------------------------------------------------------------------

/** The first file (in load order) to use an identifier keeps it; later ones are invalid. */
function splitAndRejectDuplicates(results: readonly (PreparedProblem | InvalidProblemFile)[]): LoadedProblems {
  const owner = new Map<string, string>();
  const loaded: LoadedProblems = { problems: [], invalid: [] };
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

/** 1-based line and column of a UTF-16 offset; `\r\n` and `\n` both end a line. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
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
