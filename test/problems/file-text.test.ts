import { isUtf8 } from 'node:buffer';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProblemBytes, firstInvalidUtf8, formatMiB, MAX_PROBLEM_FILE_BYTES, readProblemText } from '../../src/problems/file-text.js';
import { Rng } from '../../bench/rng.js';

const utf16le = (text: string): Buffer => Buffer.from(text, 'utf16le');
const utf16be = (text: string): Buffer => utf16le(text).swap16();

/** Root reads files whatever their mode, so permission tests cannot fail a read there. */
const isRoot = process.getuid?.() === 0;

describe('decodeProblemBytes', () => {
  it('takes UTF-8 as is and drops a UTF-8 BOM', () => {
    expect(decodeProblemBytes(Buffer.from('{"a": "é"}'))).toEqual({ ok: true, text: '{"a": "é"}', warnings: [] });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a": 1}')]);
    expect(decodeProblemBytes(bom)).toEqual({ ok: true, text: '{"a": 1}', warnings: [] });
  });

  it('names the first byte that is not UTF-8, its offset in the file and its line', () => {
    const latin1 = Buffer.from('{\n  "name": "caf\xe9"\n}', 'latin1');
    expect(decodeProblemBytes(latin1)).toEqual({ ok: false, message: 'not valid UTF-8 (byte 0xE9 at offset 16, line 2)' });
    // After a BOM the offset still counts from the start of the file.
    const afterBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('["\xff"]', 'latin1')]);
    expect(decodeProblemBytes(afterBom)).toEqual({ ok: false, message: 'not valid UTF-8 (byte 0xFF at offset 5, line 1)' });
  });

  it('decodes UTF-16 with a BOM, either byte order, with a warning', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le('{"a": "π"}')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('{"a": "π"}')]);
    expect(decodeProblemBytes(le)).toEqual({
      ok: true,
      text: '{"a": "π"}',
      warnings: ['decoded as UTF-16LE: problem files should be UTF-8'],
    });
    expect(decodeProblemBytes(be)).toEqual({
      ok: true,
      text: '{"a": "π"}',
      warnings: ['decoded as UTF-16BE: problem files should be UTF-8'],
    });
  });

  it('recognises UTF-16 without a BOM by the zero bytes around the first ASCII characters', () => {
    expect(decodeProblemBytes(utf16le('{"a": 1}'))).toMatchObject({
      ok: true,
      text: '{"a": 1}',
      warnings: ['decoded as UTF-16LE (no byte-order mark): problem files should be UTF-8'],
    });
    expect(decodeProblemBytes(utf16be('[1]'))).toMatchObject({ ok: true, text: '[1]' });
  });

  it('rejects UTF-32 and broken UTF-16 with one clear line', () => {
    const utf32 = Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x7b, 0x00, 0x00, 0x00, 0x7d, 0x00, 0x00, 0x00]);
    expect(decodeProblemBytes(utf32)).toEqual({ ok: false, message: 'UTF-32 is not supported: save the file as UTF-8' });
    const lone = Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le('["'), Buffer.from([0x00, 0xd8]), utf16le('"]')]);
    expect(decodeProblemBytes(lone)).toEqual({
      ok: false,
      message: 'not valid UTF-16LE (unpaired surrogate or odd byte count)',
    });
  });
});

describe('firstInvalidUtf8', () => {
  it('finds overlong forms, surrogates, code points past U+10FFFF and truncated sequences', () => {
    const cases: [number[], number | null][] = [
      [[0x41, 0xc3, 0xa9], null],
      [[0xf0, 0x9f, 0x98, 0x80], null],
      [[0x41, 0xc0, 0x80], 1],
      [[0xe0, 0x80, 0x80], 0],
      [[0xed, 0xa0, 0x80], 0],
      [[0xf4, 0x90, 0x80, 0x80], 0],
      [[0x41, 0x42, 0xe2, 0x82], 2],
      [[0x80], 0],
      [[0xf5, 0x80, 0x80, 0x80], 0],
    ];
    for (const [bytes, offset] of cases) expect(firstInvalidUtf8(Uint8Array.from(bytes)), bytes.join(' ')).toBe(offset);
  });

  it('agrees with Node on which byte strings are UTF-8', () => {
    // A fixed-seed generator keeps any failure reproducible.
    const rng = new Rng(12345);
    const alphabet = [0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xa0, 0x9f, 0x90, 0x8f];
    for (let n = 0; n < 20_000; n++) {
      const bytes = Uint8Array.from({ length: rng.int(1, 6) }, () => rng.pick(alphabet));
      expect(firstInvalidUtf8(bytes) === null, Buffer.from(bytes).toString('hex')).toBe(isUtf8(bytes));
    }
  });
});

describe('readProblemText', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evalrun-file-text-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file up to the limit and refuses one past it without reading it', async () => {
    const file = join(dir, 'sized.json');
    await writeFile(file, '[' + '1,'.repeat(511) + '1]'); // 1,025 bytes
    expect(readProblemText(file, 1025)).toMatchObject({ ok: true });
    expect(readProblemText(file, 1024)).toEqual({
      ok: false,
      message: '1025 bytes is larger than the 1024 bytes limit for a problem file',
    });
    const mb = join(dir, 'three-mb.json');
    await writeFile(mb, Buffer.alloc(3 * 1024 * 1024 + 100, 0x20));
    expect(readProblemText(mb, 2 * 1024 * 1024)).toEqual({
      ok: false,
      message: '3.0 MB is larger than the 2 MB limit for a problem file',
    });
  });

  it('has a documented default limit of 32 MB', () => {
    expect(MAX_PROBLEM_FILE_BYTES).toBe(32 * 1024 * 1024);
    expect(formatMiB(MAX_PROBLEM_FILE_BYTES)).toBe('32 MB');
    expect(formatMiB(100 * 1024 * 1024 + 200_000)).toBe('100.2 MB');
  });

  it('says why a file cannot be read, without repeating its path', async () => {
    expect(readProblemText(join(dir, 'missing.json'))).toEqual({
      ok: false,
      message: 'cannot read file: ENOENT: no such file or directory',
    });
    const folder = join(dir, 'folder.json');
    await mkdir(folder);
    expect(readProblemText(folder)).toEqual({ ok: false, message: 'cannot read file: not a regular file' });
  });

  it('reads a file larger than one read chunk whole', async () => {
    const file = join(dir, 'chunks.json');
    const text = JSON.stringify(Array.from({ length: 400_000 }, (_, i) => i));
    await writeFile(file, text);
    const read = readProblemText(file);
    expect(read.ok && read.text === text).toBe(true);
  });

  it.skipIf(isRoot)('reports a file it has no permission to read', async () => {
    const file = join(dir, 'locked.json');
    await writeFile(file, '{}');
    await chmod(file, 0o000);
    expect(readProblemText(file)).toEqual({ ok: false, message: 'cannot read file: EACCES: permission denied' });
  });
});
