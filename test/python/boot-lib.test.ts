/**
 * The boot library (sandbox/python/boot-lib/), as `npm run build` bundles it
 * into the boot script: the dlopen gate's SHA-256 run inside an isolate, the
 * WebAssembly function assembled from non-zero.wat, the parser of the
 * linker's function wrappers, the imports' kinds and what they write.
 */
import ivm from 'isolated-vm';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import wabt from 'wabt';
import { isFunctionWrapper } from '../../sandbox/python/boot-lib/function-wrapper.js';
import { changesState, classifyImport } from '../../sandbox/python/boot-lib/imports.js';
import { js2pythonWritesElsewhere, writePolicy, writtenRange } from '../../sandbox/python/boot-lib/write-policy.js';
import { BOOT_LIB_FILE } from '../../src/engines/python/pyodide-files.js';
import { packageRoot } from '../../src/package-root.js';

const bundle = readFileSync(join(packageRoot(), BOOT_LIB_FILE), 'utf8');
const WASM_PAGE = 65536;
/** The bundle's exports, evaluated in this process (for what needs no isolate). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the bundle under test is evaluated as the isolate would evaluate it
const lib = (new Function(`return (${bundle.trim()})();`) as () => { NON_ZERO_WASM: Uint8Array })();

/** The project's type library has no WebAssembly types. */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, (...args: number[]) => number> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

describe('the SHA-256 of the dlopen gate, inside an isolate', () => {
  let isolate: ivm.Isolate;
  let context: ivm.Context;
  let digest: ivm.Reference<(bytes: Uint8Array) => string>;
  let globalsBefore: string[];
  let globalsAfter: string[];

  beforeAll(async () => {
    isolate = new ivm.Isolate({ memoryLimit: 64 });
    context = await isolate.createContext();
    const names = 'Object.getOwnPropertyNames(globalThis).sort().join(",")';
    globalsBefore = (context.evalSync(names) as string).split(',');
    // As boot.js gets it: a function expression, called once.
    digest = (await context.eval(`(${bundle.trim()})().sha256Hex`, { reference: true })) as ivm.Reference<(bytes: Uint8Array) => string>;
    globalsAfter = (context.evalSync(names) as string).split(',');
  });
  afterAll(() => isolate?.dispose());

  const inIsolate = (bytes: Uint8Array): string =>
    digest.applySync(undefined, [new ivm.ExternalCopy(Uint8Array.from(bytes)).copyInto()] as never, { result: { copy: true } });
  const onHost = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

  it('leaves no global behind', () => {
    expect(globalsAfter).toEqual(globalsBefore);
  });

  it('agrees with the host, which approves the libraries, at every length around a block and on large inputs', () => {
    for (let n = 0; n <= 200; n++) {
      const bytes = randomBytes(n);
      expect(inIsolate(bytes), `length ${n}`).toBe(onHost(bytes));
    }
    for (const n of [4096, 65_537, 3 * 1024 * 1024 + 5]) {
      const bytes = randomBytes(n);
      expect(inIsolate(bytes), `length ${n}`).toBe(onHost(bytes));
    }
  });

  it('tells a copy changed in one bit from the approved bytes', () => {
    const approved = randomBytes(10_000);
    const forged = Uint8Array.from(approved);
    forged[5000]! ^= 1;
    expect(inIsolate(approved)).toBe(onHost(approved));
    expect(inIsolate(forged)).not.toBe(onHost(approved));
    expect(inIsolate(forged)).toBe(onHost(forged));
  });
});

describe('the WebAssembly function of non-zero.wat', () => {
  it('is the binary wabt assembles from the text', async () => {
    const tools = await wabt();
    const path = join(packageRoot(), 'sandbox', 'python', 'boot-lib', 'non-zero.wat');
    const module = tools.parseWat(path, readFileSync(path, 'utf8'), { simd: true });
    module.resolveNames();
    module.validate();
    expect(Buffer.from(lib.NON_ZERO_WASM).equals(Buffer.from(module.toBinary({}).buffer))).toBe(true);
    module.destroy();
  });

  it('finds a byte that is not zero wherever it is in [start, end), and nothing outside it', () => {
    const memory = new wasm.Memory({ initial: 2 });
    const z = new wasm.Instance(new wasm.Module(lib.NON_ZERO_WASM), { m: { m: memory } }).exports.z!;
    const heap = new Uint8Array(memory.buffer);
    expect(z(0, 2 * WASM_PAGE)).toBe(0);
    expect(z(64, 64)).toBe(0);
    for (const at of [0, 15, 16, 31, 32, 47, 48, 63, 64, WASM_PAGE - 1, WASM_PAGE, 2 * WASM_PAGE - 1]) {
      heap[at] = 0x80;
      const block = at - (at % 64);
      expect(z(0, 2 * WASM_PAGE), `byte ${at}`).toBe(1);
      expect(z(block, block + 64), `byte ${at}`).toBe(1);
      if (block > 0) expect(z(0, block), `byte ${at}`).toBe(0);
      expect(z(block + 64, 2 * WASM_PAGE), `byte ${at}`).toBe(0);
      heap[at] = 0;
    }
  });
});

/** A module as Emscripten's convertJsFunctionToWasm makes it, for a function of `params` to `results`. */
function wrapper(params: number[], results: number[]): Uint8Array {
  const types = [0x01, 0x60, params.length, ...params, results.length, ...results];
  const imports = [0x02, 0x07, 0x01, 0x01, 0x65, 0x01, 0x66, 0x00, 0x00];
  const exports = [0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00];
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, types.length, ...types, ...imports, ...exports]);
}

describe("the linker's function wrappers", () => {
  it('are recognised for every signature, and are modules WebAssembly compiles', () => {
    for (const [params, results] of [
      [[], []],
      [[0x7f], [0x7f]],
      [[0x7f, 0x7e, 0x7d, 0x7c], []],
      [[0x6f], [0x7c]],
    ] as const) {
      const bytes = wrapper([...params], [...results]);
      expect(isFunctionWrapper(bytes)).toBe(true);
      expect(() => new wasm.Module(bytes)).not.toThrow();
    }
  });

  it('are told from any other module: code, another import or export, a byte more or less', () => {
    const good = wrapper([0x7f], [0x7f]);
    expect(isFunctionWrapper(lib.NON_ZERO_WASM)).toBe(false);
    expect(isFunctionWrapper(good.subarray(0, good.length - 1))).toBe(false);
    expect(isFunctionWrapper(Uint8Array.from([...good, 0x00]))).toBe(false);
    for (let i = 0; i < good.length; i++) {
      const changed = Uint8Array.from(good);
      // Never another value type: those are all 0x6f or 0x7c to 0x7f.
      changed[i]! ^= 0x40;
      expect(isFunctionWrapper(changed), `byte ${i}`).toBe(false);
    }
    // Two types, of which the wrapper would use one.
    expect(isFunctionWrapper(wrapper([0x7f, 0x60], [0x7f]))).toBe(false);
  });
});

describe("the imports' kinds", () => {
  it('sorts by name, and counts any import it does not know as one that changes state', () => {
    expect(classifyImport('clock_time_get')).toBe('pure');
    expect(classifyImport('_python2js_ucs4')).toBe('pure');
    expect(classifyImport('JsProxy_GetAttr')).toBe('bridge');
    expect(classifyImport('__syscall_unlinkat')).toBe('state');
    expect(classifyImport('a_new_import_of_a_later_pyodide')).toBe('state');
    for (const named of ['__syscall_openat', 'fd_read', '__syscall_ioctl', '_dlopen_js', '__syscall_poll']) expect(classifyImport(named)).toBe(named);
  });

  it('lets reads be and notes writes', () => {
    const file = (): boolean => false;
    expect(changesState('__syscall_openat', [0, 0, 0o0], file)).toBe(false);
    for (const flags of [0o1, 0o2, 0o100, 0o1000, 0o2000]) expect(changesState('__syscall_openat', [0, 0, flags], file)).toBe(true);
    expect(changesState('fd_read', [3], file)).toBe(false);
    expect(changesState('fd_read', [0], () => true)).toBe(true);
    expect(changesState('__syscall_ioctl', [1, 0x5401], file)).toBe(false);
    expect(changesState('__syscall_ioctl', [1, 0x5402], file)).toBe(true);
    expect(changesState('state', [], file)).toBe(true);
  });
});

describe("the imports' writes, for write marks", () => {
  const data = (object: number): number => object + 32;

  it('names the ranges the clock, random bytes, fd_write and string conversion write', () => {
    expect(writePolicy('clock_time_get')).toBe('clock_time_get');
    expect(writtenRange('clock_time_get', [1, 0n, 5000], 0, data)).toEqual({ start: 5000, length: 8 });
    expect(writtenRange('random_get', [70000, 33], 0, data)).toEqual({ start: 70000, length: 33 });
    expect(writtenRange('fd_write', [1, 100, 2, 9000], 0, data)).toEqual({ start: 9000, length: 4 });
    expect(writtenRange('js2python_js', ['héllo'], 4096, data)).toEqual({ start: 4128, length: 20 });
  });

  it('marks nothing for values WebAssembly converts, and sends a BigInt to a full restore', () => {
    for (const value of [3, 2.5, true, null, undefined]) expect(writtenRange('js2python_js', [value], 4096, data)).toBeNull();
    expect(writtenRange('js2python_js', ['x'], 0, data)).toBeNull();
    expect(js2pythonWritesElsewhere(12n)).toBe(true);
    expect(js2pythonWritesElsewhere('12')).toBe(false);
  });

  it('counts an import it does not name as one that writes where no mark says', () => {
    for (const name of ['fd_read', '__syscall_openat', '__syscall_stat64', '_mmap_js', '_dlopen_js', 'some_future_import'])
      expect(writePolicy(name)).toBe('unknown');
    for (const name of ['_python2js_ucs1', 'emscripten_get_now', '_PyEM_TrampolineCall_JS']) expect(writePolicy(name)).toBe('none');
  });
});
