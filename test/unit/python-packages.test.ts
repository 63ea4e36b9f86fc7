/**
 * What the host approves of --python-packages: the SHA-256 of every
 * WebAssembly shared library in the folders and inside their Pyodide-built
 * wheels (deflated or stored), and nothing else.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPythonPackages, wheelKind } from '../../src/engines/python/packages.js';
import { EXTENSION_FILE, EXTENSION_FIXTURES, extensionBytes, zip } from '../python/wheel.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A different side module: the fixture with the first letter of its data string changed to `letter`. */
function variant(bytes: Uint8Array, letter: string): Uint8Array {
  const out = new Uint8Array(bytes);
  out[Buffer.from(out).indexOf('compiled')] = letter.charCodeAt(0);
  return out;
}

/** A WebAssembly module without its `producers` section, which names the compiler's exact build. */
function withoutProducers(bytes: Uint8Array): Buffer {
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  let at = 8;
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++]!;
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++]!;
      size += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) break;
    }
    const end = at + size;
    const nameLength = bytes[at]!;
    const name = Buffer.from(bytes.subarray(at + 1, at + 1 + nameLength)).toString('latin1');
    if (!(id === 0 && name === 'producers')) parts.push(bytes.subarray(start, end));
    at = end;
  }
  return Buffer.concat(parts);
}

function hasTool(name: string): boolean {
  try {
    execFileSync(name, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('readPythonPackages: shared libraries', () => {
  const so = extensionBytes();

  it('approves the libraries in folders and in wheels, by the digest of their uncompressed bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-unit-pkgs-'));
    const inWheel = variant(so, 'C');
    writeFileSync(
      join(dir, 'a-1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl'),
      zip({ [`a/${EXTENSION_FILE}`]: inWheel, 'a/__init__.py': '' }, { deflate: true }),
    );
    const stored = variant(so, 'K');
    writeFileSync(join(dir, 'b-1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl'), zip({ 'b/libb.so.1': stored }));
    mkdirSync(join(dir, 'pkg'));
    writeFileSync(join(dir, 'pkg', EXTENSION_FILE), so);
    // Neither is a WebAssembly library: a text file named .so, and a module not named as a library.
    writeFileSync(join(dir, 'pkg', 'notes.so'), 'not wasm');
    writeFileSync(join(dir, 'pkg', 'data.bin'), so);
    const set = readPythonPackages([dir]);
    expect(set.sharedLibraries).toEqual([sha256(so), sha256(inWheel), sha256(stored)].sort());
  });

  it('approves nothing from a wheel it cannot read, or one for another platform, and does not fail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-unit-pkgs-'));
    const good = zip({ [`c/${EXTENSION_FILE}`]: so }, { deflate: true });
    writeFileSync(join(dir, 'c-1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl'), good.subarray(0, good.length - 30));
    writeFileSync(join(dir, 'd-1.0-cp314-cp314-manylinux_2_17_x86_64.whl'), zip({ [`d/${EXTENSION_FILE}`]: so }));
    const set = readPythonPackages([dir]);
    expect(wheelKind('d-1.0-cp314-cp314-manylinux_2_17_x86_64.whl')).toBe('unusable');
    expect(set.sharedLibraries).toEqual([]);
    expect(set.platformWheels).toEqual(['/evalrun/wheels/0/c-1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl']);
  });
});

describe('the extension module fixture', () => {
  it.skipIf(!hasTool('clang-16') || !hasTool('wasm-ld-16'))('is what its build script makes from its source', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'evalrun-unit-ext-')), EXTENSION_FILE);
    execFileSync('bash', [join(EXTENSION_FIXTURES, 'build.sh'), out]);
    expect(withoutProducers(readFileSync(out)).equals(withoutProducers(extensionBytes()))).toBe(true);
  });
});
