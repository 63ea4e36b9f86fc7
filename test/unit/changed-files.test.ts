import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangedFiles } from '../../src/runner/changed-files.js';

/** A time well after every write so far, as the start of a part of a run. */
const later = (): number => Date.now() + 60_000;

describe('ChangedFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-changed-'));
  const file = join(dir, 'p.json');
  writeFileSync(file, '{}');

  it('counts a file written after a part began as changed, and one written well before it as not', () => {
    const files = new ChangedFiles([dir]);
    expect(files.since(file, Date.now() - 60_000)).toBe(true);
    expect(files.since(file, later())).toBe(false);
    expect([...files.found]).toEqual([file]);
  });

  it('counts a file changed within the margin before the part began as changed, and one changed a second before it as not', () => {
    const stat = statSync(file);
    const at = Math.max(stat.ctimeMs, stat.mtimeMs);
    // Linux stamps files from a clock a tick behind the precise one.
    expect(new ChangedFiles([dir]).since(file, at + 10)).toBe(true);
    // A time kept in whole seconds has a margin of two.
    if (at % 1000 !== 0) expect(new ChangedFiles([dir]).since(file, at + 1000)).toBe(false);
  });

  it('counts as changed a file that is gone, and any file when the part has no start', () => {
    const gone = join(dir, 'gone.json');
    writeFileSync(gone, '{}');
    rmSync(gone);
    expect(new ChangedFiles([dir]).since(gone, later())).toBe(true);
    expect(new ChangedFiles([dir]).since(file, NaN)).toBe(true);
  });

  it('sees through what keeps a file its old times: a modification time set back, a link repointed, a folder moved into place', () => {
    const root = mkdtempSync(join(tmpdir(), 'evalrun-changed-root-'));
    const staging = mkdtempSync(join(tmpdir(), 'evalrun-changed-staging-'));
    const target = join(staging, 'target.json');
    writeFileSync(target, '{}');
    mkdirSync(join(staging, 'm0'));
    writeFileSync(join(staging, 'm0', 'a.js'), 'x');
    // Well past the margin: what was written above is from before the part began.
    sleep(200);
    const since = Date.now();
    expect(new ChangedFiles([staging]).since(target, since)).toBe(false);

    // An hour old by its modification time, written now: its ctime says so.
    const backdated = join(root, 'backdated.json');
    writeFileSync(backdated, '{}');
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(backdated, old, old);
    expect(new ChangedFiles([root]).since(backdated, since)).toBe(true);

    // A new link to the old file: the link is what changed.
    const link = join(root, 'link.json');
    symlinkSync(target, link);
    expect(new ChangedFiles([root]).since(link, since)).toBe(true);

    // A folder of old files moved under the root: the folder's own time changes, not its files'.
    const moved = join(root, 'm0');
    renameSync(join(staging, 'm0'), moved);
    expect(new ChangedFiles([root]).since(join(moved, 'a.js'), since)).toBe(true);
    expect(new ChangedFiles([moved]).since(join(moved, 'a.js'), since)).toBe(false);
  });
});

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
