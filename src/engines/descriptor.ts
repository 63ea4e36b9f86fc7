/**
 * What a language tells the rest of evalrun: its language descriptor, the
 * module `language.ts` of its folder src/engines/<language>/ (see
 * docs/ENGINES.md, "Adding a language"). Everything outside the folder
 * reads the language through it: the supervisor to recognise solutions,
 * prepare their code and write the job's values (solutions/, grading/), the
 * worker to start the engine (registry.ts). The list of descriptors is
 * languages.ts.
 *
 * A descriptor is read in the supervisor, which never runs candidates: it
 * imports nothing heavy, and its engine only lazily (`loadEngine`), so that
 * the engine's code (isolated-vm, Pyodide) loads in a sandbox worker only,
 * and there only when a job in the language arrives.
 */
import type { Equality } from '../values/compare.js';
import type { WireForm } from '../values/wire.js';
import type { Engine } from './engine.js';

/** A trait of code in a language, for code whose language no file, field or fence names. */
export interface Signal {
  readonly pattern: RegExp;
  readonly weight: number;
}

/**
 * A way of writing a language's code, as evalrun recognises and reports it
 * (`language` in the results): the language itself, or a dialect that its
 * `prepare` turns into the language (TypeScript for JavaScript).
 */
export interface Dialect<Name extends string = string> {
  readonly name: Name;
  /** Other names for it in a `language` field or on a Markdown fence (matched lower-cased; the name itself always counts). */
  readonly aliases: readonly string[];
  /** Extensions of source files in it, lower-case with the dot (`.py`). */
  readonly extensions: readonly string[];
  /**
   * Only for a dialect after the first: undeclared code detected as the
   * language is in this dialect when one of these matches it (the first
   * dialect whose signal matches wins; none: the first dialect).
   */
  readonly signals?: readonly RegExp[];
}

/** The code as its engine runs it, or why it cannot run (reported as a load error). */
export type PreparedCode = { ok: true; code: string; topLevelNames: string[] } | { ok: false; error: string };

export interface LanguageDescriptor<Name extends string = string, DialectName extends string = string> {
  /** The language's name: `job.language`, and the folder's name. */
  readonly name: Name;
  /** How its code is written; the first is the language itself and has its name. */
  readonly dialects: readonly [Dialect<DialectName>, ...Array<Dialect<DialectName>>];
  /**
   * Weighted traits of its code. Code that names no language is the
   * language with the highest score; on a tie, the earlier in LANGUAGES (so
   * code without any trait is the first language's).
   */
  readonly signals: readonly Signal[];
  /**
   * Turns code in one of its dialects into what the engine runs, in the
   * supervisor (`topLevelNames`: the functions the code defines at top level,
   * in order, for the entry-point rules; may be empty). Absent: the code runs
   * as written.
   */
  prepare?(code: string, dialect: DialectName): Promise<PreparedCode>;
  /**
   * How values are written for its harness (values/wire.ts): `args`, each
   * test's arguments (encoded as a tuple of the parameter types); `results`,
   * the expected values (with the return type), in the form the harness
   * writes a returned value, so that returning exactly the expected value
   * passes on its text alone.
   */
  readonly wire: { readonly args: WireForm; readonly results: WireForm };
  /** How numbers meet when results are judged (values/compare.ts), without and with `--strict-types`. */
  readonly equality: { readonly normal: Equality; readonly strictTypes: Equality };
  /** Whether its candidates get the `--python-packages` folders (`job.pythonPackages`). */
  readonly usesPackages: boolean;
  /** Whether a worker starts its engine before the first job asks (cheap engines); otherwise with its first job. */
  readonly eager: boolean;
  /** Imports the engine module, only ever in a sandbox worker. It must be an `import()` of the folder's engine module. */
  loadEngine(): Promise<{ createEngine(): Engine }>;
}

/**
 * A descriptor as written, its names kept as literal types (so that
 * `Language` in languages.ts is a union of names, not `string`).
 */
export function defineLanguage<const Name extends string, const DialectName extends string>(
  descriptor: LanguageDescriptor<Name, DialectName>,
): LanguageDescriptor<Name, DialectName> {
  return descriptor;
}
