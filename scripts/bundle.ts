/**
 * Bundles the two programs evalrun starts, the CLI and the sandbox worker,
 * as CommonJS (see NODE_CJS_BUNDLE_OPTIONS), into `dist/bundle/` (run by
 * `npm run build`, after tsc). Node loads a module graph file by file:
 * TypeBox alone is some two hundred files and yargs dozens more, which cost
 * a worker process about 150 ms and the CLI as much again before either does
 * any work. One file per program (plus the parts a worker requires only when
 * it needs them) starts several times faster. Native and very large packages
 * stay outside and load as usual.
 */
import { build, type Plugin } from 'esbuild';
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { languageNamed } from '../src/engines/find-language.js';
import { packageRoot } from '../src/package-root.js';
import { BUNDLE_DIR, WORKER_BUNDLES } from '../src/sandbox-host/worker-launch.js';
import { CLI_BUNDLE, NODE_CJS_BUNDLE_OPTIONS } from './bundle-options.js';
import { bundleReportPage } from './bundle-page.js';

const root = packageRoot();
const outdir = join(root, BUNDLE_DIR);
const compiled = (...path: string[]): string => join(root, 'dist', 'src', ...path);

/** A language's descriptor module, compiled: its folder names the language. */
const DESCRIPTOR = /[\\/]engines[\\/]([^\\/]+)[\\/]language\.js$/;

/**
 * CommonJS cannot be split into chunks, so the engine of a language that a
 * worker starts only with its first job (its descriptor is not `eager`:
 * Python) is bundled as a program of its own, `worker-<language>.cjs`, and
 * required when first imported: a worker that never runs Python does not
 * even parse it. Eager engines are part of the worker's own bundle. The
 * engines found here are bundled once the worker is.
 */
const lazyEngines = new Map<string, string>();

const lazyWorkerParts: Plugin = {
  name: 'lazy-worker-parts',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /\.js$/ }, (args) => {
      const language = DESCRIPTOR.exec(args.importer)?.[1];
      if (args.kind !== 'dynamic-import' || language === undefined || args.path === './prepare.js') return undefined;
      if (languageNamed(language)?.eager !== false) return undefined;
      const bundle = `worker-${language}.cjs`;
      lazyEngines.set(stem(bundle), join(args.resolveDir, args.path));
      return { path: `./${bundle}`, external: true };
    });
  },
};

/**
 * A language descriptor (src/engines/<language>/language.ts) is read by both
 * programs and makes two kinds of `import()`: `./prepare.js`, the code
 * preparation, and its engine. Both run only in a worker, so the CLI leaves
 * both out: each import resolves to a stub that fails loudly, should it
 * ever be called in the supervisor.
 */
function leaveOutOfDescriptors(): Plugin {
  return {
    name: 'leave-out-descriptor-parts',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /\.js$/ }, (args) => {
        if (args.kind !== 'dynamic-import' || !DESCRIPTOR.test(args.importer)) return undefined;
        return { path: relative(root, join(args.resolveDir, args.path)), namespace: 'left-out' };
      });
      pluginBuild.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`evalrun: ${args.path} is not part of this program`)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * `evalrun serve` is a program of its own, `serve.cjs`, which the CLI
 * requires only for that subcommand: the HTTP framework and the metrics
 * library would otherwise be parsed at the start of every run.
 */
const SERVE_BUNDLE = 'serve.cjs';

const serveApart: Plugin = {
  name: 'serve-apart',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\/serve\.js$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer === compiled('cli', 'main.js') ? { path: `./${SERVE_BUNDLE}`, external: true } : undefined,
    );
  },
};

rmSync(outdir, { recursive: true, force: true });
// One file: the modules behind the CLI's lazy imports are in it, but
// initialised only when imported; engines and code preparation are not (the
// supervisor never runs or prepares a candidate).
await build({
  entryPoints: { [stem(CLI_BUNDLE)]: compiled('cli', 'main.js') },
  outdir,
  ...NODE_CJS_BUNDLE_OPTIONS,
  plugins: [...NODE_CJS_BUNDLE_OPTIONS.plugins, leaveOutOfDescriptors(), serveApart],
  sourcemap: true,
});
await build({
  entryPoints: { [stem(SERVE_BUNDLE)]: compiled('cli', 'serve.js') },
  outdir,
  ...NODE_CJS_BUNDLE_OPTIONS,
  plugins: [...NODE_CJS_BUNDLE_OPTIONS.plugins, leaveOutOfDescriptors()],
  sourcemap: true,
});
const workerPlugins = [...NODE_CJS_BUNDLE_OPTIONS.plugins, lazyWorkerParts];
await build({
  entryPoints: { [stem(WORKER_BUNDLES.main)]: compiled('workers', 'worker-process.js') },
  outdir,
  ...NODE_CJS_BUNDLE_OPTIONS,
  plugins: workerPlugins,
  sourcemap: true,
});
if (lazyEngines.size > 0) {
  await build({ entryPoints: Object.fromEntries(lazyEngines), outdir, ...NODE_CJS_BUNDLE_OPTIONS, plugins: workerPlugins, sourcemap: true });
}
await bundleReportPage(root);
console.log(`wrote ${outdir}`);

function stem(file: string): string {
  return file.replace(/\.cjs$/, '');
}
