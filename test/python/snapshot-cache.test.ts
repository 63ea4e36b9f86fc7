import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { loadPyodideFiles } from '../../src/engines/python/pyodide-files.js';
import { readOrMakeSnapshot, readSnapshot, snapshotPath, writeSnapshot } from '../../src/engines/python/snapshot-cache.js';
import { pyJob, returned } from './helpers.js';
import { py } from '../python-source.js';

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
    // 32 MB is below what Pyodide's runtime needs: the engine raises it to its floor.
    const engine = await PythonEngine.create({ memoryMb: 32, cacheDir: dir });
    try {
      const files = loadPyodideFiles();
      const path = snapshotPath(dir, files.version, files.snapshotKey);
      expect(existsSync(path)).toBe(true);
      expect(readSnapshot(path)).not.toBeNull();
      expect(
        returned(
          await engine.run(
            pyJob(
              py`
        def f(a, b):
            return a * b
      `,
              [[6, 7]],
            ),
          ),
        ),
      ).toEqual([42]);
    } finally {
      engine.dispose();
    }
  });
});

/** Runs `script` (ES module text) in a new Node process, as a sandbox worker would be started. */
function nodeProcess(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const DIST = join(import.meta.dirname, '..', '..', 'dist', 'src');

describe('several processes and one cache folder', () => {
  it('processes starting together make the snapshot once and all run Python', async () => {
    const dir = tempDir();
    const script = `
      import { PythonEngine, startPython } from ${JSON.stringify(join(DIST, 'engines', 'python', 'engine.js'))};
      const start = await startPython({ memoryMb: 128, cacheDir: ${JSON.stringify(dir)} });
      const engine = new PythonEngine(start);
      const job = { language: 'python', code: 'def f(a, b):\\n    return a * b\\n', functionName: 'f', arity: 2,
        tests: ['[6, 7]'], limits: { memoryMb: 128, timeoutMs: 5000, seed: 1 } };
      const out = await engine.run(job);
      console.log(JSON.stringify({ origin: start.snapshotOrigin, out }));
      engine.dispose();
    `;
    const runs = await Promise.all([nodeProcess(script), nodeProcess(script), nodeProcess(script)]);
    const reports = runs.map((r) => {
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { origin: string; out: { kind: string; tests: Array<{ json: string }> } };
    });
    for (const report of reports) expect(report.out.tests[0]!.json).toBe('42');
    const origins = reports.map((r) => r.origin).sort();
    expect(origins.filter((o) => o === 'made')).toHaveLength(1);
    expect(origins.every((o) => o === 'made' || o === 'waited' || o === 'disk')).toBe(true);
    const files = loadPyodideFiles();
    // No lock or half-written file is left behind.
    expect(readdirSync(dir)).toEqual([snapshotPath(dir, files.version, files.snapshotKey).slice(dir.length + 1)]);
  }, 120_000);

  it('a lock left by a process that died does not block the next one', async () => {
    const dir = tempDir();
    const files = loadPyodideFiles();
    const path = snapshotPath(dir, files.version, files.snapshotKey);
    const dead = await nodeProcess('console.log(process.pid)');
    writeFileSync(`${path}.lock`, `${dead.stdout.trim()} ${hostname()}\n`);
    const made = await readOrMakeSnapshot(path, () => Promise.resolve(new Uint8Array([9, 9, 9])), { waitMs: 30_000, pollMs: 20 });
    expect(made).toEqual({ bytes: new Uint8Array([9, 9, 9]), origin: 'made' });
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(readSnapshot(path)).toEqual(new Uint8Array([9, 9, 9]));
  });

  it('a process waiting on a live lock takes the snapshot its holder writes', async () => {
    const dir = tempDir();
    const path = join(dir, 'pyodide-1-live.snapshot');
    writeFileSync(`${path}.lock`, `${process.pid} ${hostname()}\n`);
    const waiting = readOrMakeSnapshot(path, () => Promise.resolve(new Uint8Array([1])), { waitMs: 30_000, pollMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeSnapshot(path, new Uint8Array([2, 2]));
    rmSync(`${path}.lock`);
    expect(await waiting).toEqual({ bytes: new Uint8Array([2, 2]), origin: 'waited' });
  });

  it('readers never see a half-written snapshot while two processes rewrite it', async () => {
    const dir = tempDir();
    const path = join(dir, 'pyodide-1-race.snapshot');
    const writer = (fill: number): string => `
      import { writeSnapshot } from ${JSON.stringify(join(DIST, 'engines', 'python', 'snapshot-cache.js'))};
      const payload = new Uint8Array(8 * 1024 * 1024).fill(${fill});
      for (let i = 0; i < 25; i++) writeSnapshot(${JSON.stringify(path)}, payload);
    `;
    const writers = Promise.all([nodeProcess(writer(1)), nodeProcess(writer(2))]);
    let settled = false;
    void writers.then(() => (settled = true));
    let seen = 0;
    while (!settled) {
      const bytes = readSnapshot(path);
      if (bytes !== null) {
        seen++;
        expect(bytes.length).toBe(8 * 1024 * 1024);
        expect(bytes[0] === 1 || bytes[0] === 2).toBe(true);
        expect(bytes.every((b) => b === bytes[0])).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const r of await writers) expect(r.code, r.stderr).toBe(0);
    expect(seen).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['pyodide-1-race.snapshot']);
  }, 60_000);
});
