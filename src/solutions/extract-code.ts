/**
 * Turns a model's answer into the code to run.
 *
 * Fenced answers: the content of the LAST fenced block (``` or ~~~, any
 * indentation, CommonMark closing rules) that defines the function asked
 * for is the answer, because the reference framework tells models to end
 * with the solution in a fence, and models often follow it with a block
 * that only calls it ("Example usage:") or shows a command or its output.
 * A last block that defines a function under another name, and does not
 * call one of `names`, is the answer renamed. When no block defines one of
 * `names`, it is the last block whose info string names no command or
 * output language (`bash`, `text`, `output`...), and failing that the last
 * non-empty block. An unterminated final fence
 * runs to the end of the text. The fence's indentation is removed from its lines.
 * When code comes first and then a bare fence (a completion model closing the
 * block its prompt opened), the text before that fence is a block too.
 *
 * Unfenced answers: leading and trailing lines are dropped only when they
 * cannot be code (see `isProseLine`), plus a dangling leading comment close
 * (a completion model continuing a comment from its prompt). Nothing in the
 * middle is touched. When that would leave nothing, the text is kept, so the
 * engine's error shows what the model said. Text that is a function's body
 * alone (`isFunctionBody` in function-body.ts) is also given with its own
 * indentation, for grading to put under the function's head.
 *
 * Earlier blocks: what the answer uses from them and does not define itself
 * (an import, a helper) goes before it (`neededFrom`). A block whose fence
 * names another language than the submission's is never the answer.
 *
 * Both: a reasoning model's thinking (up to its `</think>`, whether or not
 * the answer opens with `<think>`) is not part of the answer; line endings become `\n`, a byte-order mark is removed, blank lines at
 * either end are dropped and indentation common to every line is removed
 * (so an indented answer is valid Python).
 */

import { isFunctionBody } from './function-body.js';
import { foreignTo, runsNowhere } from './language.js';

export type ExtractedCode =
  | {
      code: string;
      /** The code came from a fenced block. */
      fenced: true;
      /** First word of the fence's info string, lower-cased (`python`, `js`), or null. */
      fenceLanguage: string | null;
      /** When the block is a function's body alone (function-body.ts), that body with its own indentation; else null. */
      body: string | null;
    }
  | {
      code: string;
      fenced: false;
      fenceLanguage: null;
      /** When the text is a function's body alone (function-body.ts), that body with its own indentation; else null. */
      body: string | null;
    };

interface FencedBlock {
  language: string | null;
  lines: string[];
}

const FENCE_OPEN = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^([ \t]*)(`{3,}|~{3,})[ \t]*$/;

/**
 * `names`: the function the answer should define, under each name it may have (a genericized prompt's `function` too).
 * `declared`: the language the submission declares (a file's extension, a `language` field), or null.
 * A block whose fence names another language (a `.py` file's ```javascript block), or one evalrun
 * runs in none (```ruby after the Python answer), is never the answer while another block could be.
 */
export function extractCode(raw: string, names: readonly string[] = [], declared: string | null = null): ExtractedCode {
  const lines = afterThinking(withoutTemplateTokens(raw.replace(/\r\n?/g, '\n').replace(/^\uFEFF/gm, ''))).split('\n');
  const blocks = findFencedBlocks(lines);
  const foreign = foreignTo(declared);
  const own = blocks.filter((b) => b.language === null || (!foreign(b.language) && !runsNowhere(b.language)));
  const answer = chooseBlock(own.some(holdsAnswer) ? own : blocks, names);
  if (answer !== undefined) {
    const kept = trimBlankEnds(answer.lines);
    const alone = dedent(kept).join('\n');
    if (isFunctionBody(kept, alone)) return { code: alone, fenced: true, fenceLanguage: answer.language, body: kept.join('\n') };
    const at = own.indexOf(answer);
    const earlier = own.slice(0, Math.max(0, at)).filter(holdsAnswer);
    const later = own.slice(at + 1).filter(holdsAnswer);
    const code = tidy(futureImportsFirst([...neededFrom(earlier, later, answer.lines, names), ...answer.lines]));
    return { code, fenced: true, fenceLanguage: answer.language, body: null };
  }
  const kept = trimBlankEnds(stripSurroundingProse(lines));
  const code = dedent(kept).join('\n');
  return { code, fenced: false, fenceLanguage: null, body: isFunctionBody(kept, code) ? kept.join('\n') : null };
}

/**
 * `code`, a whole answer that defines the function, after what it uses from
 * `context` and does not define itself: the imports and helpers of the
 * prompt it answers, which human-eval runs before every completion
 * (`prompt + completion`), so that a complete function calling the prompt's
 * helper runs as it does there. The prompt's own head of the function is
 * never taken: the answer defines it.
 */
export function withHelpersFrom(context: string, code: string, names: readonly string[]): string {
  const answer = code.split('\n');
  const needed = neededFrom([{ language: null, lines: context.split('\n') }], [], answer, names);
  return needed.length === 0 ? code : tidy(futureImportsFirst([...needed, ...answer]));
}

/**
 * Chat-template and end-of-text tokens a serving stack left around the
 * answer (`<|im_start|>assistant`, `<|im_end|>`, `</s>`, `<|eot_id|>`,
 * `<end_of_turn>`): never code, and one glued to a closing fence would
 * leave its block open to the end.
 */
function withoutTemplateTokens(text: string): string {
  const head = LEADING_TOKENS.exec(text);
  const start = head === null ? 0 : head[0].length;
  // Found from the end by hand: a pattern for "tokens, then blanks, at the end" would be tried from
  // every position of a text (quadratic in a long run of blanks).
  let end = text.length;
  for (;;) {
    let last = end;
    while (last > start && /\s/.test(text[last - 1] as string)) last--;
    const open = text.lastIndexOf('<', last - 1);
    if (open < start || !WHOLE_TOKEN.test(text.slice(open, last))) break;
    end = open;
  }
  if (start === 0 && end === text.length) return text;
  return text.slice(start, end);
}

const TEMPLATE_TOKEN = String.raw`(?:<\|[A-Za-z_][\w.-]*\|>|</s>|<eos>|<(?:start|end)_of_turn>)`;
const LEADING_TOKENS = new RegExp(String.raw`^(?:\s*${TEMPLATE_TOKEN}[ \t]*(?:assistant|model)?)+[ \t]*\n?`);
const WHOLE_TOKEN = new RegExp(`^${TEMPLATE_TOKEN}$`);

/** Python's `from __future__` imports must open the file: lines put before the answer go after them. */
function futureImportsFirst(lines: readonly string[]): string[] {
  const future = lines.filter((l) => /^from\s+__future__\s+import\s+[^(]*$/.test(l));
  return future.length === 0 ? [...lines] : [...future, ...lines.filter((l) => !future.includes(l))];
}

function holdsAnswer(block: FencedBlock): boolean {
  return (block.language === null ? !isDiff(block.lines) : !NOT_CODE.has(block.language)) && block.lines.some((l) => !isBlank(l));
}

/** A change shown as a diff with no info string: every line kept (` `), removed (`-`), added (`+`) or a hunk's head, with lines both removed and added. */
function isDiff(lines: readonly string[]): boolean {
  const shown = lines.filter((l) => !isBlank(l));
  return shown.every((l) => /^(?:[-+ ]|@@)/.test(l)) && shown.some((l) => l.startsWith('+')) && shown.some((l) => l.startsWith('-'));
}

/**
 * A reasoning model's answer follows its thinking: drafts inside
 * `<think>…</think>` (or `<thinking>…</thinking>`) are not the answer. The
 * opening tag may be missing, since some chat templates put it in the prompt:
 * then the thinking ends at the first close tag that ends its line (a
 * `'</think>'` inside the code is a string, followed by its quote). A think
 * block that is never closed holds no answer at all.
 */
function afterThinking(text: string): string {
  const { open, close } = thinking(text);
  if (close === null) return open !== null ? '' : text;
  return text.slice(close.index + close[0].length);
}

/** Whether the answer opens a think block it never closes: it then holds no answer (`afterThinking`). */
export function thinkingNeverClosed(text: string): boolean {
  const { open, close } = thinking(text);
  return open !== null && close === null;
}

function thinking(text: string): { open: RegExpExecArray | null; close: RegExpExecArray | null } {
  const open = /^\s*<(think|thinking)>/i.exec(text);
  const close = open !== null ? new RegExp(`</${open[1]}>`, 'i').exec(text) : /<\/think(?:ing)?>[ \t]*(?:\n|$)/i.exec(text);
  return { open, close };
}

/** Info strings of blocks that show a command, its output or data: never the answer. */
const NOT_CODE = new Set([
  'bash',
  'sh',
  'shell',
  'zsh',
  'console',
  'shell-session',
  'cmd',
  'powershell',
  'text',
  'txt',
  'plaintext',
  'output',
  'stdout',
  'log',
  'json',
  'yaml',
  'csv',
  'diff',
]);

function chooseBlock(blocks: readonly FencedBlock[], names: readonly string[]): FencedBlock | undefined {
  const filled = blocks.filter((b) => b.lines.some((l) => l.trim() !== ''));
  const code = blocks.filter(holdsAnswer);
  const defining = code.filter((b) => definesAsked(b, names));
  const written = defining.filter((b) => !onlyStubs(b, names));
  const last = code.at(-1);
  // A last block that defines a function of another name and does not call the one asked for is the
  // answer under a new name (the harness then calls the last function it defines), unless a block
  // wrote the function asked for (then the last is a helper or a check beside it); one that only
  // calls it, or tests it, is not.
  if (
    last !== undefined &&
    (written.length === 0 || renames(last, names)) &&
    !defining.includes(last) &&
    definesSomething(last) &&
    !names.some((name) => callOf(name).test(last.lines.join('\n')))
  ) {
    return last;
  }
  return written.at(-1) ?? defining.at(-1) ?? last ?? filled.at(-1) ?? blocks.at(-1);
}

/** Whether a block defines a function whose name holds one of `names` (`max_profit_optimized`, `fast_gcd`): the answer renamed. */
function renames(block: FencedBlock, names: readonly string[]): boolean {
  return block.lines.some((line) => {
    const defined = /^\s*(?:async\s+)?def\s+(\w+)|\bfunction\s*\*?\s*([\w$]+)/.exec(line);
    const name = defined?.[1] ?? defined?.[2];
    return name !== undefined && names.some((asked) => name !== asked && name.includes(asked));
  });
}

/**
 * Whether a block defines one of `names`: a definition, or an import of it
 * from the standard library (`from math import gcd` answers), or from
 * elsewhere when the block does not go on to call it (`from solution import
 * gcd` above tests of it, or a `require` of it, does not).
 */
function definesAsked(block: FencedBlock, names: readonly string[]): boolean {
  return names.some((name) => {
    const definition = definitionOf(name);
    const imported = importOf(name);
    if (block.lines.some((line) => definition.test(line) && !REQUIRE.test(line))) return true;
    const imports = block.lines.filter((line) => imported.test(line));
    if (imports.length === 0) return false;
    // From the standard library it is the answer, whatever the block goes on to do with it ("just use math.comb");
    // from a module of the answer's own (`from solution import f`) it is what tests of it do.
    if (imports.some((line) => STANDARD_MODULE.test(line))) return true;
    return !callOf(name).test(block.lines.filter((line) => !imported.test(line)).join('\n'));
  });
}

/**
 * Whether every Python definition of `names` in the block is a stub: a body
 * of nothing but a docstring, comments, `pass`, `...` or `raise
 * NotImplementedError` (the signature a model restates, a skeleton to fill).
 * A block with no such definition is not one.
 */
function onlyStubs(block: FencedBlock, names: readonly string[]): boolean {
  const head = new RegExp(String.raw`^([ \t]*)(?:async[ \t]+)?def[ \t]+(?:${names.map(escapeName).join('|')})[ \t]*\(`);
  let stubs = 0;
  for (let i = 0; i < block.lines.length; i++) {
    const line = block.lines[i] as string;
    const found = head.exec(line);
    if (found === null) continue;
    const indent = (found[1] as string).length;
    // The signature may go on over lines (black's style) up to its colon.
    let end = i;
    while (end + 1 < block.lines.length && !SIGNATURE_END.test(block.lines[end] as string)) end++;
    // A body on the signature's last line (`def f(n): pass`), then the lines indented under it.
    const inline = /\)[^()]*:[ \t]*([^\s#].*)$/.exec(block.lines[end] as string);
    const body = inline === null ? [] : [inline[1] as string];
    let j = end + 1;
    for (; j < block.lines.length; j++) {
      const next = block.lines[j] as string;
      if (isBlank(next)) continue;
      if ((/^[ \t]*/.exec(next)?.[0].length ?? 0) <= indent) break;
      body.push(next.trim());
    }
    if (!isStubBody(body)) return false;
    stubs++;
    i = j - 1;
  }
  return stubs > 0;
}

/** The line that ends a Python signature: its closing parenthesis, an optional return annotation and the colon. */
const SIGNATURE_END = /\)[^()]*:[ \t]*(?:[^\s#].*)?(?:#.*)?$/;

/** Whether a body's lines (trimmed) do nothing: a docstring, comments, `pass`, `...`, `raise NotImplementedError`. */
function isStubBody(lines: readonly string[]): boolean {
  return lines
    .join('\n')
    .replace(/[rRuU]?("""|''')[\s\S]*?\1/g, '')
    .replace(/#.*$/gm, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .every((l) => STUB_STATEMENT.test(l));
}

const STUB_STATEMENT = /^(?:pass|\.\.\.|raise\s+NotImplementedError\b.*)$/;

function escapeName(name: string): string {
  return name.replace(/[$]/g, '\\$&');
}

/**
 * What the answer uses from the other blocks of its language: a chat answer
 * often gives the imports or a helper in a block of their own ("First the
 * imports:", "where the helper is:") before or after the block with the function. Only top-level imports and
 * definitions are taken (never a call, a print or a test), each only when
 * the answer (or something taken for it) names what it binds and does not
 * bind that name itself, and never one of the function asked for; the last
 * definition of a name wins, as it would had the blocks run in order.
 */
function neededFrom(earlier: readonly FencedBlock[], later: readonly FencedBlock[], answer: readonly string[], names: readonly string[]): string[] {
  if (earlier.length === 0 && later.length === 0) return [];
  // The function asked for is the answer's to define (as a method, say), never an earlier draft's.
  const own = new Set([...names, ...topLevelStatements(answer).flatMap((s) => s.binds)]);
  const before = earlier.flatMap((b) => topLevelStatements(b.lines)).filter((s) => s.binds.length > 0);
  const bound = new Set(before.flatMap((s) => s.binds));
  // After the answer, only definitions and imports of names nothing before it binds: an "Example usage:" block's
  // assignments (`result = f(...)`) are its own, and an alternative written later does not replace a helper given earlier.
  const after = later
    .flatMap((b) => topLevelStatements(b.lines))
    .filter((s) => s.binds.length > 0 && DEFINITION_OR_IMPORT.test(s.lines.find((l) => !l.startsWith('@')) ?? '') && !s.binds.some((n) => bound.has(n)));
  const offered = [...before, ...after];
  const lastOf = new Map<string, TopLevelStatement>();
  for (const s of offered) for (const name of s.binds) lastOf.set(name, s);
  const taken = new Set<TopLevelStatement>();
  const wanted = [...namesUsed(answer)];
  while (wanted.length > 0) {
    const name = wanted.pop() as string;
    const s = own.has(name) ? undefined : lastOf.get(name);
    if (s === undefined || taken.has(s)) continue;
    taken.add(s);
    // What an import names is a module, not something it needs.
    if (!/^(?:import|from)\s/.test(s.lines[0] as string)) wanted.push(...namesUsed(s.lines));
  }
  if (taken.size === 0) return [];
  return [...offered.filter((s) => taken.has(s)).flatMap((s) => s.lines), ''];
}

const DEFINITION_OR_IMPORT = /^(?:(?:async\s+)?def\s|class\s|(?:export\s+)?(?:async\s+)?function\b|import\s|from\s)/;

interface TopLevelStatement {
  lines: string[];
  /** The names it binds when it is an import or a definition; empty for anything else. */
  binds: string[];
}

/**
 * A block's statements at the top level: a line with no indentation starts
 * one, and lines that are indented, blank or open with a closing bracket
 * (the end of a JavaScript body or of a call spread over lines), a Python
 * `else`/`elif`/`except`/`finally`, or the definition under a decorator
 * continue it.
 */
function topLevelStatements(lines: readonly string[]): TopLevelStatement[] {
  const statements: TopLevelStatement[] = [];
  let current: string[] | null = null;
  for (const line of lines) {
    const continues =
      current !== null && (isBlank(line) || /^[ \t)\]}]/.test(line) || /^(?:else|elif|except|finally)\b/.test(line) || current.every((l) => l.startsWith('@')));
    if (continues && current !== null) current.push(line);
    else statements.push({ lines: (current = [line]), binds: [] });
  }
  for (const s of statements) s.binds = bindings(s.lines.find((l) => !l.startsWith('@')) ?? '');
  return statements;
}

/** The names a top-level import or definition binds. */
function bindings(line: string): string[] {
  const pyImport = /^import\s+([^#;]+)/.exec(line);
  if (pyImport !== null)
    return (pyImport[1] as string)
      .split(',')
      .map((part) => importedName(part, true))
      .filter((n) => n !== '');
  const fromImport = /^from\s+[\w.]+\s+import\s+\(?([^#;)]+)/.exec(line);
  if (fromImport !== null)
    return (fromImport[1] as string)
      .split(',')
      .map((part) => importedName(part, false))
      .filter((n) => n !== '' && n !== '*');
  const definition =
    /^(?:async\s+)?def\s+(\w+)|^class\s+([\w$]+)|^(?:export\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)|^(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]*)?=|^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)/.exec(
      line,
    );
  const name = definition?.slice(1).find((n) => n !== undefined);
  return name === undefined ? [] : [name];
}

/** `a.b as c` binds c; `a.b` binds a in `import a.b`, and b in `from x import b`. */
function importedName(part: string, dotted: boolean): string {
  const words = part.trim().split(/\s+/);
  if (words.length >= 3 && words[1] === 'as') return words[2] as string;
  const name = words[0] ?? '';
  return dotted ? (name.split('.')[0] as string) : name;
}

/** The names code uses, leaving out what comments and one-line strings hold (a comment that mentions numpy imports nothing). */
function namesUsed(lines: readonly string[]): Set<string> {
  const text = lines.map((l) => l.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/(?:#|\/\/).*$/, '')).join('\n');
  // A name after a dot is an attribute (`this.gcd`, `math.isqrt`), not one the code needs bound.
  return new Set(Array.from(text.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g), (m) => m[0]));
}

function definesSomething(block: FencedBlock): boolean {
  return block.lines.some((line) => ANY_DEFINITION.test(line));
}

const ANY_DEFINITION =
  /(?:^\s*(?:async\s+)?def\s+\w+\s*\()|(?:\bfunction\s*\*?\s*[\w$]+\s*[(<])|(?:^\s*(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*=>|[\w$]+\s*=>))|(?:^\s*(?:export\s+)?class\s+\w+)/;

function callOf(name: string): RegExp {
  return new RegExp(`(?:^|[^\\w$.])${name.replace(/[$]/g, '\\$&')}\\s*\\(`);
}

/**
 * A line that defines `name` in Python, JavaScript or TypeScript: `def name(`,
 * `function name(`, `const name =`, `name = lambda`, a method `name(...) {`
 * (an import of it is `importOf`'s).
 * A line that only calls it (`print(name(3))`, `name(3);`) does not.
 */
function definitionOf(name: string): RegExp {
  const n = name.replace(/[$]/g, '\\$&');
  return new RegExp(
    `(?:\\bdef\\s+${n}\\s*\\()|(?:\\bfunction\\s*\\*?\\s*${n}\\s*[(<])|(?:\\b(?:const|let|var)\\s+${n}\\b)|(?:^\\s*${n}\\s*=(?!=))|(?:^\\s*(?:static\\s+|async\\s+|public\\s+)*${n}\\s*\\([^)]*\\)\\s*(?::[^{]*)?\\{)`,
  );
}

const REQUIRE = /=\s*require\s*\(/;

/** An import from a module of Python's standard library that holds functions an answer may be: `from math import comb`. */
const STANDARD_MODULE =
  /^\s*from\s+(?:math|cmath|itertools|functools|operator|statistics|bisect|heapq|collections|string|re|fractions|decimal|random|datetime|calendar|textwrap|unicodedata|json|copy|numbers|array|struct|zlib|hashlib|binascii|base64|difflib|fnmatch)\s+import\b/;

/** A line that binds `name` by importing it: `from m import name`, `import m as name`, `const name = require(…)`, `import name from …`. */
function importOf(name: string): RegExp {
  const n = escapeName(name);
  return new RegExp(
    String.raw`(?:^\s*from\s+[\w.]+\s+import\s+.*\b${n}\b(?!\s+as\b))|(?:^\s*import\s+.*\bas\s+${n}\b)|(?:\b(?:const|let|var)\s+${n}\s*=\s*require\s*\()|(?:^\s*import\s+(?:${n}\b|\{[^}]*\b${n}\b))`,
  );
}

function findFencedBlocks(lines: readonly string[]): FencedBlock[] {
  const { prelude, fences } = fencesOf(lines);
  const blocks: FencedBlock[] = [];
  // Code, then a bare fence: the model closed a block its prompt had opened.
  if (prelude !== null) blocks.push({ language: null, lines: stripSurroundingProse(lines.slice(0, prelude)) });
  for (const fence of fences) {
    const body = lines.slice(fence.from + 1, fence.to).map((l) => removeIndent(l, fence.indent));
    const language = fenceLanguage(fence.info);
    // An answer wrapped whole in a Markdown fence: its own fences hold the code.
    const inner = language === 'markdown' || language === 'md' ? findFencedBlocks(body) : [];
    if (inner.length > 0) blocks.push(...inner);
    else blocks.push({ language, lines: body });
  }
  return blocks;
}

/** A fenced block's opening line, its closing line (or the end of the text), the opening's indentation and info string. */
interface Fence {
  from: number;
  to: number;
  indent: number;
  info: string;
}

/**
 * The fences of `lines`, in order, and the line of a bare fence that closes
 * code the text opened with (`prelude`), or null.
 *
 * Fence-looking lines inside a Python triple-quoted string are the string's
 * text: a docstring that shows an example in a fence, or a template that
 * holds one, is part of the code around it.
 * - Text whose every fence-looking line is inside such a string, whose
 *   strings all close, and which holds code before the first of them, is
 *   code with no fence at all.
 * - Otherwise the text is Markdown: its prose is not read for strings (an
 *   apostrophe or a quote in a sentence would open one), but a Python (or
 *   unnamed) block's is, and its closing fence is the first outside a
 *   string, or the first fence if its strings never close.
 * A closing fence is indented at most three columns more than its opening,
 * as in CommonMark: a fence indented further is the block's text.
 */
function fencesOf(lines: readonly string[]): { prelude: number | null; fences: Fence[] } {
  if (isCodeWithFencesInStrings(lines)) return { prelude: null, fences: [] };
  const fences: Fence[] = [];
  let prelude: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const opening = parseFenceOpen(lines[i] as string);
    if (opening === null) continue;
    if (fences.length === 0 && prelude === null && i > 0 && opening.info === '' && holdsCode(lines.slice(0, i))) {
      prelude = i;
      continue;
    }
    const to = closingLine(lines, i + 1, opening);
    fences.push({ from: i, to, indent: opening.indent, info: opening.info });
    i = to;
  }
  return { prelude, fences };
}

/** Whether every fence-looking line of `lines` is inside a triple-quoted string that closes, after some code. */
function isCodeWithFencesInStrings(lines: readonly string[]): boolean {
  let quote: TripleQuote | null = null;
  let first = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (parseFenceOpen(line) !== null || FENCE_CLOSE.test(line)) {
      if (quote === null) return false;
      if (first < 0) first = i;
    }
    quote = afterLine(line, quote);
  }
  return first > 0 && quote === null && holdsCode(lines.slice(0, first));
}

/** The line that closes the block opened at `from - 1` (`lines.length` when none does). */
function closingLine(lines: readonly string[], from: number, opening: { indent: number; marker: string; info: string }): number {
  let plain = -1;
  for (let i = from; i < lines.length; i++) {
    if (closesFence(lines[i] as string, opening.marker, opening.indent)) {
      plain = i;
      break;
    }
  }
  if (!PYTHON_FENCES.has(fenceLanguage(opening.info))) return plain < 0 ? lines.length : plain;
  let quote: TripleQuote | null = null;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] as string;
    if (quote === null && closesFence(line, opening.marker, opening.indent)) return i;
    quote = afterLine(line, quote);
  }
  return plain < 0 ? lines.length : plain;
}

/** Fences whose text is read as Python for its strings: Python's own names, and none. */
const PYTHON_FENCES = new Set<string | null>([null, 'python', 'py', 'python3', 'py3', 'ipython', 'pycon']);

type TripleQuote = '"""' | "'''";

/**
 * Whether a Python triple-quoted string is still open after `line`, given
 * whether one was open before it. A `#` outside a string ends the line's
 * code; a one-line string ends at its quote or at the line's end, so an
 * apostrophe in prose opens nothing past its line.
 */
function afterLine(line: string, quote: TripleQuote | null): TripleQuote | null {
  let i = 0;
  let open = quote;
  while (i < line.length) {
    if (open !== null) {
      const close = closingQuote(line, i, open);
      if (close < 0) return open;
      open = null;
      i = close + 3;
      continue;
    }
    const c = line[i];
    if (c === '#') return null;
    if (c === '"' || c === "'") {
      if (line.startsWith(c.repeat(3), i)) {
        open = c.repeat(3) as TripleQuote;
        i += 3;
        continue;
      }
      i++;
      while (i < line.length && line[i] !== c) i += line[i] === '\\' ? 2 : 1;
    }
    i++;
  }
  return open;
}

/** Where `quote` closes in `line` from `from`, past backslash escapes; -1 when it does not. */
function closingQuote(line: string, from: number, quote: TripleQuote): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line.startsWith(quote, i)) return i;
  }
  return -1;
}

function parseFenceOpen(line: string): { indent: number; marker: string; info: string } | null {
  const m = FENCE_OPEN.exec(line);
  if (m === null) return null;
  const [, indent = '', marker = '', rest = ''] = m;
  // A backtick fence's info string cannot hold a backtick: "```x```" is inline code.
  if (marker.startsWith('`') && rest.includes('`')) return null;
  return { indent: indent.length, marker, info: rest.trim() };
}

/** Some line is neither blank, nor prose, nor a stray comment close. */
function holdsCode(lines: readonly string[]): boolean {
  return lines.some((l) => !isBlank(l) && !isProseLine(l) && !DANGLING_COMMENT_CLOSE.test(l));
}

function closesFence(line: string, marker: string, openIndent: number): boolean {
  const m = FENCE_CLOSE.exec(line);
  const close = m?.[2];
  return close !== undefined && close[0] === marker[0] && close.length >= marker.length && (m?.[1]?.length ?? 0) <= openIndent + 3;
}

function fenceLanguage(info: string): string | null {
  const word = /^[{.]?([\w+#-]+)/.exec(info);
  return word?.[1] ? word[1].toLowerCase() : null;
}

/** Removes up to `width` leading whitespace characters, as CommonMark does for an indented fence. */
function removeIndent(line: string, width: number): string {
  let n = 0;
  while (n < width && (line[n] === ' ' || line[n] === '\t')) n++;
  return line.slice(n);
}

/** Blank lines at either end dropped, common indentation removed, joined with `\n`. */
function tidy(lines: readonly string[]): string {
  return dedent(trimBlankEnds(lines)).join('\n');
}

function trimBlankEnds(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && isBlank(lines[start] as string)) start++;
  while (end > start && isBlank(lines[end - 1] as string)) end--;
  return lines.slice(start, end);
}

function dedent(lines: readonly string[]): string[] {
  const indents = lines.filter((l) => !isBlank(l)).map((l) => /^[ \t]*/.exec(l)?.[0] ?? '');
  if (indents.length === 0) return [...lines];
  let common = indents[0] as string;
  for (const ind of indents) {
    let n = 0;
    while (n < common.length && n < ind.length && common[n] === ind[n]) n++;
    common = common.slice(0, n);
  }
  return common === '' ? [...lines] : lines.map((l) => (l.startsWith(common) ? l.slice(common.length) : l.trimStart()));
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function stripSurroundingProse(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end) {
    const line = lines[start] as string;
    if (!(isBlank(line) || isProseLine(line) || DANGLING_COMMENT_CLOSE.test(line))) break;
    start++;
  }
  while (end > start) {
    const line = lines[end - 1] as string;
    const continuesPrevious = end >= 2 && /\\\s*$/.test(lines[end - 2] as string);
    if (!(isBlank(line) || (isProseLine(line) && !continuesPrevious))) break;
    end--;
  }
  const kept = lines.slice(start, end);
  return kept.some((l) => !isBlank(l)) ? kept : [...lines];
}

// A lone `*` `/` line before any code: the model closed a comment its prompt had opened.
const DANGLING_COMMENT_CLOSE = /^\s*\*+\/\s*$/;

/** Words that may precede an identifier on the same line in Python, JavaScript or TypeScript. */
const PREFIX_WORDS = new Set([
  // Python (with the soft keywords and Python 2's print/exec statements)
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'case',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'exec',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'match',
  'nonlocal',
  'not',
  'or',
  'print',
  'raise',
  'return',
  'type',
  'while',
  'with',
  'yield',
  // JavaScript and TypeScript, contextual keywords included
  'abstract',
  'accessor',
  'asserts',
  'const',
  'declare',
  'default',
  'delete',
  'do',
  'enum',
  'export',
  'extends',
  'function',
  'get',
  'goto',
  'implements',
  'infer',
  'instanceof',
  'interface',
  'keyof',
  'let',
  'module',
  'namespace',
  'new',
  'of',
  'out',
  'override',
  'package',
  'private',
  'protected',
  'public',
  'readonly',
  'satisfies',
  'set',
  'static',
  'throw',
  'typeof',
  'unique',
  'using',
  'var',
  'void',
]);

/** Words that may follow an identifier on the same line. */
const INFIX_WORDS = new Set([
  'and',
  'as',
  'async',
  'else',
  'extends',
  'for',
  'from',
  'if',
  'implements',
  'import',
  'in',
  'instanceof',
  'is',
  'not',
  'of',
  'or',
  'satisfies',
]);

const BARE_WORD = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** `Here's`, `Let's`, `don’t`: in code, a name followed by a string, never valid. */
const CONTRACTION = /^([A-Za-z]+)['’][A-Za-z]*[.,:;!?]?$/;
/** Python string prefixes: `f'…'`, `rb'…'` are strings, not a name and a string. */
const STRING_PREFIX = /^(?:[rubft]|br|rb|fr|rf|tr|rt)$/i;

/**
 * A line that cannot be code in Python, JavaScript or TypeScript. It starts
 * with plain words (so nothing on the line opened a string or comment) and
 * either two of them sit side by side with no keyword that could join them
 * (`the function`, `I will`, `the code:`), or a word runs into an apostrophe (`Here's`):
 * in all three languages both are syntax errors. To be sure the line is not
 * the end of a string or comment opened on an earlier line, it must not hold
 * `"""`, `'''`, a comment close, `//`, `#`, `\`, brackets, `=`, `;`, `<`, `>`,
 * or an odd number of `"` or backticks.
 */
function isProseLine(line: string): boolean {
  const text = line.trim();
  if (text === '' || /"""|'''|\*\/|\/\/|[#\\{}[\]=;<>]/.test(text)) return false;
  if (count(text, '"') % 2 === 1 || count(text, '`') % 2 === 1) return false;
  if (HEADING.test(text) && !COLON_KEYWORDS.has(text.replace(/[^A-Za-z]/g, ''))) return true;
  // Inline code that starts a sentence (`gcd` returns...) reads as one word; a tagged template (tag`x`) does not.
  const tokens = text.replace(/(^|\s)`[^`]+`/g, '$1code').split(/\s+/);
  // After a list item's marker or an opening parenthesis, two names side by side are no more code than at the start.
  if (LIST_MARKER.test(tokens[0] as string)) tokens.shift();
  else if ((tokens[0] as string).startsWith('(')) tokens[0] = (tokens[0] as string).slice(1);
  const words: string[] = [];
  for (const token of tokens) {
    const contraction = CONTRACTION.exec(token);
    if (contraction !== null && isPlainName(contraction[1] as string)) return true;
    if (BARE_WORD.test(token)) {
      words.push(token);
      continue;
    }
    // `the code:` is as impossible as `the code`: punctuation after the second
    // name cannot join the two. It does end the run (`a, b` and `a. b` are code),
    // except after a capitalised `Word:` (`Note: the result`), which neither an
    // annotation nor a label can be followed by two names.
    const unpunctuated = token.replace(/[.,:!?]$/, '');
    if (BARE_WORD.test(unpunctuated)) words.push(unpunctuated);
    if (words.length === 1 && /^[A-Z][A-Za-z]*:$/.test(token)) {
      words.length = 0;
      continue;
    }
    break;
  }
  for (let i = 0; i + 1 < words.length; i++) {
    if (!PREFIX_WORDS.has(words[i] as string) && !INFIX_WORDS.has(words[i + 1] as string)) return true;
  }
  return false;
}

/**
 * A line that is one word with an exclamation mark or a full stop (`Sure!`,
 * `Certainly.`), or a capitalised or emphasised heading ending in a colon
 * (`Solution:`, `**Explanation:**`): a syntax error in Python, and in
 * JavaScript either one too or a label that nothing uses.
 */
const HEADING = /^(?:[A-Za-z][A-Za-z']*[!.]|(?:\*\*|__|\*|_)?[A-Z][A-Za-z' ]{0,40}:(?:\*\*|__|\*|_)?|(?:\*\*|__)[A-Za-z][A-Za-z' ]{0,40}[:!.]?(?:\*\*|__))$/;
/** Words that end a line with a colon in code: `else:`, `try:`, `finally:`, `except:`, `default:`. */
const COLON_KEYWORDS = new Set(['else', 'try', 'finally', 'except', 'default']);
/** A Markdown list item's marker: `-`, `*`, `+`, `1.`, `1)`. */
const LIST_MARKER = /^(?:[-*+]|\d+[.)])$/;

/** A name that is neither a keyword (`return'x'` is valid) nor a Python string prefix. */
function isPlainName(stem: string): boolean {
  return !STRING_PREFIX.test(stem) && !PREFIX_WORDS.has(stem) && !INFIX_WORDS.has(stem);
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}
