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
import { packageRoot } from '../src/package-root.js';
import { BUNDLE_DIR, WORKER_BUNDLES } from '../src/sandbox-host/worker-launch.js';
import { CLI_BUNDLE, NODE_CJS_BUNDLE_OPTIONS } from './bundle-options.js';

const root = packageRoot();
const outdir = join(root, BUNDLE_DIR);
const compiled = (...path: string[]): string => join(root, 'dist', 'src', ...path);

/**
 * CommonJS cannot be split into chunks, so the part of the worker that it
 * imports only when it needs it (the Python engine) is bundled as a program
 * of its own and required when first imported: a worker that never runs
 * Python does not even parse it.
 */
const LAZY_WORKER_PARTS: Record<string, string> = {
  [compiled('engines', 'python', 'bridge.js')]: WORKER_BUNDLES.python,
};

const lazyWorkerParts: Plugin = {
  name: 'lazy-worker-parts',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /\.js$/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const bundle = LAZY_WORKER_PARTS[join(args.resolveDir, args.path)];
      return bundle === undefined ? undefined : { path: `./${bundle}`, external: true };
    });
  },
};

/**
 * A language descriptor (src/engines/<language>/language.ts) is read by both
 * programs and makes two kinds of `import()`: `./prepare.js`, the code
 * preparation only the supervisor runs, and its engine, which only a worker
 * runs. Each program leaves the other's part out: the import resolves to a
 * stub that fails loudly, should it ever be called in the wrong process.
 */
function leaveOutOfDescriptors(part: 'prepare' | 'engine'): Plugin {
  const descriptor = /[\\/]engines[\\/][^\\/]+[\\/]language\.js$/;
  return {
    name: `leave-out-descriptor-${part}`,
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /\.js$/ }, (args) => {
        if (args.kind !== 'dynamic-import' || !descriptor.test(args.importer)) return undefined;
        const isPrepare = args.path === './prepare.js';
        if (isPrepare !== (part === 'prepare')) return undefined;
        return { path: relative(root, join(args.resolveDir, args.path)), namespace: 'left-out' };
      });
      pluginBuild.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`evalrun: ${args.path} is not part of this program`)});`,
        loader: 'js',
      }));
    },
  };
}

rmSync(outdir, { recursive: true, force: true });
// One file: the modules behind the CLI's lazy imports are in it, but
// initialised only when imported; engines are not (the supervisor never runs one).
await build({
  entryPoints: { [stem(CLI_BUNDLE)]: compiled('cli', 'main.js') },
  outdir,
  ...NODE_CJS_BUNDLE_OPTIONS,
  plugins: [...NODE_CJS_BUNDLE_OPTIONS.plugins, leaveOutOfDescriptors('engine')],
  sourcemap: true,
});
await build({
  entryPoints: {
    [stem(WORKER_BUNDLES.main)]: compiled('sandbox-host', 'worker-process.js'),
    [stem(WORKER_BUNDLES.python)]: compiled('engines', 'python', 'bridge.js'),
  },
  outdir,
  ...NODE_CJS_BUNDLE_OPTIONS,
  plugins: [...NODE_CJS_BUNDLE_OPTIONS.plugins, lazyWorkerParts, leaveOutOfDescriptors('prepare')],
  sourcemap: true,
});
console.log(`wrote ${outdir}`);

function stem(file: string): string {
  return file.replace(/\.cjs$/, '');
}
