/**
 * The files behind `--python-packages DIR`: each folder's wheels and its
 * unpacked packages and modules, read on the host (trusted code, in the
 * sandbox worker) and handed to each interpreter as copies, which it
 * writes read-only into its in-memory file system before any candidate
 * runs (sandbox/python/packages.py puts them on the import path). Nothing
 * of the host's file system is reachable from inside.
 *
 * Compiled extension modules (WebAssembly side modules named `.so`, in
 * Pyodide-built wheels or in the folders) are the only code an interpreter
 * may compile after it boots: the host hashes each one here, and the
 * interpreter's dynamic linker compiles bytes only when their digest is one
 * of these (sandbox/python/boot.js, "compiled extension modules").
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { walkFolderSync, type WalkEntry } from '../../folders/walk.js';

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
  /** SHA-256 (lowercase hex) of every WebAssembly shared library in the folders and their wheels. */
  sharedLibraries: string[];
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
  const set: PythonPackages = { files: [], paths: [], platformWheels: [], sharedLibraries: [] };
  const libraries = new Set<string>();
  dirs.forEach((dir, index) => {
    const root = `/evalrun/packages/${index}`;
    set.paths.push(root);
    const { wheels, tree } = folderFiles(dir);
    for (const wheel of wheels) {
      const name = wheel.parts[0] as string;
      const kind = wheelKind(name);
      if (kind === 'unusable') continue;
      const path = `/evalrun/wheels/${index}/${name}`;
      const bytes = new Uint8Array(readFileSync(wheel.path));
      set.files.push({ path, bytes });
      if (kind === 'pure') set.paths.push(path);
      else set.platformWheels.push(path);
      for (const library of wheelLibraries(bytes)) libraries.add(sha256(library));
    }
    for (const file of tree) {
      // Only files read whole pay for this look-up, and the limit must hold before the read.
      let size: number;
      try {
        size = statSync(file.path).size;
      } catch {
        continue;
      }
      if (size > MAX_FILE_BYTES) continue;
      const path = `${root}/${file.parts.join('/')}`;
      const bytes = new Uint8Array(readFileSync(file.path));
      set.files.push({ path, bytes });
      if (isSharedLibrary(path, bytes)) libraries.add(sha256(bytes));
    }
  });
  set.sharedLibraries = [...libraries].sort();
  cache.set(key, set);
  return set;
}

/** `name.so`, `name.cpython-314-wasm32-emscripten.so`, `libname.so.1`, `name.wasm`. */
const LIBRARY_NAME = /\.(so|wasm)(\.\d+)*$/;
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

function isSharedLibrary(name: string, bytes: Uint8Array): boolean {
  return LIBRARY_NAME.test(name) && WASM_MAGIC.every((b, i) => bytes[i] === b);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The shared libraries inside a wheel, uncompressed, read from the zip's
 * central directory. A wheel this cannot read yields none, and its
 * extension modules are then refused inside the interpreter (where
 * Python's zipfile reads the same archive).
 */
function wheelLibraries(wheel: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  try {
    const view = new DataView(wheel.buffer, wheel.byteOffset, wheel.byteLength);
    const end = findEndOfDirectory(view);
    if (end < 0) return out;
    const count = view.getUint16(end + 10, true);
    let at = view.getUint32(end + 16, true);
    for (let i = 0; i < count; i++) {
      if (view.getUint32(at, true) !== 0x02014b50) break;
      const flags = view.getUint16(at + 8, true);
      const method = view.getUint16(at + 10, true);
      const compressed = view.getUint32(at + 20, true);
      const size = view.getUint32(at + 24, true);
      const nameLength = view.getUint16(at + 28, true);
      const next = at + 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
      const name = Buffer.from(wheel.subarray(at + 46, at + 46 + nameLength)).toString('utf8');
      const local = view.getUint32(at + 42, true);
      at = next;
      // Encrypted entries and zip64 sizes do not occur in wheels; such an entry is not approved.
      if (!LIBRARY_NAME.test(name) || (flags & 1) !== 0 || compressed === 0xffffffff || size === 0xffffffff) continue;
      if (view.getUint32(local, true) !== 0x04034b50) continue;
      const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      const raw = wheel.subarray(start, start + compressed);
      const bytes = method === 0 ? raw : method === 8 ? new Uint8Array(inflateRawSync(raw)) : null;
      if (bytes !== null && bytes.length === size && isSharedLibrary(name, bytes)) out.push(bytes);
    }
  } catch {
    // A truncated or corrupt archive: what was read so far stands.
  }
  return out;
}

/** Offset of the zip's end-of-central-directory record, or -1. */
function findEndOfDirectory(view: DataView): number {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) === 0x06054b50) return at;
  }
  return -1;
}

/**
 * The regular files under `dir` but hidden entries and caches, in walk
 * order: the wheels at its top, and the rest. A folder it may not list fails
 * the whole set, as a missing package would fail the candidates; links that
 * lead nowhere and files of other types are left out.
 */
function folderFiles(dir: string): { wheels: WalkEntry[]; tree: WalkEntry[] } {
  const wheels: WalkEntry[] = [];
  const tree: WalkEntry[] = [];
  // A package may be linked in under two names and imported by either, so
  // a folder is walked again under each; no package nests deeper than this.
  for (const entry of walkFolderSync(dir, { ignore: isSkipped, reenter: true, maxDepth: 40 })) {
    if (entry.kind === 'unreadable-folder') throw entry.error;
    if (entry.kind !== 'file') continue;
    if (entry.parts.length === 1 && entry.path.endsWith('.whl')) wheels.push(entry);
    else tree.push(entry);
  }
  return { wheels, tree };
}

function isSkipped(name: string): boolean {
  return name.startsWith('.') || SKIPPED.has(name);
}
