import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/python/engine.js';
import { loadPyodideFiles } from '../../src/python/pyodide-files.js';
import { readSnapshot, snapshotPath, writeSnapshot } from '../../src/python/snapshot-cache.js';
import { pyJob, returned } from './helpers.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-snapshot-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('snapshot cache files', () => {
  it('reads back what it wrote', () => {
    const path = join(tempDir(), 'pyodide-1-abc.snapshot');
    const payload = new Uint8Array([1, 2, 3, 4, 5]);
    writeSnapshot(path, payload);
    expect(readSnapshot(path)).toEqual(payload);
  });

  it('ignores missing, truncated and corrupt files', () => {
    const dir = tempDir();
    const path = join(dir, 'pyodide-1-abc.snapshot');
    expect(readSnapshot(path)).toBeNull();
    writeSnapshot(path, new Uint8Array(1000).fill(7));
    truncateSync(path, 500);
    expect(readSnapshot(path)).toBeNull();
    writeSnapshot(path, new Uint8Array(1000).fill(7));
    writeFileSync(path, Buffer.from('EVALRUN-PYODIDE-SNAPSHOT-1\n' + 'x'.repeat(40)));
    expect(readSnapshot(path)).toBeNull();
  });

  it('removes snapshots of other versions when writing a new one', () => {
    const dir = tempDir();
    writeSnapshot(join(dir, 'pyodide-1-old.snapshot'), new Uint8Array([1]));
    writeSnapshot(join(dir, 'pyodide-2-new.snapshot'), new Uint8Array([2]));
    expect(readdirSync(dir)).toEqual(['pyodide-2-new.snapshot']);
  });

  it('names the file after the pyodide version and the snapshot key', () => {
    const files = loadPyodideFiles();
    const path = snapshotPath('/cache', files.version, files.snapshotKey);
    expect(path).toBe(`/cache/pyodide-${files.version}-${files.snapshotKey.slice(0, 24)}.snapshot`);
  });
});

describe('first use in an empty cache folder', () => {
  it('makes the snapshot (a cold boot), caches it, and runs Python', async () => {
    const dir = tempDir();
    const started = performance.now();
    // 32 MB is below what Pyodide's runtime needs: the engine raises it to its floor.
    const engine = await PythonEngine.create({ memoryMb: 32, cacheDir: dir });
    const coldMs = performance.now() - started;
    try {
      const files = loadPyodideFiles();
      const path = snapshotPath(dir, files.version, files.snapshotKey);
      expect(existsSync(path)).toBe(true);
      expect(readSnapshot(path)).not.toBeNull();
      expect(returned(await engine.run(pyJob('def f(a, b):\n    return a * b\n', [[6, 7]])))).toEqual([42]);
      console.log(`[python] first use (cold boot, snapshot made and written, interpreter booted from it): ${coldMs.toFixed(0)} ms`);
    } finally {
      engine.dispose();
    }
  });
});
