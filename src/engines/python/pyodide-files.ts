import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../package-root.js';
import { withPrelude } from '../prelude.js';

/**
 * Everything a Python interpreter is built from, read once per process:
 * Pyodide's scripts (rewritten into plain scripts for an isolate), its
 * compiled WebAssembly module, the standard library, and evalrun's own boot
 * script (with the text codecs and the shared prelude) and harness. Nothing is ever fetched: all of it ships in the
 * `pyodide` npm package or in evalrun's `sandbox/python/` folder.
 */
export interface PyodideFiles {
  /** Pyodide's npm version, e.g. "314.0.7". */
  version: string;
  /** Pyodide's build id, which a memory snapshot must match. */
  buildId: string;
  bootScript: string;
  harnessSource: string;
  /** sandbox/python/ctypes_facade.py: the data-only `ctypes` candidates get, made with the snapshot. */
  ctypesSource: string;
  /** sandbox/python/packages.py: puts --python-packages on the import path. */
  packagesSource: string;
  /** pyodide.asm.mjs as a script; `heapMaxBytes` is spliced in per interpreter. */
  asmScript: (heapMaxBytes: number) => string;
  loaderScript: string;
  lockText: string;
  stdlib: Uint8Array;
  /** A compiled WebAssembly.Module (the project's type library has no WebAssembly types). */
  wasmModule: object;
  /** Changes whenever anything that goes into a memory snapshot changes. */
  snapshotKey: string;
}

/**
 * The part of the boot script built from sandbox/python/boot-lib/ (the
 * dlopen gate's SHA-256, the WebAssembly it builds, the imports' kinds) by
 * `npm run build` (scripts/build-python-sandbox.ts), relative to the package root.
 */
export const BOOT_LIB_FILE = join('dist', 'isolate', 'python-boot-lib.js');

/** Python run before a snapshot is taken, so those modules are in it. */
export const SNAPSHOT_PRELOAD = [
  'import typing, math, collections, collections.abc, heapq, itertools, functools, bisect, re, string',
  'import abc, array, cmath, copy, dataclasses, datetime, decimal, enum, fractions, numbers',
  'import operator, queue, random, statistics, time, unicodedata, json, json.encoder, types, gc, os, sys, logging',
].join('\n');

let cached: PyodideFiles | null = null;

export function loadPyodideFiles(): PyodideFiles {
  if (cached !== null) return cached;
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('pyodide/package.json'));
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('evalrun: cannot read the pyodide package version');
  const version = pkg.version;

  const asmSource = readFileSync(join(dir, 'pyodide.asm.mjs'), 'utf8');
  const loaderSource = readFileSync(join(dir, 'pyodide.mjs'), 'utf8');
  const asmTemplate = rewriteAsm(asmSource);
  const loaderScript = rewriteLoader(loaderSource, version);
  const buildId = /BUILD_ID:\s*"([0-9a-f]+)"/.exec(loaderSource)?.[1];
  if (buildId === undefined) throw new Error(`evalrun: cannot find BUILD_ID in pyodide ${version}`);

  const sandboxDir = join(packageRoot(), 'sandbox', 'python');
  // One script: the text codecs, then boot.js with the prelude every
  // language's in-isolate code shares, the harness's JavaScript half, the
  // built boot library and the harness's record of state. All of it is in
  // the snapshot key.
  const sandboxFile = (name: string): string => readFileSync(join(sandboxDir, name), 'utf8');
  const bootScript =
    sandboxFile('text-codecs.js') +
    '\n' +
    withPrelude(sandboxFile('boot.js'), sandboxFile('harness.js'), readBootLib(), sandboxFile('memory-state.js'), sandboxFile('page-marks.js'));
  const harnessSource = sandboxFile('harness.py');
  const packagesSource = sandboxFile('packages.py');
  const ctypesSource = sandboxFile('ctypes_facade.py');
  const wasmBytes = readFileSync(join(dir, 'pyodide.asm.wasm'));
  const stdlib = new Uint8Array(readFileSync(join(dir, 'python_stdlib.zip')));

  const snapshotKey = createHash('sha256')
    .update(`pyodide ${version} ${buildId}\n`)
    .update(asmTemplate)
    .update(loaderScript)
    .update(bootScript)
    .update(harnessSource)
    .update(ctypesSource)
    .update(SNAPSHOT_PRELOAD)
    .update(stdlib)
    .digest('hex');

  cached = {
    version,
    buildId,
    bootScript,
    harnessSource,
    ctypesSource,
    packagesSource,
    asmScript: (heapMaxBytes) => asmTemplate.replace(HEAP_MAX_MARK, String(heapMaxBytes)),
    loaderScript,
    lockText: readFileSync(join(dir, 'pyodide-lock.json'), 'utf8'),
    stdlib,
    // Compiled once per process: isolated-vm hands compiled modules to every
    // isolate, so no boot recompiles Pyodide's WebAssembly.
    wasmModule: compileWasm(wasmBytes),
    snapshotKey,
  };
  return cached;
}

function readBootLib(): string {
  const path = join(packageRoot(), BOOT_LIB_FILE);
  if (!existsSync(path)) throw new Error(`evalrun: ${BOOT_LIB_FILE} is missing: run \`npm run build\``);
  return readFileSync(path, 'utf8');
}

function compileWasm(bytes: Uint8Array): object {
  const wasm = (globalThis as unknown as { WebAssembly: { Module: new (source: Uint8Array) => object } }).WebAssembly;
  return new wasm.Module(bytes);
}

const HEAP_MAX_MARK = '__EVALRUN_HEAP_MAX__';

/**
 * Pyodide ships ES modules; an isolate runs them as scripts here. Each edit
 * must match exactly once, so a pyodide upgrade that moves things fails
 * loudly at first boot instead of running half-patched.
 */
function rewriteAsm(source: string): string {
  let text = source;
  // `import.meta` is unavailable to scripts (and isolated-vm's module meta
  // callback is rejected); its only use in a shell is to name the script.
  text = replaceAll(text, 'import.meta.url', '"/pyodide/pyodide.asm.mjs"', 3);
  // In a "shell" Pyodide asks `os.system` for /dev/urandom; boot.js provides
  // a seeded crypto.getRandomValues instead.
  text = replaceOnce(text, 'var initRandomFill=()=>{', 'var initRandomFill=()=>{return view=>crypto.getRandomValues(view);');
  // Emscripten's own idea of the largest heap; Memory.prototype.grow is
  // capped in boot.js as well, this only stops it from asking for more.
  text = replaceOnce(text, 'var getHeapMax=()=>4294901760;', `var getHeapMax=()=>${HEAP_MAX_MARK};`);
  text = replaceOnce(text, 'export default _createPyodideModule;', 'globalThis.__evalrunCreatePyodideModule=_createPyodideModule;');
  // The snapshot goes into memory page by page, pages of zeros left
  // unwritten (boot.js, "pages never written").
  text = replaceOnce(text, 'return Module.HEAP8.set(t),l', 'return __evalrunWriteMemory(Module.HEAP8,t),l');
  return asPrivateScript(text);
}

function rewriteLoader(source: string, version: string): string {
  const exportPattern = /export\s*\{\s*(\w+) as loadPyodide,\s*(\w+) as version\s*\};?/;
  const match = exportPattern.exec(source);
  if (match === null) throw new Error(`evalrun: pyodide ${version}: loader exports not found`);
  const text = source.replace(exportPattern, `globalThis.__evalrunLoadPyodide=${match[1]};`);
  return asPrivateScript(text);
}

/**
 * Module code keeps its top-level names private and is strict; as a plain
 * script it would create undeletable globals, so it runs inside a function.
 */
function asPrivateScript(text: string): string {
  return `(function(){"use strict";\n${text}\n})();`;
}

function replaceOnce(text: string, search: string, replacement: string): string {
  return replaceAll(text, search, replacement, 1);
}

function replaceAll(text: string, search: string, replacement: string, expected: number): string {
  const parts = text.split(search);
  if (parts.length - 1 !== expected) {
    throw new Error(`evalrun: pyodide source changed: expected ${expected} of ${JSON.stringify(search)}, found ${parts.length - 1}`);
  }
  return parts.join(replacement);
}
