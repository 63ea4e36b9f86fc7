import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangedFiles } from '../../src/runner/changed-files.js';

describe('ChangedFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-changed-'));
  const file = join(dir, 'p.json');
  writeFileSync(file, '{}');

  it('counts a file written after a part began as changed, and one written well before it as not', () => {
    const files = new ChangedFiles();
    expect(files.since(file, Date.now() - 60_000)).toBe(true);
    expect(files.since(file, Date.now() + 60_000)).toBe(false);
    expect([...files.found]).toEqual([file]);
  });

  it('counts a file changed within the margin before the part began as changed, and one changed a second before it as not', () => {
    const stat = statSync(file);
    const at = Math.max(stat.ctimeMs, stat.mtimeMs);
    // Linux stamps files from a clock a tick behind the precise one.
    expect(new ChangedFiles().since(file, at + 10)).toBe(true);
    // A time kept in whole seconds has a margin of two.
    if (at % 1000 !== 0) expect(new ChangedFiles().since(file, at + 1000)).toBe(false);
  });

  it('counts as changed a file that is gone, and any file when the part has no start', () => {
    const gone = join(dir, 'gone.json');
    writeFileSync(gone, '{}');
    rmSync(gone);
    expect(new ChangedFiles().since(gone, Date.now() + 60_000)).toBe(true);
    expect(new ChangedFiles().since(file, NaN)).toBe(true);
  });
});
