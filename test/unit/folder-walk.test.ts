/**
 * The one folder walk (src/folders/walk.ts) that finds problem files,
 * solution files and Python packages: its order, what it leaves out, and
 * what it reports instead of following. Each case runs through both the
 * asynchronous and the synchronous driver, which must agree.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative as relativeTo } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHiddenOrNodeModules, walkFolder, walkFolderSync, type WalkEntry, type WalkOptions } from '../../src/folders/walk.js';

const isRoot = process.getuid?.() === 0;

function hasMkfifo(): boolean {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const drivers: Array<[string, (root: string, options: WalkOptions) => Promise<WalkEntry[]>]> = [
  ['walkFolder', walkFolder],
  ['walkFolderSync', (root, options) => Promise.resolve(walkFolderSync(root, options))],
];

describe.each(drivers)('%s', (_name, walk) => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'evalrun-walk-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const put = (path: string, text = ''): void => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const nothingIgnored: WalkOptions = { ignore: () => false };
  /** Each entry as `kind path-inside-root`, for short expectations. */
  const shortly = (entries: WalkEntry[]): string[] => entries.map((e) => `${e.kind} ${e.parts.join('/')}`);

  it('lists names in code-unit order, depth first, each with its path and its parts', async () => {
    for (const name of ['b', 'a/z', 'a/y/x', 'a-b', 'B', 'é', '\u{1F600}', '\uFF5E', 'a.c']) put(name);
    const entries = await walk(root, nothingIgnored);
    // Code units, not code points or the locale: the emoji's leading surrogate sorts before U+FF5E.
    expect(shortly(entries)).toEqual(['file B', 'file a/y/x', 'file a/z', 'file a-b', 'file a.c', 'file b', 'file é', 'file \u{1F600}', 'file \uFF5E']);
    expect(entries[1]).toEqual({ kind: 'file', path: join(root, 'a', 'y', 'x'), parts: ['a', 'y', 'x'] });
  });

  it('names every entry join(root, ...parts) however the root is spelled', async () => {
    for (const name of ['a/b/c.json', 'top.json', 'x y/z']) put(name);
    const relative = relativeTo(process.cwd(), root);
    const spellings = [root, `${root}/`, `${root}//`, `${root}/a/..`, `${root}/./a/../`, relative, `${relative}/`, `./${relative}`, `${relative}/a/../`];
    for (const spelling of spellings) {
      const entries = await walk(spelling, nothingIgnored);
      expect(entries).toHaveLength(3);
      for (const entry of entries) expect(entry.path, spelling).toBe(join(spelling, ...entry.parts));
    }
  });

  it('leaves out ignored names wherever they stand, folders with all they hold', async () => {
    put('keep.json');
    put('.git/config.json');
    put('sub/.hidden.json');
    put('sub/node_modules/pkg/index.json');
    put('sub/kept.json');
    expect(shortly(await walk(root, { ignore: isHiddenOrNodeModules }))).toEqual(['file keep.json', 'file sub/kept.json']);
    const asked: string[] = [];
    await walk(root, { ignore: (name) => (asked.push(name), name === 'sub') });
    expect(asked.sort()).toEqual(['.git', 'config.json', 'keep.json', 'sub']);
  });

  it('follows links to files and folders', async () => {
    put('real/f.txt');
    put('elsewhere/g.txt');
    symlinkSync(join(root, 'elsewhere', 'g.txt'), join(root, 'real', 'g-link.txt'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'real', 'more'));
    const entries = await walk(root, { ignore: (name) => name === 'elsewhere' });
    expect(shortly(entries)).toEqual(['file real/f.txt', 'file real/g-link.txt', 'file real/more/g.txt']);
    expect(entries[2]?.path).toBe(join(root, 'real', 'more', 'g.txt'));
  });

  it('reports a link back to an enclosing folder, naming the nearest one, and does not follow it', async () => {
    put('x/y/f.txt');
    symlinkSync(join(root, 'x'), join(root, 'x', 'y', 'back'));
    symlinkSync('..', join(root, 'x', 'up'));
    const entries = await walk(root, nothingIgnored);
    expect(shortly(entries)).toEqual(['folder-loop x/up', 'folder-loop x/y/back', 'file x/y/f.txt']);
    expect(entries[0]).toMatchObject({ ancestor: root });
    expect(entries[1]).toMatchObject({ path: join(root, 'x', 'y', 'back'), ancestor: join(root, 'x') });
  });

  it('reports a folder reached again under another name, or walks it again when asked to', async () => {
    put('shared/f.txt');
    symlinkSync(join(root, 'shared'), join(root, 'a-link'));
    const once = await walk(root, nothingIgnored);
    expect(shortly(once)).toEqual(['file a-link/f.txt', 'folder-again shared']);
    expect(once[1]).toMatchObject({ path: join(root, 'shared') });
    expect(shortly(await walk(root, { ...nothingIgnored, reenter: true }))).toEqual(['file a-link/f.txt', 'file shared/f.txt']);
  });

  it('stops at a loop even when folders are walked again', async () => {
    put('p/f.txt');
    symlinkSync('..', join(root, 'p', 'up'));
    expect(shortly(await walk(root, { ...nothingIgnored, reenter: true }))).toEqual(['file p/f.txt', 'folder-loop p/up']);
  });

  it('reports broken links with the error of looking them up, whatever they point at', async () => {
    symlinkSync(join(root, 'missing'), join(root, 'gone'));
    symlinkSync('self', join(root, 'self'));
    const entries = await walk(root, nothingIgnored);
    expect(shortly(entries)).toEqual(['broken-link gone', 'broken-link self']);
    expect(entries.map((e) => (e.kind === 'broken-link' ? (e.error as NodeJS.ErrnoException).code : null))).toEqual(['ENOENT', 'ELOOP']);
  });

  it.skipIf(!hasMkfifo())('reports a FIFO, and a link to one, as not regular', async () => {
    execFileSync('mkfifo', [join(root, 'pipe')]);
    symlinkSync(join(root, 'pipe'), join(root, 'pipe-link'));
    expect(shortly(await walk(root, nothingIgnored))).toEqual(['not-regular pipe', 'not-regular pipe-link']);
  });

  it('leaves out folders deeper than the limit without a word', async () => {
    put('a/b/c/f.txt');
    put('a/g.txt');
    expect(shortly(await walk(root, { ...nothingIgnored, maxDepth: 2 }))).toEqual(['file a/g.txt']);
    expect(shortly(await walk(root, { ...nothingIgnored, maxDepth: 3 }))).toEqual(['file a/b/c/f.txt', 'file a/g.txt']);
  });

  it('reports a missing root as an unreadable folder with no parts', async () => {
    const missing = join(root, 'nope');
    const entries = await walk(missing, nothingIgnored);
    expect(entries).toEqual([{ kind: 'unreadable-folder', path: missing, parts: [], error: expect.objectContaining({ code: 'ENOENT' }) as unknown }]);
  });

  it.skipIf(isRoot)('reports a folder it may not list, and walks on', async () => {
    put('closed/f.txt');
    put('open/g.txt');
    chmodSync(join(root, 'closed'), 0o000);
    try {
      const entries = await walk(root, nothingIgnored);
      expect(shortly(entries)).toEqual(['unreadable-folder closed', 'file open/g.txt']);
      expect(entries[0]).toMatchObject({ error: expect.objectContaining({ code: 'EACCES' }) as unknown });
    } finally {
      chmodSync(join(root, 'closed'), 0o755);
    }
  });
});
