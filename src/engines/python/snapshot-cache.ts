import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { packageRoot } from '../../package-root.js';

/**
 * The on-disk cache of Pyodide memory snapshots. A snapshot is made once
 * (a cold boot takes seconds) and then every interpreter boots from it.
 *
 * File layout: MAGIC, then the SHA-256 of the payload, then the payload.
 * A file whose digest does not match (truncated, corrupt, half-written by a
 * process that died) is ignored and rewritten. The file name carries the
 * snapshot key, so a new pyodide version, boot script or preload list never
 * reads an old snapshot; stale files are removed when a new one is written.
 *
 * Several worker processes start at once and all want the snapshot. One
 * of them makes it under a lock file; the others wait for its file instead
 * of each spending seconds and hundreds of MB on the same cold boot. The
 * lock only saves work: writes are atomic, so when it fails (dead owner,
 * read-only folder, a wait that runs too long) the worst case is that two
 * processes make the same snapshot and the last rename wins.
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

/**
 * The cached payload, or null when there is none or it fails its check.
 * The payload is read straight into a SharedArrayBuffer: every interpreter
 * of the process boots from that one buffer without a copy (engine.ts).
 */
export function readSnapshot(path: string): Uint8Array | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const head = MAGIC.length + DIGEST_BYTES;
    const size = fstatSync(fd).size;
    if (size <= head) return null;
    const header = Buffer.alloc(head);
    if (readFully(fd, header, 0) !== head || !header.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const payload = new Uint8Array(new SharedArrayBuffer(size - head));
    if (readFully(fd, payload, head) !== payload.byteLength) return null;
    const digest = createHash('sha256').update(payload).digest();
    return digest.equals(header.subarray(MAGIC.length)) ? payload : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Reads into all of `into` from `position` on; fewer bytes only at the end of the file. */
function readFully(fd: number, into: Uint8Array, position: number): number {
  let done = 0;
  while (done < into.byteLength) {
    const n = readSync(fd, into, done, into.byteLength - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
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
    if (!name.startsWith(PREFIX) || name === keep) continue;
    // A writer killed mid-write leaves a snapshot's worth behind; its pid names it.
    const writer = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    const stale = name.endsWith(SUFFIX) || (writer !== null && !processAlive(Number(writer[1])));
    if (stale) rmSync(join(dir, name), { force: true });
  }
}

export type SnapshotOrigin = 'disk' | 'made' | 'waited';

export interface SnapshotWaitOptions {
  /** Longest wait for another process's snapshot before making one anyway. */
  waitMs?: number;
  pollMs?: number;
  /** A lock older than this is taken to be abandoned, whoever holds it. */
  staleLockMs?: number;
}

const DEFAULT_WAIT_MS = 120_000;
const DEFAULT_POLL_MS = 100;
const DEFAULT_STALE_LOCK_MS = 180_000;

/**
 * The cached snapshot at `path`, or one made by `make` (and cached), with
 * at most one process of this machine making it at a time.
 */
export async function readOrMakeSnapshot(
  path: string,
  make: () => Promise<Uint8Array>,
  options: SnapshotWaitOptions = {},
): Promise<{ bytes: Uint8Array; origin: SnapshotOrigin }> {
  const cached = readSnapshot(path);
  if (cached !== null) return { bytes: cached, origin: 'disk' };
  const lockPath = `${path}.lock`;
  const deadline = Date.now() + (options.waitMs ?? DEFAULT_WAIT_MS);
  let waited = false;
  for (;;) {
    const lock = tryLock(lockPath);
    if (lock !== 'held-elsewhere') {
      try {
        // The previous holder may have finished between the first read and the lock.
        const done = readSnapshot(path);
        if (done !== null) return { bytes: done, origin: waited ? 'waited' : 'disk' };
        return { bytes: await makeAndCacheSnapshot(path, make), origin: 'made' };
      } finally {
        if (lock === 'acquired') rmSync(lockPath, { force: true });
      }
    }
    if (lockAbandoned(lockPath, options.staleLockMs ?? DEFAULT_STALE_LOCK_MS)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) return { bytes: await makeAndCacheSnapshot(path, make), origin: 'made' };
    waited = true;
    await sleep(options.pollMs ?? DEFAULT_POLL_MS);
    const done = readSnapshot(path);
    if (done !== null) return { bytes: done, origin: 'waited' };
  }
}

/** Makes a snapshot and caches it (best effort). */
export async function makeAndCacheSnapshot(path: string, make: () => Promise<Uint8Array>): Promise<Uint8Array> {
  const bytes = await make();
  try {
    writeSnapshot(path, bytes);
  } catch {
    // A read-only cache only costs the next process a cold boot.
  }
  return bytes;
}

/** 'unavailable' when no lock can be made at all (read-only folder): go ahead without one. */
function tryLock(lockPath: string): 'acquired' | 'held-elsewhere' | 'unavailable' {
  try {
    mkdirSync(join(lockPath, '..'), { recursive: true });
    const fd = openSync(lockPath, 'wx');
    try {
      writeSync(fd, `${process.pid} ${hostname()}\n`);
    } finally {
      closeSync(fd);
    }
    return 'acquired';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EEXIST' ? 'held-elsewhere' : 'unavailable';
  }
}

function lockAbandoned(lockPath: string, staleMs: number): boolean {
  let text: string;
  let ageMs: number;
  try {
    text = readFileSync(lockPath, 'utf8');
    ageMs = Date.now() - statSync(lockPath).mtimeMs;
  } catch {
    // Gone already (released), or unreadable: either way, try to lock again.
    return false;
  }
  if (ageMs > staleMs) return true;
  const [pid, host] = text.trim().split(' ');
  // Written but not yet filled in: give its owner a moment.
  if (pid === undefined || pid === '') return ageMs > 5_000;
  return host === hostname() && !processAlive(Number(pid));
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
