/**
 * Writes the code cache of the CLI's bundle (src/code-cache.ts), the last
 * step of `npm run build`. V8 caches the bytecode of the functions it has
 * compiled, so the cache is made after a representative run: a self-check
 * of the problem set evalrun ships, through bin/evalrun.js, which writes
 * the cache as it exits. Without a cache evalrun still works, compiling from
 * source, so a failure here is reported and the build goes on.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeCacheFile, WRITE_CODE_CACHE_ENV } from '../src/code-cache.js';
import { packageRoot } from '../src/package-root.js';
import { BUNDLE_DIR } from '../src/sandbox-host/worker-launch.js';

const root = packageRoot();
const cache = codeCacheFile(join(root, BUNDLE_DIR, 'cli.cjs'));
const scratch = mkdtempSync(join(tmpdir(), 'evalrun-code-cache-'));
try {
  rmSync(cache, { force: true });
  const run = spawnSync(
    process.execPath,
    [join(root, 'bin', 'evalrun.js'), '--problems', join(root, 'problems'), '--out', join(scratch, 'scorecard.json')],
    { cwd: scratch, env: { ...process.env, [WRITE_CODE_CACHE_ENV]: '1' }, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (run.status === 0 && existsSync(cache)) {
    console.log(`wrote ${cache}`);
  } else {
    rmSync(cache, { force: true });
    const why = run.error?.message ?? (run.stderr.trim().split('\n').pop() || `exit code ${String(run.status)}`);
    console.warn(`evalrun build: no code cache written (the CLI will compile from source at each start): ${why}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
