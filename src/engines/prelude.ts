import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

let prelude: string | null = null;

/**
 * Joins an in-isolate script with the prelude every language's in-isolate
 * code shares (sandbox/prelude.js: the frame writer, the seeded generator).
 * `source` is a function expression, `(function (prelude) { ... })`; the
 * result is one script that calls it with the prelude's object, so that
 * the prelude is evaluated in the same context, before any candidate code,
 * and the script's completion value is the function's.
 */
export function withPrelude(source: string): string {
  prelude ??= readFileSync(join(packageRoot(), 'sandbox', 'prelude.js'), 'utf8');
  return `(${source.trim()}\n)(${prelude.trim()}\n);\n`;
}
