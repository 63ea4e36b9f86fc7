/**
 * Compiled extension modules from --python-packages: the interpreter's
 * dynamic linker compiles only the exact bytes of the shared libraries the
 * operator supplied, and a candidate that loaded one leaves its interpreter
 * to be replaced, not restored. The module is test/fixtures/python-ext
 * (a real WebAssembly side module built from C, see its build.sh).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { ObservedPythonEngine } from './observed-engine.js';
import { pyJob, returned, testsOf } from './helpers.js';
import { py } from '../python-source.js';
import { EXTENSION_FILE, extensionBytes, extensionPackages } from './wheel.js';

const REFUSED = 'evalrun: refused to load WebAssembly code that is not one of the shared libraries (.so) of --python-packages';
const LOADED_RESET = 'the candidate called _dlopen_js, which keeps state outside the interpreter memory';

/** Candidates that load no library, so their interpreters are restored, not replaced. */
const RETURNS_ONE = py`
  def f():
      return 1
`;
const RETURNS_TWO = py`
  def f():
      return 2
`;
const RETURNS_THREE = py`
  def f():
      return 3
`;

/** Candidate code that writes `bytes_expr` as an extension module under /tmp/<folder> and imports it from there. */
function importFrom(folder: string, bytesExpr: string, catchErrors: boolean): string {
  const load = [
    `    os.makedirs('/tmp/${folder}', exist_ok=True)`,
    `    with open('/tmp/${folder}/${EXTENSION_FILE}', 'wb') as out:`,
    `        out.write(${bytesExpr})`,
    `    sys.path.insert(0, '/tmp/${folder}')`,
    '    import evalrun_ext',
    '    return [evalrun_ext.origin(), evalrun_ext.__file__]',
  ];
  const body = catchErrors ? ['    try:', ...load.map((line) => '    ' + line), '    except ImportError as e:', '        return [str(e), 1 + 1]'] : load;
  return [
    'import importlib.util, os, sys',
    'def approved():',
    "    with open(importlib.util.find_spec('evalrun_ext').origin, 'rb') as src:",
    '        return src.read()',
    'def f():',
    ...body,
    '',
  ].join('\n');
}

describe('compiled extension modules from --python-packages', () => {
  let engine: ObservedPythonEngine;
  beforeAll(async () => {
    engine = await ObservedPythonEngine.open({ memoryMb: 256, packages: [extensionPackages()] });
  });
  afterAll(() => engine?.dispose());

  it('loads from a Pyodide-built wheel when a candidate imports it, and calls into C and back into the runtime', async () => {
    const code = py`
      import evalrun_ext
      from extpkg import add, bump, origin
      def f(a, b):
          return [add(a, b), bump(), bump(), origin(), evalrun_ext.now() > 0]
    `;
    expect(
      returned(
        await engine.run(
          pyJob(code, [
            [40, 2],
            [-5, 3],
          ]),
        ),
      ),
    ).toEqual([
      [42, 1, 2, 'compiled', true],
      [-2, 3, 4, 'compiled', true],
    ]);
  });

  it('gives the candidate after a loader a fresh interpreter, without the library', async () => {
    const loader = py`
      import evalrun_ext
      def f():
          return [evalrun_ext.bump(), evalrun_ext.bump()]
    `;
    expect(returned(await engine.run(pyJob(loader, [[]])))).toEqual([[1, 2]]);
    const after = [
      'import sys',
      'def f():',
      "    loaded = [m for m in ('evalrun_ext', 'extpkg', 'extpkg.evalrun_ext') if m in sys.modules]",
      '    import evalrun_ext',
      '    return [loaded, evalrun_ext.bump()]',
      '',
    ].join('\n');
    // The counter lives in the library's own memory: a library kept from the loader would say 3.
    expect(returned(await engine.run(pyJob(after, [[]])))).toEqual([[[], 1]]);
    expect(engine.lastReset).toBe(LOADED_RESET);
    // Candidates that load nothing are restored as usual.
    expect(returned(await engine.run(pyJob(RETURNS_ONE, [[]])))).toEqual([1]);
    expect(returned(await engine.run(pyJob(RETURNS_TWO, [[]])))).toEqual([2]);
    expect(engine.lastReset).toBe('clean');
  });

  it('refuses a modified copy of an approved library, with a clear error, and the candidate goes on', async () => {
    const code = importFrom('forged', "approved().replace(b'compiled', b'forged!!')", true);
    const [[message, two]] = returned(await engine.run(pyJob(code, [[]]))) as [[string, number]];
    expect(message).toContain(`could not load dynamic lib: /tmp/forged/${EXTENSION_FILE}`);
    expect(message).toContain(REFUSED);
    expect(two).toBe(2);
    // Uncaught, the import error is the candidate's verdict.
    const out = await engine.run(pyJob(importFrom('forged2', "approved()[:-1] + b'x'", false), [[]]));
    expect(testsOf(out)[0]).toMatchObject({ kind: 'threw' });
    expect(JSON.stringify(out)).toContain(REFUSED);
  });

  it('loads an exact copy of an approved library from anywhere: the bytes are what is approved', async () => {
    const [[origin, file]] = returned(await engine.run(pyJob(importFrom('copy', 'approved()', false), [[]]))) as [[string, string]];
    expect(origin).toBe('compiled');
    expect(file).toBe(`/tmp/copy/${EXTENSION_FILE}`);
  });

  /** Candidate code that writes `bytesExpr` to a file and loads it with ExtensionFileLoader; returns the ImportError's text. */
  function loadWithLoader(bytesExpr: string): string {
    return [
      'import importlib.machinery, importlib.util, os',
      'def f():',
      "    os.makedirs('/tmp/loader', exist_ok=True)",
      "    with open('/tmp/loader/anything.so', 'wb') as out:",
      `        out.write(${bytesExpr})`,
      "    loader = importlib.machinery.ExtensionFileLoader('evalrun_ext', '/tmp/loader/anything.so')",
      "    spec = importlib.util.spec_from_file_location('evalrun_ext', '/tmp/loader/anything.so', loader=loader)",
      '    try:',
      '        importlib.util.module_from_spec(spec)',
      "        return 'loaded'",
      '    except ImportError as e:',
      '        return str(e)',
      '',
    ].join('\n');
  }
  /** A side module's header and dylink.0 section (memory size, alignment, table size, alignment), and no code. */
  const HEADER = "b'\\x00asm\\x01\\x00\\x00\\x00'";

  it('refuses forged bytes loaded through ExtensionFileLoader under any name', async () => {
    // The smallest side module the linker reads: it needs no memory and no table slots.
    const code = loadWithLoader(`${HEADER} + b'\\x00\\x0f\\x08dylink.0' + b'\\x01\\x04\\x00\\x00\\x00\\x00'`);
    const [message] = returned(await engine.run(pyJob(code, [[]]))) as [string];
    expect(message).toContain(REFUSED);
  });

  it('keeps the function table capped when a forged library asks the linker for 2**21 slots', async () => {
    const code = loadWithLoader(`${HEADER} + b'\\x00\\x12\\x08dylink.0' + b'\\x01\\x07\\x00\\x00\\x80\\x80\\x80\\x01\\x00'`);
    const [message] = returned(await engine.run(pyJob(code, [[]]))) as [string];
    expect(message).toContain('evalrun: WebAssembly table limit reached');
  });

  it('gives ctypes no way to load a library', async () => {
    const code = py`
      import os
      def f():
          import ctypes
          return str(ctypes.CDLL('/tmp/x.so'))
    `;
    const [test] = testsOf(await engine.run(pyJob(code, [[]])));
    expect(test).toMatchObject({
      kind: 'threw',
      message:
        'AttributeError: evalrun: ctypes.CDLL is not available in the sandbox (its ctypes has C values only: no addresses, pointers, functions or libraries)',
    });
  });
});

describe('without --python-packages', () => {
  let engine: PythonEngine;
  beforeAll(async () => {
    engine = await PythonEngine.create({ memoryMb: 256 });
  });
  afterAll(() => engine?.dispose());

  it('compiles no library at all, not even the fixture written by the candidate byte for byte', async () => {
    const hex = Buffer.from(extensionBytes()).toString('hex');
    const [[message]] = returned(await engine.run(pyJob(importFrom('own', `bytes.fromhex('${hex}')`, true), [[]]))) as [[string]];
    expect(message).toContain(REFUSED);
    expect(returned(await engine.run(pyJob(RETURNS_THREE, [[]])))).toEqual([3]);
  });
});
