/**
 * Runs a CommonJS bundle the way bin/evalrun.js runs the CLI: compiled
 * through its code cache (src/code-cache.ts), so that the benchmark's floor
 * starts as evalrun does.
 *
 *   node dist/bench/run-bundle.js BUNDLE [ARGS...]
 *
 * The bundle sees `process.argv` as if it had been run directly.
 */
import { resolve } from 'node:path';
import { loadBundle } from '../src/code-cache.js';

const bundle = process.argv[2];
if (bundle === undefined) {
  process.stderr.write('usage: run-bundle BUNDLE [ARGS...]\n');
  process.exit(2);
}
process.argv.splice(1, 2, resolve(bundle));
loadBundle(resolve(bundle));
