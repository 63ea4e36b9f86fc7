/**
 * Loading problem files from disk. A bad file becomes an `InvalidProblemFile`
 * with every reason found; it never throws and never stops the other files.
 * Only a problem directory that cannot be used at all is an exception
 * (`ProblemDirectoryError`), and so is one with no problem file in it.
 */
import { MAX_PROBLEM_FILE_BYTES, readProblemText } from './file-text.js';
import { invalid, listProblemFiles, ProblemDirectoryError, splitAndRejectDuplicates } from './find-files.js';
import { isIntegerLiteral, restoreExactNumbers, restoreKeyOrder } from './exact-json.js';
import { holdsPythonConstant, restorePythonConstants, standInPythonConstants } from './python-json.js';
import { checkJsonStructure, lineAndColumn, MAX_JSON_DEPTH, type ExactNumber, type OrderedObject } from './json-structure.js';
import { prepareProblem } from './prepare.js';
import type { InvalidProblemFile, LoadedProblems, PreparedProblem } from './prepared.js';
import { identifierOf, validateProblemDocument } from './validate.js';

// The error loadProblems throws, for callers of this module (and the library's index).
export { ProblemDirectoryError };

export interface LoadOptions {
  /** Files larger than this are reported invalid unread; default `MAX_PROBLEM_FILE_BYTES`. */
  maxFileBytes?: number;
  /** Deepest array/object nesting accepted; default `MAX_JSON_DEPTH`. */
  maxDepth?: number;
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
  const found = await listProblemFiles(dir);
  // One file at a time: validation is CPU-bound anyway, and a large tree
  // read all at once could run out of file descriptors.
  const loaded: (PreparedProblem | InvalidProblemFile)[] = [];
  for (const item of found) loaded.push(typeof item === 'string' ? await loadProblemFile(item, options) : item);
  return splitAndRejectDuplicates(loaded);
}

/**
 * Integers are exact wherever they are; a float's kind matters only in the
 * values a test holds (its input and expected output), so the other fields
 * keep JSON's numbers and validate as they always did.
 */
function inTestValue(literal: ExactNumber): boolean {
  return isIntegerLiteral(literal.text) || literal.path.some(isTestValueField);
}

/** A dict inside a test's value (not the input object itself, keyed by parameter names), whose order is Python's. */
function insideTestValue(object: OrderedObject): boolean {
  const at = object.path.findIndex(isTestValueField);
  return at >= 0 && object.path.length > at + 1;
}

function isTestValueField(segment: string | number): boolean {
  return segment === 'input' || segment === 'expected_output';
}

/**
 * Loads one problem file; every failure is returned, not thrown. The file is
 * read synchronously (see file-text.ts); the promise keeps the library's
 * signature free to change that.
 */
export function loadProblemFile(file: string, options: LoadOptions = {}): Promise<PreparedProblem | InvalidProblemFile> {
  const read = readProblemText(file, options.maxFileBytes ?? MAX_PROBLEM_FILE_BYTES);
  if (!read.ok) return Promise.resolve(invalid(file, null, [`${file}: ${read.message}`]));
  return Promise.resolve(loadProblemText(read.text, file, { ...options, readWarnings: read.warnings }));
}

/**
 * Checks and prepares one problem given as JSON text, exactly as a file with
 * that text would be (`file` names it in every message: `<file>: $.path:
 * what was expected`). The grading service reads problems that arrive in a
 * request this way, and its workers read them again from the same text.
 * Text, not a parsed object: which numbers were written as integers and the
 * order of a dict's keys are read from the text.
 */
export function loadProblemText(
  source: string,
  file: string,
  options: LoadOptions & { readWarnings?: readonly string[] } = {},
): PreparedProblem | InvalidProblemFile {
  const { text, parsed } = parsePythonJsonText(source);
  if (!parsed.ok) return invalid(file, null, [`${file}: not valid JSON: ${parsed.message}`]);
  const id = identifierOf(parsed.value);
  const exactNumbers: ExactNumber[] = [];
  const orderedObjects: OrderedObject[] = [];
  const structure = checkJsonStructure(text, options.maxDepth ?? MAX_JSON_DEPTH, exactNumbers, orderedObjects);
  if (structure.length > 0)
    return invalid(
      file,
      id,
      structure.map((message) => `${file}: ${message}`),
    );
  const restored = exactNumbers.filter(inTestValue);
  if (restored.length > 0) restoreExactNumbers(parsed.value, restored);
  const reordered = orderedObjects.filter(insideTestValue);
  if (reordered.length > 0) restoreKeyOrder(parsed.value, reordered);
  try {
    const validated = validateProblemDocument(parsed.value, file);
    if (!validated.ok) return invalid(file, validated.id, validated.errors);
    const warnings = [...(options.readWarnings ?? []).map((warning) => `${file}: ${warning}`), ...validated.warnings];
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

// ---------------------------------------------------------------------------
// JSON text
// ---------------------------------------------------------------------------

type ParsedJson = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Parses JSON text as Python's `json.loads` reads it: what its `json.dumps` writes for a float JSON has
 * no spelling for (`NaN`, `Infinity`, `-Infinity`) is read as that float, anywhere, or only inside the
 * top-level object's member `within`. `text` is what was parsed (those words made stand-in strings),
 * which the checks of the text's structure read.
 */
export function parsePythonJsonText(source: string, within?: string): { text: string; parsed: ParsedJson } {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  const parsed = parseJsonText(text);
  const standIn = parsed.ok ? null : standInPythonConstants(text);
  if (standIn !== null) {
    const again = parseJsonText(standIn);
    if (again.ok && within === undefined) return { text: standIn, parsed: { ok: true, value: restorePythonConstants(again.value) } };
    // Only the member `within` of the top-level object may hold them (a request's inline problem): anywhere else the text is no JSON.
    if (again.ok && again.value !== null && typeof again.value === 'object' && !Array.isArray(again.value)) {
      const { [within!]: member, ...rest } = again.value as Record<string, unknown>;
      if (!holdsPythonConstant(rest)) {
        restorePythonConstants(member);
        return { text: standIn, parsed: again };
      }
    }
  }
  return { text, parsed };
}

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
  const reason = oneLine(message.replace(/ in JSON at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, ''));
  if (position === null) return reason;
  const { line, column } = lineAndColumn(text, position);
  return `${reason} (line ${line}, column ${column})`;
}

/** V8 quotes the offending character as is, which may be a newline; messages must stay one line. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is made visible here
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

class JsonErrorAt extends Error {
  constructor(readonly offset: number) {
    super(`invalid JSON at offset ${offset}`);
  }
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
