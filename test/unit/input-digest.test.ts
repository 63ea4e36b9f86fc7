import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestDifferences, digestFolder, pathInside, type WalkedFile } from '../../src/runner/input-digest.js';

function folder(files: Record<string, string>): { dir: string; walked: WalkedFile[] } {
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-digest-'));
  const walked: WalkedFile[] = [];
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, ...name.split('/'));
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    walked.push({ path, relative: pathInside(dir, path) });
  }
  return { dir, walked };
}

describe('input digest', () => {
  const files = { 'a.json': '{"x":1}', 'sub/b.json': '{"y":2}', 'sub/deeper/c.json': 'é' };

  it('is the same for the same contents in another place, listed in another order', async () => {
    const one = folder(files);
    const two = folder(files);
    expect(one.dir).not.toBe(two.dir);
    expect(two.walked.map((f) => f.relative)).toEqual(['a.json', 'sub/b.json', 'sub/deeper/c.json']);
    expect(await digestFolder([...two.walked].reverse())).toEqual(await digestFolder(one.walked));
  });

  it('changes with a byte of a file, a file name, a missing file, or the root name', async () => {
    const base = await digestFolder(folder(files).walked);
    const changed = await digestFolder(folder({ ...files, 'a.json': '{"x":2}' }).walked);
    const renamed = await digestFolder(folder({ 'a2.json': files['a.json'], 'sub/b.json': files['sub/b.json'], 'sub/deeper/c.json': 'é' }).walked);
    const fewer = await digestFolder(folder({ 'a.json': files['a.json'], 'sub/b.json': files['sub/b.json'] }).walked);
    const unreadable = await digestFolder([...folder(files).walked, { path: null, relative: 'loop' }]);
    const rooted = await digestFolder(folder(files).walked, 'model-x');
    const shas = [base, changed, renamed, fewer, unreadable, rooted].map((d) => d.sha256);
    expect(new Set(shas).size).toBe(shas.length);
    expect(base.files).toBe(3);
    expect(digestDifferences({ problems: base, solutions: null }, { problems: changed, solutions: null })).toHaveLength(1);
    expect(digestDifferences({ problems: base, solutions: null }, { problems: base, solutions: null })).toEqual([]);
  });
});
