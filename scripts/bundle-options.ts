import type { BuildOptions } from 'esbuild';

/**
 * How evalrun's programs are bundled for Node: one ES module per entry
 * point, with the native and very large packages left outside to load as
 * usual. Shared by the build (scripts/bundle.ts) and the benchmark, which
 * bundles its floor and peer the same way so that no contender pays for
 * loading a module graph file by file.
 */
export const NODE_BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['isolated-vm', 'esbuild', 'pyodide'],
  // Some bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __evalrunRequire } from 'node:module'; const require = __evalrunRequire(import.meta.url);" },
  logLevel: 'warning',
} as const satisfies BuildOptions;
