/**
 * Writes the code cache of the CLI's bundle (src/code-cache.ts), the last
 * step of `npm run build`. V8 caches the bytecode of the functions it has
 * compiled, so the cache is made after a representative run: a self-check
 * of the problem set evalrun ships, through bin/evalrun.js, which writes
 * the cache as it exits. Without a cache evalrun still works, compiling from
 * source, so a failure here is reported and the build goes on.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { codeCacheFile } from '../src/code-cache.js';
import { packageRoot } from '../src/package-root.js';
import { BUNDLE_DIR } from '../src/sandbox-host/worker-launch.js';
import { CLI_BUNDLE } from './bundle-options.js';
import { runToWriteCodeCache } from './code-cache-run.js';

const root = packageRoot();
const cache = codeCacheFile(join(root, BUNDLE_DIR, CLI_BUNDLE));
rmSync(cache, { force: true });
const run = runToWriteCodeCache([join(root, 'bin', 'evalrun.js')], process.env);
if (run.status === 0 && existsSync(cache)) {
  console.log(`wrote ${cache}`);
} else {
  rmSync(cache, { force: true });
  const why = run.error?.message ?? (run.stderr.trim().split('\n').pop() || `exit code ${String(run.status)}`);
  console.warn(`evalrun build: no code cache written (the CLI will compile from source at each start): ${why}`);
}
