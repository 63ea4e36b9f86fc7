/**
 * Builds the part of the Python boot script that is checked like the rest of
 * evalrun (sandbox/python/boot-lib/: TypeScript, a WebAssembly text file and
 * @noble/hashes) into one function expression, BOOT_LIB_FILE, which the
 * host passes to sandbox/python/boot.js (src/engines/python/pyodide-files.ts).
 * Run by `npm run build`, after tsc.
 *
 * A `.wat` import is assembled here with wabt, the WebAssembly project's own
 * tools, and becomes its bytes: the text file is the only source of the
 * binary that runs.
 */
import { build, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import wabt from 'wabt';
import { packageRoot } from '../src/package-root.js';
import { BOOT_LIB_FILE } from '../src/engines/python/pyodide-files.js';

/** The project's type library has no WebAssembly types. */
const wasm = (globalThis as unknown as { WebAssembly: { validate: (bytes: Uint8Array) => boolean } }).WebAssembly;

/** The bundle's own name for its exports; local to the function expression it is wrapped in. */
const EXPORTS = '__evalrunBootLib';

/** The binary of a WebAssembly text file, checked by wabt and by this process's WebAssembly. */
async function assembleWat(path: string): Promise<Uint8Array> {
  const tools = await wabt();
  const module = tools.parseWat(path, readFileSync(path, 'utf8'), { simd: true });
  try {
    module.resolveNames();
    module.validate();
    const binary = new Uint8Array(module.toBinary({ log: false, write_debug_names: false }).buffer);
    // Rejects what this Node's WebAssembly (V8's, as in the isolate) would not compile.
    if (!wasm.validate(binary)) throw new Error(`evalrun: ${path}: V8 does not accept the binary`);
    return binary;
  } finally {
    module.destroy();
  }
}

const watFiles: Plugin = {
  name: 'wat',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /\.wat$/ }, (args) => ({ path: resolve(args.resolveDir, args.path), namespace: 'wat' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'wat' }, async (args) => {
      const binary = await assembleWat(args.path);
      return { contents: `export default new Uint8Array(${JSON.stringify([...binary])});`, loader: 'js', watchFiles: [args.path] };
    });
  },
};

/** The bundle's text: a function expression that returns the module's exports. */
async function buildBootLib(root: string): Promise<string> {
  const result = await build({
    entryPoints: [join(root, 'sandbox', 'python', 'boot-lib', 'index.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: EXPORTS,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'inline',
    logLevel: 'warning',
    plugins: [watFiles],
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error('evalrun: esbuild wrote no boot library');
  return `(function () {\n${code}return ${EXPORTS};\n})\n`;
}

const root = packageRoot();
const out = join(root, BOOT_LIB_FILE);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, await buildBootLib(root));
console.log(`wrote ${out}`);
