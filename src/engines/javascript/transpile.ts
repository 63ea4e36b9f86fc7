/**
 * Makes JavaScript or TypeScript runnable by a plain script engine that
 * provides `module` and `exports` (no module loader, no `require`).
 *
 * - TypeScript: types are stripped with esbuild (loader `ts`). Type errors are
 *   not failures (esbuild does not type-check); syntax errors are.
 * - ESM (a top-level static `import` or any `export`, in JS or TS) is converted
 *   to CommonJS with esbuild (`format: 'cjs'`).
 * - Plain JavaScript scripts are returned untouched, without calling esbuild.
 *
 * Never wrapped: top-level function declarations stay top-level, so a script
 * engine sees them as globals. What esbuild's CommonJS output leaves for the
 * caller (checked against esbuild 0.28):
 * - `export function f` / `export default function f` / `export const f = …`:
 *   `f` is still declared at top level, and `module.exports.f` (or
 *   `module.exports.default` for a default export) is a getter returning it.
 * - `export default <expression>` (e.g. an anonymous arrow): only
 *   `module.exports.default`; the top-level variable holding it has an
 *   esbuild-made name (`solution_default`), so do not rely on it.
 * - `export { a as b }`: `module.exports.b`; `a` stays top level.
 * - `module.exports.__esModule` is true, and esbuild prepends helper
 *   functions (`__export`, `__toCommonJS`, …) at top level;
 *   topLevelFunctionNames leaves them out.
 * - `import` statements become `require(...)` calls, which fail at run time
 *   where no `require` exists: the engine reports that as a load error.
 * - Top-level `await` cannot be expressed in CommonJS and is reported as an error.
 */
// esbuild is loaded on first use: plain JavaScript runs never pay for it.
import type { Message } from 'esbuild';
import { hasModuleSyntax, tokenizeJs } from './js-tokens.js';

export type PreparedJavaScript = { ok: true; code: string } | { ok: false; error: string };

/** Name esbuild uses in messages and in generated identifiers (`solution_default`). */
const SOURCE_NAME = 'solution';

export async function prepareJavaScript(code: string, language: 'javascript' | 'typescript'): Promise<PreparedJavaScript> {
  const isModule = hasModuleSyntax(tokenizeJs(code));
  if (language === 'javascript' && !isModule) return { ok: true, code };
  try {
    const { transform } = await import('esbuild');
    const result = await transform(code, {
      loader: language === 'typescript' ? 'ts' : 'js',
      sourcefile: `${SOURCE_NAME}.${language === 'typescript' ? 'ts' : 'js'}`,
      ...(isModule ? { format: 'cjs' as const } : {}),
      logLevel: 'silent',
    });
    return { ok: true, code: result.code };
  } catch (err) {
    return { ok: false, error: describeFailure(err) };
  }
}

/** esbuild's messages as `line L, column C: text` (both from 1), joined by `; `. */
function describeFailure(err: unknown): string {
  const errors = isTransformFailure(err) ? err.errors : [];
  if (errors.length === 0) return err instanceof Error ? err.message : String(err);
  return errors.map(formatMessage).join('; ');
}

function formatMessage(message: Message): string {
  const loc = message.location;
  return loc === null ? message.text : `line ${loc.line}, column ${loc.column + 1}: ${message.text}`;
}

function isTransformFailure(err: unknown): err is { errors: Message[] } {
  return typeof err === 'object' && err !== null && Array.isArray((err as { errors?: unknown }).errors);
}
