/**
 * Bundles the two programs evalrun starts, the CLI and the sandbox worker,
 * into `dist/bundle/` (run by `npm run build`, after tsc). Node loads an ES
 * module graph file by file: TypeBox alone is some two hundred files and
 * yargs dozens more, which cost a worker process about 150 ms and the CLI
 * as much again before either does any work. One file per program (plus
 * the chunks that stay behind the CLI's lazy imports) starts several times
 * faster. Native and very large packages stay outside and load as usual.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { BUNDLE_DIR } from '../src/sandbox-host/worker-launch.js';
import { NODE_BUNDLE_OPTIONS } from './bundle-options.js';

const root = packageRoot();
const outdir = join(root, BUNDLE_DIR);
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    cli: join(root, 'dist', 'src', 'cli', 'main.js'),
    worker: join(root, 'dist', 'src', 'sandbox-host', 'worker-process.js'),
  },
  outdir,
  // Code splitting keeps --version and --help from loading what a run needs.
  splitting: true,
  ...NODE_BUNDLE_OPTIONS,
  sourcemap: true,
});
console.log(`wrote ${outdir}`);
