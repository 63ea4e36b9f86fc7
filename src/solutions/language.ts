/**
 * Which language a candidate is written in.
 *
 * An explicit language wins: first the declared one (file extension or a
 * `language` field), then the fence's info string. Unknown names (`c`,
 * `text`) are ignored. Otherwise the code is scored against Python and
 * JavaScript signals; Python wins only with the higher score, since a
 * solution with no signal at all is run as JavaScript. JavaScript that also
 * shows TypeScript-only syntax (parameter or return type annotations,
 * `interface`, `type X =`, `enum`, generics, access modifiers) is TypeScript;
 * Python's own annotations (`def f(a: int) -> int:`) never count for it.
 */

export type SolutionLanguage = 'javascript' | 'typescript' | 'python';

export interface LanguageHints {
  declared: string | null;
  fenceLanguage: string | null;
}

const ALIASES: Record<string, SolutionLanguage> = {
  python: 'python', py: 'python', python3: 'python', py3: 'python', python2: 'python',
  ipython: 'python', pycon: 'python', ipython3: 'python',
  javascript: 'javascript', js: 'javascript', node: 'javascript', nodejs: 'javascript',
  mjs: 'javascript', cjs: 'javascript', jsx: 'javascript', es6: 'javascript', ecmascript: 'javascript',
  typescript: 'typescript', ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
};

/** Maps a language name or alias (`py`, `JS`, `TypeScript`) to a supported language, or null. */
export function normalizeLanguageName(name: string | null | undefined): SolutionLanguage | null {
  if (name === null || name === undefined) return null;
  return ALIASES[name.trim().toLowerCase()] ?? null;
}

interface Signal {
  pattern: RegExp;
  weight: number;
}

const PYTHON_SIGNALS: Signal[] = [
  { pattern: /^[ \t]*(async[ \t]+)?def[ \t]+\w+[ \t]*\(/m, weight: 3 },
  { pattern: /^[ \t]*class[ \t]+\w+[ \t]*(\([^)]*\))?[ \t]*:[ \t]*(#.*)?$/m, weight: 3 },
  { pattern: /^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+[\w*(]/m, weight: 3 },
  // JavaScript's `import` always has quotes or braces; Python's never does.
  { pattern: /^[ \t]*import[ \t]+[\w.]+([ \t]+as[ \t]+\w+)?([ \t]*,[ \t]*[\w.]+([ \t]+as[ \t]+\w+)?)*[ \t]*$/m, weight: 2 },
  { pattern: /^[ \t]*(elif\b.*|else|try|finally|except\b.*)[ \t]*:[ \t]*(#.*)?$/m, weight: 2 },
  { pattern: /^[ \t]*(if|while|for|with)\b[^{};\n]*:[ \t]*(#.*)?$/m, weight: 2 },
  // A block opened by a colon and continued by deeper indentation.
  { pattern: /:[ \t]*(#.*)?\n([ \t]*\n)*([ \t]+)\S/, weight: 2 },
  { pattern: /"""|'''/, weight: 2 },
  { pattern: /\b(None|True|False)\b/, weight: 1 },
  { pattern: /^[ \t]*#([ \t#]|$)|[ \t]#[ \t]/m, weight: 1 },
  { pattern: /^[ \t]*(raise|pass|del|nonlocal|global|assert)\b/m, weight: 1 },
  { pattern: /\bself\b/, weight: 1 },
  { pattern: /\blambda\b[^:\n]*:/, weight: 1 },
];

const JAVASCRIPT_SIGNALS: Signal[] = [
  { pattern: /\bfunction\b[ \t]*\*?[ \t]*[\w$]*[ \t]*(<[^>\n]*>)?\(/, weight: 3 },
  { pattern: /^[ \t]*(export[ \t]+)?(const|let|var)[ \t]+[\w$[{]/m, weight: 3 },
  { pattern: /^[ \t]*import[ \t]+([\w$]+[ \t]+from|\{|\*|["'])/m, weight: 3 },
  { pattern: /\)[ \t]*(:[^{}\n]*)?\{[ \t]*$/m, weight: 3 },
  { pattern: /=>/, weight: 2 },
  { pattern: /===|!==/, weight: 2 },
  { pattern: /\b(console\.\w+|module\.exports|exports\.\w+|require\()/, weight: 2 },
  { pattern: /^[ \t]*export[ \t]/m, weight: 2 },
  { pattern: /\belse[ \t]*\{|\}[ \t]*else\b/, weight: 2 },
  { pattern: /;[ \t]*$/m, weight: 1 },
  { pattern: /^[ \t]*\/\/|\/\*/m, weight: 1 },
  // Not a bare `this`: English comments say "this" too.
  { pattern: /\b(null|undefined)\b|\bthis\./, weight: 1 },
];

const TYPESCRIPT_SIGNALS: RegExp[] = [
  /^[ \t]*(export[ \t]+)?(interface|enum)[ \t]+[\w$]+/m,
  /^[ \t]*(export[ \t]+)?type[ \t]+[\w$]+[ \t]*(<[^>\n]*>)?[ \t]*=/m,
  // A first parameter with a type: `(a: number`, `(b?: string[]`. Not `, b: 2`,
  // which is just as likely an object literal.
  /\([ \t]*[\w$]+[ \t]*\??[ \t]*:[ \t]*[A-Za-z_$[{(<'"]/,
  // A return type before the body or arrow: `): number {`, `): string[] =>`.
  /\)[ \t]*:[ \t]*[\w$[('"][^?\n{};]*?[ \t]*(\{|=>)/,
  /:[ \t]*(number|string|boolean|any|unknown|void|never|bigint|object)\b/,
  /\bfunction\b[ \t]*[\w$]*[ \t]*<[^>\n]+>[ \t]*\(/,
  /\b(as[ \t]+(const|number|string|any|unknown)|readonly[ \t]+\w|implements[ \t]+\w|(private|protected|public)[ \t]+\w)/,
];

function score(code: string, signals: readonly Signal[]): number {
  return signals.reduce((sum, s) => sum + (s.pattern.test(code) ? s.weight : 0), 0);
}

export function detectLanguage(code: string, hints: LanguageHints): SolutionLanguage {
  const explicit = normalizeLanguageName(hints.declared) ?? normalizeLanguageName(hints.fenceLanguage);
  if (explicit !== null) return explicit;
  const text = code.replace(/\r\n?/g, '\n');
  if (score(text, PYTHON_SIGNALS) > score(text, JAVASCRIPT_SIGNALS)) return 'python';
  return TYPESCRIPT_SIGNALS.some((p) => p.test(text)) ? 'typescript' : 'javascript';
}
