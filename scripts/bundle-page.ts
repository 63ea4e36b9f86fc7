/**
 * Bundles the HTML report's script (src/report/page/, a TypeScript program
 * for the browser) into the one file the HTML reporter inlines into every
 * page (PAGE_SCRIPT_FILE). esbuild does not type-check: the build checks the
 * folder first with its own tsconfig (`tsc -p src/report/page`).
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { PAGE_SCRIPT_FILE } from '../src/report/html-page.js';

export async function bundleReportPage(root: string): Promise<void> {
  await build({
    entryPoints: [join(root, 'src', 'report', 'page', 'main.ts')],
    outfile: join(root, PAGE_SCRIPT_FILE),
    bundle: true,
    // One function scope: nothing the script declares becomes a global of the page.
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    // Non-ASCII characters as escapes, and `</script` in strings as `<\/script`: the file is inlined into the page as it is.
    charset: 'ascii',
    legalComments: 'none',
    logLevel: 'warning',
  });
}
