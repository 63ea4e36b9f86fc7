import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

/**
 * The on-disk cache of Pyodide memory snapshots. A snapshot is made once
 * (a cold boot takes seconds) and then every interpreter boots from it.
 *
 * File layout: MAGIC, then the SHA-256 of the payload, then the payload.
 * A file whose digest does not match (truncated, corrupt, half-written by a
 * process that died) is ignored and rewritten. The file name carries the
 * snapshot key, so a new pyodide version, boot script or preload list never
 * reads an old snapshot; stale files are removed when a new one is written.
 */
const MAGIC = Buffer.from('EVALRUN-PYODIDE-SNAPSHOT-1\n', 'latin1');
const DIGEST_BYTES = 32;
const PREFIX = 'pyodide-';
const SUFFIX = '.snapshot';

export function defaultCacheDir(): string {
  return join(packageRoot(), 'node_modules', '.cache', 'evalrun');
}

export function snapshotPath(cacheDir: string, version: string, key: string): string {
  return join(cacheDir, `${PREFIX}${version}-${key.slice(0, 24)}${SUFFIX}`);
}

/** The cached payload, or null when there is none or it fails its check. */
export function readSnapshot(path: string): Uint8Array | null {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return null;
  }
  const head = MAGIC.length + DIGEST_BYTES;
  if (file.length <= head || !file.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const payload = file.subarray(head);
  const digest = createHash('sha256').update(payload).digest();
  if (!digest.equals(file.subarray(MAGIC.length, head))) return null;
  return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
}

/** Writes atomically (temporary file, then rename) and drops stale snapshots. */
export function writeSnapshot(path: string, payload: Uint8Array): void {
  const dir = join(path, '..');
  mkdirSync(dir, { recursive: true });
  const digest = createHash('sha256').update(payload).digest();
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, Buffer.concat([MAGIC, digest, payload]));
  renameSync(temporary, path);
  const keep = path.slice(dir.length + 1);
  for (const name of readdirSync(dir)) {
    if (name !== keep && name.startsWith(PREFIX) && name.endsWith(SUFFIX)) {
      rmSync(join(dir, name), { force: true });
    }
  }
}
