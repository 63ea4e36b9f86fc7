/**
 * JavaScript's `prepare` (language.ts imports this module when the first
 * JavaScript or TypeScript candidate is graded, in the supervisor only):
 * TypeScript loses its types and ES modules become CommonJS (transpile.ts:
 * the harness is a plain script engine), and the functions the code defines
 * at top level feed the entry-point rule "else the last top-level function"
 * (top-level-names.ts).
 */
import type { PreparedCode } from '../descriptor.js';
import { topLevelFunctionNames } from './top-level-names.js';
import { prepareJavaScript } from './transpile.js';

export async function prepareCode(code: string, dialect: 'javascript' | 'typescript'): Promise<PreparedCode> {
  const prepared = await prepareJavaScript(code, dialect);
  if (!prepared.ok) return prepared;
  return { ok: true, code: prepared.code, topLevelNames: topLevelFunctionNames(prepared.code) };
}
