import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * A zip archive, as a wheel is one: entries stored as they are, or
 * deflated (as real wheels are) when `deflate` is set.
 */
export function zip(entries: Record<string, string | Uint8Array>, options: { deflate?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const method = options.deflate === true ? 8 : 0;
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const stored = method === 8 ? deflateRawSync(data) : data;
    const file = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(file.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(file.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, file, stored);
    centrals.push(central, file);
    offset += local.length + file.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** test/fixtures/python-ext: a compiled CPython extension module (a WebAssembly side module) and its source. */
export const EXTENSION_FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'python-ext');
export const EXTENSION_FILE = 'evalrun_ext.cpython-314-wasm32-emscripten.so';

/** The built extension module's bytes (see test/fixtures/python-ext/build.sh). */
export function extensionBytes(): Uint8Array {
  return new Uint8Array(readFileSync(join(EXTENSION_FIXTURES, EXTENSION_FILE)));
}

/**
 * A --python-packages folder holding the extension module twice, in the
 * two forms the flag takes: a Pyodide-built wheel (deflated, as real ones
 * are) with a package `extpkg` whose submodule is the extension, and the
 * bare .so file at the top, importable as `evalrun_ext`.
 */
export function extensionPackages(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-ext-pkgs-'));
  const so = extensionBytes();
  writeFileSync(
    join(dir, 'extpkg-1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl'),
    zip(
      {
        'extpkg/__init__.py': 'from .evalrun_ext import add, bump, origin\n',
        [`extpkg/${EXTENSION_FILE}`]: so,
        'extpkg-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: extpkg\nVersion: 1.0\n',
        'extpkg-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp314-cp314-pyemscripten_2026_0_wasm32\n',
      },
      { deflate: true },
    ),
  );
  writeFileSync(join(dir, EXTENSION_FILE), so);
  return dir;
}
