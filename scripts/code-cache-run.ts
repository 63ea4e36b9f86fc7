import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WRITE_CODE_CACHE_ENV } from '../src/code-cache.js';
import { packageRoot } from '../src/package-root.js';

/**
 * The run that writes a bundle's code cache (src/code-cache.ts): `node
 * ...program` self-checking the problem set evalrun ships, in a scratch
 * folder, with WRITE_CODE_CACHE_ENV set, so that the bundle writes its cache
 * as it exits. Used by the build for the CLI (write-code-cache.ts) and by the
 * bench for its floor, so that both caches come from the same work.
 */
export function runToWriteCodeCache(program: readonly string[], env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'evalrun-code-cache-'));
  try {
    return spawnSync(process.execPath, [...program, '--problems', join(packageRoot(), 'problems'), '--out', join(scratch, 'scorecard.json')], {
      cwd: scratch,
      env: { ...env, [WRITE_CODE_CACHE_ENV]: '1' },
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
