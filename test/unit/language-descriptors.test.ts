/**
 * The list of languages (src/engines/languages.ts) and what each descriptor
 * promises the code that reads it: a language is its folder, named for it;
 * its first dialect is the language itself; no name, alias or extension
 * means two things; and only cheap engines start before a job asks.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allLanguages, equalityOf, languageNamed, languageNames, languageOfDialect } from '../../src/engines/find-language.js';

const ENGINES = join(import.meta.dirname, '..', '..', 'src', 'engines');

describe('the language descriptors', () => {
  it('are JavaScript and Python, each the language.ts of the folder named for it', () => {
    expect(languageNames()).toEqual(['javascript', 'python']);
    for (const language of allLanguages()) {
      expect(existsSync(join(ENGINES, language.name, 'language.ts'))).toBe(true);
      expect(language.dialects[0].name).toBe(language.name);
      expect(languageNamed(language.name)).toBe(language);
    }
    expect(languageNamed('ruby')).toBeUndefined();
  });

  it('give every name, alias and extension one meaning', () => {
    const names = allLanguages().flatMap((l) => l.dialects.flatMap((d) => [d.name, ...d.aliases]));
    const extensions = allLanguages().flatMap((l) => l.dialects.flatMap((d) => d.extensions));
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(extensions).size).toBe(extensions.length);
    expect(languageOfDialect('typescript').name).toBe('javascript');
  });

  it('name the rules of the old per-language code: wire forms, equality, packages, eagerness', () => {
    const [javascript, python] = [languageNamed('javascript')!, languageNamed('python')!];
    expect(javascript.wire).toEqual({ args: 'javascript', results: 'javascript-result' });
    expect(python.wire).toEqual({ args: 'python', results: 'python' });
    expect([equalityOf(javascript, false), equalityOf(javascript, true)]).toEqual(['javascript', 'javascript']);
    expect([equalityOf(python, false), equalityOf(python, true)]).toEqual(['python', 'strict']);
    expect([javascript.usesPackages, python.usesPackages]).toEqual([false, true]);
    expect([javascript.eager, python.eager]).toEqual([true, false]);
    expect('prepare' in python && python.prepare !== undefined).toBe(false);
  });
});
