import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadPyodideFiles, type PyodideFiles } from '../pyodide-files.js';
import { meterModule } from './meter.js';
import type { MeterMode } from './plan.js';
import { tracemallocHooks } from './tracemalloc.js';
import { markWrites } from './write-marks.js';

/**
 * Pyodide's files with its WebAssembly metered (meter.ts) and its writes
 * marked (write-marks.ts). The rewritten bytes are made once per machine and cached next to the memory snapshots;
 * the compiled module once per process and mode.
 *
 * The memory snapshot is shared with the unmetered interpreter (the same
 * `snapshotKey`): both rewrites add a global outside the linear memory and
 * code, and change no data segment, memory size or table index, so both
 * builds boot to the same memory (docs/METERING.md says how that was checked).
 */

/** Bumped whenever the rewriters (meter.ts, plan.ts, emit.ts, write-marks.ts) change what it writes, so old cached modules are not used. */
const METER_VERSION = 4;

/**
 * Functions of Pyodide left unmetered. `sbrk` asks JavaScript to grow the
 * memory only when the memory is smaller than the new break; a restore
 * puts the break back but cannot shrink the memory, so the same call
 * takes a few instructions more in a fresh interpreter than in one an
 * earlier candidate grew (measured: 776406120 against 776406111).
 */
const PYODIDE_UNMETERED = ['sbrk', '_sbrk64'];

/**
 * The Pyodide whose imports' writes sandbox/python/boot-lib/write-policy.ts
 * was checked against. Another version gets no write marks: its restores
 * copy the whole memory, slower and as exact.
 */
const WRITE_POLICY_PYODIDE = '314.0.7';

export interface MeteredPyodide {
  files: PyodideFiles;
  mode: MeterMode;
  /** Where the metered bytes came from. */
  origin: 'cache' | 'made';
  /** Time spent metering (0 when read from the cache), in ms. */
  meterMs: number;
  bytes: number;
}

const loaded = new Map<MeterMode, MeteredPyodide>();

export function loadMeteredPyodideFiles(mode: MeterMode, cacheDir: string): MeteredPyodide {
  const known = loaded.get(mode);
  if (known !== undefined) return known;
  const files = loadPyodideFiles();
  const require = createRequire(import.meta.url);
  const source = readFileSync(join(dirname(require.resolve('pyodide/package.json')), 'pyodide.asm.wasm'));
  const hooks = tracemallocHooks(createHash('sha256').update(source).digest('hex'));
  const key = createHash('sha256')
    .update(`meter ${METER_VERSION} ${mode} ${PYODIDE_UNMETERED.join(',')} ${files.version === WRITE_POLICY_PYODIDE ? 'marked' : 'unmarked'}\n`)
    .update(source)
    .digest('hex')
    .slice(0, 24);
  const path = join(cacheDir, `metered-pyodide-${files.version}-${key}.wasm`);
  let bytes = readCached(path);
  let origin: MeteredPyodide['origin'] = 'cache';
  let meterMs = 0;
  if (bytes === null) {
    const start = performance.now();
    const metered = meterModule(new Uint8Array(source), { mode, exclude: PYODIDE_UNMETERED, quiet: hooks.quiet, silent: hooks.silent }).bytes;
    // Marked after metering, so that the marks are not counted.
    bytes = files.version === WRITE_POLICY_PYODIDE ? markWrites(metered).bytes : metered;
    meterMs = performance.now() - start;
    origin = 'made';
    writeCached(path, bytes);
  }
  const wasm = (globalThis as unknown as { WebAssembly: { Module: new (source: Uint8Array) => object } }).WebAssembly;
  const result: MeteredPyodide = { files: { ...files, wasmModule: new wasm.Module(bytes) }, mode, origin, meterMs, bytes: bytes.length };
  loaded.set(mode, result);
  return result;
}

/** The cached metered module; null when absent. The name carries a digest of its source, and a bad file fails to compile loudly. */
function readCached(path: string): Uint8Array | null {
  try {
    return new Uint8Array(readFileSync(path));
  } catch {
    return null;
  }
}

/** Best effort, atomic (temporary file, then rename): a read-only cache only costs the next process a transform. */
function writeCached(path: string, bytes: Uint8Array): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  } catch {
    // Nothing to do: the bytes are in memory for this process.
  }
}
