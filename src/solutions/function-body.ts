/**
 * A completion model given a prompt that ends inside the function (the
 * signature and docstring, as in human-eval) answers with the function's
 * body alone, and human-eval runs `prompt + completion`. Such text cannot run
 * by itself: it returns outside any function. It runs under a head instead:
 * the one a prompt's code ends with, joined as human-eval joins them, else
 * (in Python) a `def` made from the prototype.
 *
 * Only text that could not run as written is taken for a body
 * (`isFunctionBody`), so no answer that could is ever changed.
 */

/** The language a head is written in; the body must be able to follow it. */
export type HeadLanguage = 'python' | 'javascript';

export interface HeadSources {
  /** The names the function may have (`function_name`, and a genericized prompt's `function`). */
  names: readonly string[];
  /** Code of the prompts the model may have been shown, most likely first (each as extracted from the prompt's text). */
  promptCode: readonly string[];
  /** The head made from the prototype: the name the model was shown and its parameters in order. */
  prototype: { name: string; parameters: readonly string[] };
  /** Whether the submission may be in this language (a `.js` file's body never gets a `def`). */
  allows: (language: HeadLanguage) => boolean;
}

/**
 * Whether unfenced answer text is a function's body alone. It must read as
 * one (`readsAsBody`) and be unable to run as written: it opens indented, or
 * with `return`, or with a statement that continued the prompt's last line
 * (no definition, no block header, no bracket left open) with indented
 * lines under it. A
 * program that opens at the margin with a definition is never a body,
 * whatever its strings hold.
 */
export function isFunctionBody(lines: readonly string[], code: string): boolean {
  const [first, second] = lines.filter((l) => l.trim() !== '');
  if (first === undefined) return false;
  const opensIndented = /^[ \t]/.test(first);
  const continuesPrompt =
    !opensIndented &&
    second !== undefined &&
    /^[ \t]/.test(second) &&
    !/^(?:@|(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|class|function)\b|(?:import|from|const|let|var)\s)/.test(first) &&
    !/[:([{,\\]\s*(?:#.*)?$/.test(first);
  // A `return` at the margin runs in no language evalrun has: a body whose indentation was lost.
  const opensWithReturn = /^return\b/.test(first);
  return (opensIndented || continuesPrompt || opensWithReturn) && readsAsBody(code);
}

/**
 * Whether code (its common indentation removed) returns or yields outside
 * any function it defines and outside every brace, or closes a brace it
 * never opened (a JavaScript body closing the function its prompt opened).
 * Strings and comments are skipped; a line inside an open bracket continues
 * the one before (a signature over several lines), and a Python `def` or
 * `class` holds the lines indented under it.
 */
export function readsAsBody(code: string): boolean {
  const scan = new CodeScan();
  const defs: number[] = [];
  for (const line of code.split('\n')) {
    const logicalStart = scan.atStatementStart();
    const text = line.trimStart();
    if (logicalStart && text !== '' && !text.startsWith('#') && !text.startsWith('//')) {
      const indent = indentOf(line);
      while (defs.length > 0 && (defs.at(-1) as number) >= indent) defs.pop();
      if (/^(?:async\s+)?(?:def|class)\b/.test(text)) defs.push(indent);
      else if (defs.length === 0 && scan.braces === 0 && /^(?:return|yield)\b/.test(text)) return true;
    }
    scan.line(line);
    if (scan.closedUnopened) return true;
  }
  return false;
}

/** Where a scan of Python or JavaScript source stands: inside a string or comment, and how deep in brackets and braces. */
class CodeScan {
  private quote: string | null = null;
  private blockComment = false;
  private brackets = 0;
  braces = 0;
  /** A `}` came with no `{` open before it. */
  closedUnopened = false;

  atStatementStart(): boolean {
    return this.quote === null && !this.blockComment && this.brackets <= 0;
  }

  line(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      if (this.blockComment) {
        if (ch === '*' && text[i + 1] === '/') {
          this.blockComment = false;
          i++;
        }
      } else if (this.quote !== null) {
        if (ch === '\\') i++;
        else if (text.startsWith(this.quote, i)) {
          i += this.quote.length - 1;
          this.quote = null;
        }
      } else if (ch === '#' || (ch === '/' && text[i + 1] === '/')) {
        break;
      } else if (ch === '/' && text[i + 1] === '*') {
        this.blockComment = true;
        i++;
      } else if (ch === '"' || ch === "'" || ch === '`') {
        this.quote = text.startsWith(ch.repeat(3), i) && ch !== '`' ? ch.repeat(3) : ch;
        i += this.quote.length - 1;
      } else if (ch === '(' || ch === '[') this.brackets++;
      else if (ch === ')' || ch === ']') this.brackets--;
      else if (ch === '{') this.braces++;
      else if (ch === '}') this.closedUnopened ||= --this.braces < 0;
    }
    // A one-quote string ends with its line (an unterminated one is the code's own error).
    if (this.quote === "'" || this.quote === '"') this.quote = null;
  }
}

/**
 * The body as it goes under a head whose definition is indented by `base`:
 * as the model wrote it when its first line is indented deeper than the
 * head; moved under the head when it is not (the prompt's last line held
 * the rest of the indentation). A first line with none continued the
 * prompt's last line: it takes the indentation of the lines after it. A body
 * with no indentation at all was stripped of it, and goes one level under
 * the head.
 */
function indentedBody(body: string, base: number): string {
  const lines = body.split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first === -1) return body;
  const opening = indentOf(lines[first] as string);
  if (opening > 0 && opening <= base) {
    const shift = ' '.repeat(base + 4 - opening);
    return lines.map((l) => (l.trim() === '' ? l : `${shift}${l}`)).join('\n');
  }
  if (opening > 0) return body;
  const rest = lines.slice(first + 1).filter((l) => l.trim() !== '');
  const under = rest.length === 0 ? 0 : Math.min(...rest.map(indentOf));
  if (under > 0) return lines.map((l, i) => (i === first ? `${' '.repeat(under)}${l}` : l)).join('\n');
  const unit = ' '.repeat(base + 4);
  return lines.map((l) => (l.trim() === '' ? l : `${unit}${l}`)).join('\n');
}

/** The program a body runs as, or null when no head fits it (it then runs as written, and fails to load). */
export function withHead(body: string, sources: HeadSources): string | null {
  const closesItsFunction = closesUnopenedBrace(body);
  for (const code of sources.promptCode) {
    const head = headAtEnd(code, sources.names);
    if (head === null || !sources.allows(head.language) || (head.language === 'python' && closesItsFunction)) continue;
    return `${head.code}\n${indentedBody(body, head.indent)}`;
  }
  const { name, parameters } = sources.prototype;
  if (closesItsFunction || !sources.allows('python') || ![name, ...parameters].every(isPythonName)) return null;
  return `def ${name}(${parameters.join(', ')}):\n${indentedBody(body, 0)}`;
}

/**
 * The code of the first prompt of `sources` that ends in the head of a
 * Python function of `names` (a human-eval prompt: imports, helpers, then the
 * head and its docstring), or null.
 */
export function pythonPromptCode(sources: HeadSources): string | null {
  for (const code of sources.promptCode) {
    const head = headAtEnd(code, sources.names);
    if (head !== null && head.language === 'python' && sources.allows('python')) return code;
  }
  return null;
}

/**
 * Prompt code that ends inside one of `names`: its definition, after which
 * every line is indented under it (a docstring, a comment, `pass`). A prompt
 * that goes on after the function (an example call, tests) is no head.
 */
function headAtEnd(code: string, names: readonly string[]): { code: string; language: HeadLanguage; indent: number } | null {
  const lines = code.replace(/\s+$/, '').split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    const language = definitionLanguage(line, names);
    if (language === null) continue;
    const indent = indentOf(line);
    const end = signatureEnd(lines, i);
    if (end === null) return null;
    // What follows the signature is indented under it, but for text inside a string (a docstring at the margin).
    const scan = new CodeScan();
    for (let j = i; j < lines.length; j++) {
      const next = lines[j] as string;
      if (j > end && scan.atStatementStart() && next.trim() !== '' && indentOf(next) <= indent) return null;
      scan.line(next);
    }
    return { code: lines.join('\n'), language, indent };
  }
  return null;
}

function definitionLanguage(line: string, names: readonly string[]): HeadLanguage | null {
  for (const name of names) {
    const n = name.replace(/[$]/g, '\\$&');
    if (new RegExp(`^\\s*(?:async\\s+)?def\\s+${n}\\s*\\(`).test(line)) return 'python';
    if (
      new RegExp(
        `^\\s*(?:export\\s+)?(?:async\\s+)?function\\s*\\*?\\s*${n}\\s*[(<]|^\\s*(?:export\\s+)?(?:const|let|var)\\s+${n}\\s*(?::[^=]*)?=|^\\s*(?:static\\s+|async\\s+|public\\s+)*${n}\\s*\\([^)]*\\)[^{]*\\{\\s*$`,
      ).test(line)
    )
      return 'javascript';
  }
  return null;
}

/** The line where a definition's signature ends (its brackets closed, then `:`, `{` or `=>`), or null when it never does. */
function signatureEnd(lines: readonly string[], from: number): number | null {
  const scan = new CodeScan();
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] as string;
    scan.line(line);
    if (scan.atStatementStart() && /(?::|\{|=>)\s*(?:(?:#|\/\/).*)?$/.test(line)) return i;
  }
  return null;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Whether text closes a brace it never opened: a JavaScript body closing the function its prompt opened. */
function closesUnopenedBrace(text: string): boolean {
  const scan = new CodeScan();
  for (const line of text.split('\n')) scan.line(line);
  return scan.closedUnopened;
}

const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

function isPythonName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_KEYWORDS.has(name);
}
