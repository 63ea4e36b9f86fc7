import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

let prelude: string | null = null;

/**
 * Joins an in-isolate script with the prelude every language's in-isolate
 * code shares (sandbox/prelude.js: the frame writer, the seeded generator).
 * `source` is a function expression, `(function (prelude, ...parts) { ... })`;
 * the result is one script that calls it with the prelude's object and then
 * `parts`, each a function expression passed as it is (for `source` to
 * call), so that everything is evaluated in the same context, before any
 * candidate code, and the script's completion value is the function's.
 */
export function withPrelude(source: string, ...parts: string[]): string {
  prelude ??= readFileSync(join(packageRoot(), 'sandbox', 'prelude.js'), 'utf8');
  const args = [prelude, ...parts].map((text) => `${expression(text)}\n`).join(', ');
  return `(${expression(source)}\n)(${args});\n`;
}

/** A file holding one expression, without the statement's semicolon a formatter ends it with. */
function expression(text: string): string {
  const trimmed = text.trim();
  return trimmed.endsWith(';') ? trimmed.slice(0, -1) : trimmed;
}
