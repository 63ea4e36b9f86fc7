/**
 * Look-ups over the list of languages (languages.ts), for code that treats
 * every language alike. Kept apart from the list, so that the list is
 * nothing but its entries.
 */
import type { Equality } from '../values/compare.js';
import type { LanguageDescriptor } from './descriptor.js';
import { LANGUAGES, type DialectName, type Language } from './languages.js';

/** Any of the descriptors in the list. */
export type KnownLanguage = LanguageDescriptor<Language, DialectName>;

/** Every descriptor, in the list's order, as their common type. */
export function allLanguages(): readonly KnownLanguage[] {
  return LANGUAGES;
}

/** The names of every language evalrun runs. */
export function languageNames(): Language[] {
  return allLanguages().map((l) => l.name);
}

/** The descriptor of the language named `name`, if evalrun runs it. */
export function languageNamed(name: string): KnownLanguage | undefined {
  return allLanguages().find((l) => l.name === name);
}

/** The language a dialect (or language) name belongs to. */
export function languageOfDialect(dialect: DialectName): KnownLanguage {
  const found = allLanguages().find((l) => l.dialects.some((d) => d.name === dialect));
  if (found === undefined) throw new Error(`evalrun: no language has the dialect ${dialect}`);
  return found;
}

/** How numbers meet for a candidate in `language` (values/compare.ts). */
export function equalityOf(language: LanguageDescriptor, strictTypes: boolean): Equality {
  return strictTypes ? language.equality.strictTypes : language.equality.normal;
}
