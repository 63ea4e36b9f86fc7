import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * The SHA-256 of `bytes`, as lowercase hex: what the host hands in for each
 * shared library of --python-packages (src/engines/python/packages.ts), and
 * what the dlopen gate in boot.js compares before it compiles a module. It
 * runs inside the isolate, over the gate's private copy of the bytes (the
 * copy it then compiles), so nothing leaves the isolate to be hashed.
 */
export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}
