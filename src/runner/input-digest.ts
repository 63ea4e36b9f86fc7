/**
 * A digest of the files a run read, so that the shards of one evaluation
 * can show they graded the same input, wherever each ran.
 *
 * What is digested, per folder: the lines `<path>\t<sha256>\n`, one per
 * file the run's walk of that folder found (the problem walk's `*.json`
 * files; for submissions, every regular file, solution or not), sorted by
 * path in code-unit order, where `<path>` is the file's path inside the
 * folder with `/` separators and `<sha256>` the hex SHA-256 of its bytes
 * (`-` for an entry the walk could not read, such as a link loop). The
 * solutions digest starts with `root\t<folder's own name>\n`, since that
 * name is the model of files at the top of the folder. Nothing else enters:
 * not the folder's absolute path, nor modification times, nor the order
 * the file system listed the entries in; so shards on different machines
 * whose folders have the same contents agree.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename, relative, resolve, sep } from 'node:path';

export interface FolderDigest {
  /** Entries digested. */
  files: number;
  sha256: string;
}

export interface InputDigest {
  problems: FolderDigest;
  /** Null for a self-check, which reads no submissions. */
  solutions: FolderDigest | null;
}

/** A file found by a walk: where to read it (null when it cannot be read) and its path inside the folder. */
export interface WalkedFile {
  path: string | null;
  relative: string;
}

/** Path of `file` inside `dir`, with `/` separators whatever the platform. */
export function pathInside(dir: string, file: string): string {
  return relative(resolve(dir), resolve(file)).split(sep).join('/');
}

export async function digestFolder(files: readonly WalkedFile[], rootName: string | null = null): Promise<FolderDigest> {
  const lines: string[] = [];
  for (const file of files) lines.push(`${file.relative}\t${file.path === null ? '-' : await sha256OfFile(file.path)}\n`);
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256');
  if (rootName !== null) hash.update(`root\t${rootName}\n`);
  for (const line of lines) hash.update(line);
  return { files: files.length, sha256: hash.digest('hex') };
}

/** The name a solutions folder gives the model of files at its top (as discovery names it). */
export function folderName(dir: string): string {
  return basename(resolve(dir));
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch {
    // Unreadable now: the run reported it (or will); it digests as such.
    return '-';
  }
  return hash.digest('hex');
}

/** Field by field, what differs between two digests (empty when they agree). */
export function digestDifferences(a: InputDigest, b: InputDigest): string[] {
  const out: string[] = [];
  for (const folder of ['problems', 'solutions'] as const) {
    const x = a[folder];
    const y = b[folder];
    if (x === null && y === null) continue;
    if (x === null || y === null) out.push(`${folder}: ${x === null ? 'none' : 'given'} against ${y === null ? 'none' : 'given'}`);
    else if (x.sha256 !== y.sha256)
      out.push(`${folder} files differ (${x.files} files, sha256 ${x.sha256.slice(0, 12)}… against ${y.files} files, ${y.sha256.slice(0, 12)}…)`);
  }
  return out;
}
