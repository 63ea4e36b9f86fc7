/**
 * The files behind `--python-packages DIR`: each folder's wheels and its
 * unpacked packages and modules, read on the host (trusted code, in the
 * sandbox worker) and handed to each interpreter as copies, which it
 * writes read-only into its in-memory file system before any candidate
 * runs (sandbox/python/packages.py puts them on the import path). Nothing
 * of the host's file system is reachable from inside.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface PackageFile {
  /** Where the interpreter sees it. */
  path: string;
  bytes: Uint8Array;
}

export interface PythonPackages {
  files: PackageFile[];
  /** sys.path entries: package folders and pure wheels, read in place. */
  paths: string[];
  /** Pyodide-built wheels (compiled extensions), unpacked on first import. */
  platformWheels: string[];
}

/** `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl` */
const WHEEL_NAME = /^([^-]+)-([^-]+)(?:-\d[^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl$/;

/** What a wheel is to an interpreter in a WebAssembly sandbox. */
export function wheelKind(fileName: string): 'pure' | 'platform' | 'unusable' {
  const match = WHEEL_NAME.exec(fileName);
  if (match === null) return 'unusable';
  const python = match[3]!;
  const platform = match[5]!;
  if (platform === 'any') return /(^|\.)(py3|py2\.py3|cp3\d*)($|\.)/.test(python) || python.startsWith('py3') ? 'pure' : 'unusable';
  return /emscripten/.test(platform) ? 'platform' : 'unusable';
}

/** Files larger than this are not packages a candidate imports; they are left out. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
const SKIPPED = new Set(['__pycache__', 'node_modules']);

const cache = new Map<string, PythonPackages>();

/** Reads every folder once per process; the same list of folders gives the same set. */
export function readPythonPackages(dirs: readonly string[]): PythonPackages {
  const key = JSON.stringify(dirs);
  const known = cache.get(key);
  if (known !== undefined) return known;
  const set: PythonPackages = { files: [], paths: [], platformWheels: [] };
  dirs.forEach((dir, index) => {
    const root = `/evalrun/packages/${index}`;
    set.paths.push(root);
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith('.whl')) continue;
      const kind = wheelKind(name);
      if (kind === 'unusable') continue;
      const path = `/evalrun/wheels/${index}/${name}`;
      set.files.push({ path, bytes: new Uint8Array(readFileSync(join(dir, name))) });
      if (kind === 'pure') set.paths.push(path);
      else set.platformWheels.push(path);
    }
    collectTree(dir, dir, root, set.files, 0);
  });
  cache.set(key, set);
  return set;
}

/** Every file under `dir` but wheels, hidden entries and caches, at the same place under `root`. */
function collectTree(top: string, dir: string, root: string, out: PackageFile[], depth: number): void {
  // Links may loop; no package nests this deep.
  if (depth > 40) return;
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.') || SKIPPED.has(name)) continue;
    const full = join(dir, name);
    let stats;
    try {
      stats = statSync(full);
    } catch {
      continue;
    }
    if (stats.isDirectory()) {
      collectTree(top, full, root, out, depth + 1);
    } else if (stats.isFile() && !(dir === top && name.endsWith('.whl')) && stats.size <= MAX_FILE_BYTES) {
      out.push({ path: `${root}/${relative(top, full).split(sep).join('/')}`, bytes: new Uint8Array(readFileSync(full)) });
    }
  }
}
