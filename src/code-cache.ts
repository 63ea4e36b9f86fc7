import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/**
 * Set to "1" (by the build) to write each bundle's code cache when the
 * process exits, after a representative run has compiled what a run uses.
 */
export const WRITE_CODE_CACHE_ENV = 'EVALRUN_WRITE_CODE_CACHE';

/** Where the code cache of `file` is kept: beside it, written by the build. */
export function codeCacheFile(file: string): string {
  return `${file}.v8cache`;
}

/** How a bundle was compiled: from its code cache, or from source (no usable cache, or one V8 would not take). */
export type CacheUse = 'used' | 'rejected' | 'none';

export interface LoadedBundle {
  exports: unknown;
  cache: CacheUse;
}

/**
 * Loads a CommonJS bundle the way `require` would, but compiles it with V8's
 * code cache when there is one. Node 20 keeps no compile cache of its own,
 * so the CLI otherwise parses and compiles some 900 KB of JavaScript at
 * every start, and compiles each function again the first time it runs:
 * about 30 ms of CPU on the path every run waits for (measured). The cache
 * holds the bytecode of every function the build's run compiled.
 *
 * V8 checks a cache against its own version and flags and the source's
 * length, and rejects one that does not match: the bundle is then compiled
 * from source, as it would be without a cache. Since V8 compares only the
 * length of the source, a cache older than its bundle is not offered at all:
 * an edited bundle must never run the bytecode of the code it replaced. A
 * cache is only ever written at build time (WRITE_CODE_CACHE_ENV), never by
 * a user's run.
 */
export function loadBundle(file: string): LoadedBundle {
  const source = readFileSync(file, 'utf8');
  const cacheFile = codeCacheFile(file);
  let cachedData: Buffer | undefined;
  try {
    if (statSync(cacheFile).mtimeMs >= statSync(file).mtimeMs) cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  const cache: CacheUse = cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'used';
  if (process.env[WRITE_CODE_CACHE_ENV] === '1') {
    process.once('exit', () => writeFileSync(cacheFile, script.createCachedData()));
  }
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} as unknown };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, cache };
}
