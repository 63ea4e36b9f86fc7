/**
 * Which language a candidate is written in, read from the languages'
 * descriptors (engines/languages.ts): the names and aliases of their
 * dialects, and their signals.
 *
 * An explicit language wins: first the declared one (file extension or a
 * `language` field), then the fence's info string. Unknown names (`c`,
 * `text`) are ignored. Otherwise the code is scored against each language's
 * signals, and the highest score wins; on a tie the earlier language in the
 * list wins, so a solution with no signal at all is run as JavaScript (the
 * first), and Python wins only with the higher score. Then the language's
 * dialect: the first whose own signals match (JavaScript that also shows
 * TypeScript-only syntax is TypeScript), else the language itself. Python's
 * own annotations (`def f(a: int) -> int:`) never count for TypeScript,
 * since Python code never gets as far as JavaScript's dialects.
 */
import type { Signal } from '../engines/descriptor.js';
import { allLanguages, languageOfDialect, type KnownLanguage } from '../engines/find-language.js';
import type { DialectName } from '../engines/languages.js';

/** A language or dialect as a solution is written in it (`typescript` runs as JavaScript). */
export type SolutionLanguage = DialectName;

export interface LanguageHints {
  declared: string | null;
  fenceLanguage: string | null;
  /**
   * When the code does not tell (languages score alike: `return a + b`), the
   * language to take if it is one of them: the problem's own solution's.
   * Asked only then.
   */
  onTie?: () => SolutionLanguage | null;
}

let aliases: Map<string, SolutionLanguage> | undefined;

/** Every name of every dialect, lower-case, to its dialect. */
function aliasTable(): Map<string, SolutionLanguage> {
  if (aliases === undefined) {
    aliases = new Map();
    for (const language of allLanguages()) {
      for (const dialect of language.dialects) {
        for (const name of [dialect.name, ...dialect.aliases]) aliases.set(name.toLowerCase(), dialect.name);
      }
    }
  }
  return aliases;
}

/** Maps a language name or alias (`py`, `JS`, `TypeScript`) to a supported language, or null. */
export function normalizeLanguageName(name: string | null | undefined): SolutionLanguage | null {
  if (name === null || name === undefined) return null;
  return aliasTable().get(name.trim().toLowerCase()) ?? null;
}

let extensions: Map<string, SolutionLanguage> | undefined;

/** Source file extensions (lower-case, with the dot) to the dialect they declare, in the languages' order. */
export function sourceExtensions(): ReadonlyMap<string, SolutionLanguage> {
  if (extensions === undefined) {
    extensions = new Map();
    for (const language of allLanguages()) {
      for (const dialect of language.dialects) {
        for (const ext of dialect.extensions) extensions.set(ext.toLowerCase(), dialect.name);
      }
    }
  }
  return extensions;
}

/**
 * Whether a fence's language is another language than the one `declared`
 * (a `typescript` fence is not foreign to JavaScript, an unknown name such
 * as `c` foreign to none); with nothing declared, no fence is foreign.
 */
export function foreignTo(declared: string | null): (fenceLanguage: string) => boolean {
  const own = normalizeLanguageName(declared);
  if (own === null) return () => false;
  const language = languageOfDialect(own).name;
  return (fenceLanguage) => {
    const named = languageNamed(fenceLanguage);
    return named !== null && named !== language;
  };
}

/** The language a fence's info word names: one evalrun runs (by its language's name, `javascript` for `ts`), one it knows it does not (`ruby`), or null (`text`, `c#`-like words it does not know). */
function languageNamed(fenceLanguage: string): string | null {
  const named = normalizeLanguageName(fenceLanguage);
  if (named !== null) return languageOfDialect(named).name;
  const lower = fenceLanguage.trim().toLowerCase();
  return OTHER_LANGUAGES.has(lower) ? lower : null;
}

function score(code: string, signals: readonly Signal[]): number {
  return signals.reduce((sum, s) => sum + (s.pattern.test(code) ? s.weight : 0), 0);
}

export function detectLanguage(code: string, hints: LanguageHints): SolutionLanguage {
  const explicit = normalizeLanguageName(hints.declared) ?? normalizeLanguageName(hints.fenceLanguage);
  if (explicit !== null) return explicit;
  const text = code.replace(/\r\n?/g, '\n');
  let best: KnownLanguage | undefined;
  let bestScore = -1;
  const tied: KnownLanguage[] = [];
  for (const language of allLanguages()) {
    const s = score(text, language.signals);
    if (s > bestScore) {
      best = language;
      bestScore = s;
      tied.length = 0;
    }
    if (s === bestScore) tied.push(language);
  }
  if (best === undefined) throw new Error('evalrun: no languages');
  if (tied.length > 1 && hints.onTie !== undefined) {
    const preferred = hints.onTie();
    if (preferred !== null && tied.some((l) => l.name === languageOfDialect(preferred).name)) return preferred;
  }
  const [own, ...others] = best.dialects;
  const dialect = others.find((d) => d.signals?.some((p) => p.test(text)) === true) ?? own;
  return dialect.name;
}

/**
 * Programming languages evalrun has no engine for, by the names a fence's
 * info string or a `language` field gives them. An answer declared in one is
 * `unsupported` under that name, rather than scored against the languages
 * evalrun runs (C++ read as JavaScript fails to load, with an error about
 * JavaScript).
 */
const OTHER_LANGUAGES = new Set(
  (
    'c cpp c++ cc cxx h hpp objective-c objc java kotlin kt scala groovy go golang rust rs csharp cs c# fsharp f# vb vbnet ' +
    'swift ruby rb php perl pl lua dart elixir erlang clojure haskell hs ocaml julia r matlab zig nim fortran cobol pascal sql'
  ).split(' '),
);

/** Whether a fence's info word names a programming language evalrun cannot run (`ruby`, `php`). */
export function runsNowhere(fenceLanguage: string): boolean {
  return normalizeLanguageName(fenceLanguage) === null && OTHER_LANGUAGES.has(fenceLanguage.trim().toLowerCase());
}

/** The language `declared` or, failing that, `fenceLanguage` names when evalrun cannot run it; null otherwise. */
export function otherLanguage(declared: string | null, fenceLanguage: string | null): string | null {
  for (const name of [declared, fenceLanguage]) {
    if (name === null) continue;
    if (normalizeLanguageName(name) !== null) return null;
    if (runsNowhere(name)) return name.trim().toLowerCase();
  }
  return null;
}
