/** A WebAssembly text file, assembled into its binary at build time (scripts/build-python-sandbox.ts). */
declare module '*.wat' {
  const binary: Uint8Array;
  export default binary;
}
