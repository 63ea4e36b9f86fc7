/**
 * Loading a CommonJS bundle through V8's code cache (src/code-cache.ts):
 * the bundle behaves as if required, a cache is written only when asked,
 * V8 takes a cache made for the same source, and a bad cache costs only
 * the compile it would have saved.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheFile, loadBundle, WRITE_CODE_CACHE_ENV } from '../../src/code-cache.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT_LOADER = join(ROOT, 'dist', 'src', 'code-cache.js');

const BUNDLE_SOURCE = `
'use strict';
const { basename } = require('node:path');
function square(n) { return n * n; }
module.exports = { square, file: basename(__filename), dir: __dirname, self: this === exports };
`;

function bundle(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-code-cache-'));
  const file = join(dir, 'bundle.cjs');
  writeFileSync(file, BUNDLE_SOURCE);
  return { dir, file };
}

/** Loads `file` in a fresh Node process and reports how it was compiled. */
function loadInChild(file: string, env: NodeJS.ProcessEnv = {}): { cache: string; square: number } {
  const script = `
    const { loadBundle } = await import(${JSON.stringify(BUILT_LOADER)});
    const { exports, cache } = loadBundle(${JSON.stringify(file)});
    process.stdout.write(JSON.stringify({ cache, square: exports.square(7) }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (run.status !== 0) throw new Error(`child failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { cache: string; square: number };
}

describe('loadBundle', () => {
  it('gives a bundle what require would: module, exports, require, __filename and __dirname', () => {
    const { dir, file } = bundle();
    const { exports, cache } = loadBundle(file);
    expect(cache).toBe('none');
    const loaded = exports as { square: (n: number) => number; file: string; dir: string; self: boolean };
    expect(loaded.square(12)).toBe(144);
    expect(loaded.file).toBe('bundle.cjs');
    expect(loaded.dir).toBe(dir);
    expect(loaded.self).toBe(true);
    expect(existsSync(codeCacheFile(file))).toBe(false);
  });

  it('writes the cache only when asked, at exit, and V8 then takes it', () => {
    const { file } = bundle();
    expect(loadInChild(file)).toEqual({ cache: 'none', square: 49 });
    expect(existsSync(codeCacheFile(file))).toBe(false);

    expect(loadInChild(file, { [WRITE_CODE_CACHE_ENV]: '1' })).toEqual({ cache: 'none', square: 49 });
    expect(readFileSync(codeCacheFile(file)).length).toBeGreaterThan(0);
    expect(loadInChild(file)).toEqual({ cache: 'used', square: 49 });
  });

  it('compiles from source when the cache is damaged or made for other code', () => {
    const { file } = bundle();
    writeFileSync(codeCacheFile(file), Buffer.from('not a code cache at all'));
    expect(loadInChild(file)).toEqual({ cache: 'rejected', square: 49 });

    loadInChild(file, { [WRITE_CODE_CACHE_ENV]: '1' });
    writeFileSync(file, BUNDLE_SOURCE.replace('n * n', 'n * n + 0'));
    // As if the cache had been written after the edit: it is offered, and V8 turns it down.
    const later = Date.now() / 1000 + 10;
    utimesSync(codeCacheFile(file), later, later);
    expect(loadInChild(file)).toEqual({ cache: 'rejected', square: 49 });
  });

  it('never offers V8 a cache older than its bundle, which V8 would take if the length matched', () => {
    const { file } = bundle();
    loadInChild(file, { [WRITE_CODE_CACHE_ENV]: '1' });
    expect(loadInChild(file)).toEqual({ cache: 'used', square: 49 });
    // The same length, other code: V8 checks only the length.
    writeFileSync(file, BUNDLE_SOURCE.replace('n * n', 'n + n'));
    const later = Date.now() / 1000 + 10;
    utimesSync(file, later, later);
    expect(loadInChild(file)).toEqual({ cache: 'none', square: 14 });
  });

  it('the build wrote a cache for the CLI that V8 takes', () => {
    const cli = join(ROOT, 'dist', 'bundle', 'cli.cjs');
    const script = `
      const { loadBundle } = await import(${JSON.stringify(BUILT_LOADER)});
      const { exports, cache } = loadBundle(${JSON.stringify(cli)});
      process.stdout.write(JSON.stringify({ cache, main: typeof exports.main }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ cache: 'used', main: 'function' });
  });
});
