import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';

const OWN_LOOKUP = Symbol('one-string-width lookup');

/**
 * yargs 18 depends on a newer string-width than its own cliui and wrap-ansi
 * do, and that copy builds an Intl.Segmenter and a regular expression over
 * every emoji sequence as soon as it is imported: about 25 ms of the CLI's
 * start-up, spent only to measure help text. Every ES import of
 * string-width in the bundle resolves to the one copy cliui uses instead: the same API,
 * and the same widths for evalrun's text, which is plain ASCII. When the
 * packages are laid out otherwise and that copy cannot be found, imports
 * resolve as usual.
 */
const oneStringWidth: Plugin = {
  name: 'one-string-width',
  setup(build) {
    let shared: Promise<string | null> | null = null;
    const find = async (): Promise<string | null> => {
      const lookup = (name: string, resolveDir: string) => build.resolve(name, { kind: 'import-statement', resolveDir, pluginData: OWN_LOOKUP });
      const yargs = await lookup('yargs', process.cwd());
      if (yargs.errors.length > 0) return null;
      const cliui = await lookup('cliui', dirname(yargs.path));
      if (cliui.errors.length > 0) return null;
      const stringWidth = await lookup('string-width', dirname(cliui.path));
      return stringWidth.errors.length > 0 ? null : stringWidth.path;
    };
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      // Only ES imports: cli-table3 require()s the CommonJS string-width 4, a different API.
      if (args.pluginData === OWN_LOOKUP || args.kind !== 'import-statement') return undefined;
      shared ??= find();
      const path = await shared;
      return path === null ? undefined : { path };
    });
  },
};

/**
 * That one string-width (7.x) also makes an `Intl.Segmenter` when it is
 * imported, and loading ICU's break rules for it takes some 18 ms: a fifth
 * of the CLI's start-up, spent on every run although a run never measures
 * text with it (only help and error output does). The segmenter is made on
 * first use instead. A version written otherwise is bundled as it is.
 */
const lazySegmenter: Plugin = {
  name: 'lazy-segmenter',
  setup(build) {
    const eager = 'const segmenter = new Intl.Segmenter();';
    build.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(eager)) return undefined;
      const contents = source.replace(eager, 'let segmenter;').replaceAll('segmenter.segment(', '(segmenter ??= new Intl.Segmenter()).segment(');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * How a program is bundled for Node as one ES module per entry point, with
 * the native and very large packages left outside to load as usual. The
 * benchmark bundles its peer this way; evalrun's own programs and the
 * benchmark's floor use the CommonJS variant below, so that no contender
 * pays for loading a module graph file by file.
 */
export const NODE_BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['isolated-vm', 'esbuild', 'pyodide'],
  // Some bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __evalrunRequire } from 'node:module'; const require = __evalrunRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [oneStringWidth, lazySegmenter],
} as const satisfies BuildOptions;

/** The CLI's bundle in BUNDLE_DIR, which bin/evalrun.js loads. */
export const CLI_BUNDLE = 'cli.cjs';

/**
 * The same for a program bundled as CommonJS: the CLI and the sandbox
 * worker. A worker starts without Node's snapshot, so every built-in module it loads is
 * compiled at its start, and an ES module entry costs it more than a
 * CommonJS one: Node's ES module loader itself, and, for each
 * `import ... from 'node:fs'`, every export of fs, which loads the stream
 * modules and fs/promises. Together about 20 ms of every worker's start
 * (measured). `import.meta.url` has no CommonJS equivalent, so it is
 * defined from `__filename`.
 */
export const NODE_CJS_BUNDLE_OPTIONS = {
  ...NODE_BUNDLE_OPTIONS,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // import() of a lazily loaded part becomes require(), so that loading it never starts the ES module loader.
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__evalrunModuleUrl' },
  banner: { js: "const __evalrunModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
} as const satisfies BuildOptions;
