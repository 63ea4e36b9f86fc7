/**
 * The loader on the bad-input matrix: folders and files that are missing,
 * unreadable, empty, looping, oddly encoded, oversized or inconsistent.
 * Every bad entry is reported once with its path and the rest still loads.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProblemFile, loadProblems, ProblemDirectoryError } from '../../src/problems/load.js';
import { isInvalidProblemFile } from '../../src/problems/prepared.js';
import type { InvalidProblemFile, LoadedProblems, PreparedProblem } from '../../src/problems/prepared.js';
import { validateProblemDocument } from '../../src/problems/validate.js';

const isRoot = process.getuid?.() === 0;

/** A valid problem: add(a, b) with `tests` correctness tests. */
function problem(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    identifier: id,
    description: '',
    prompts: [],
    function_prototype: {
      function_name: 'add',
      parameters: [
        { name: 'a', type: 'int' },
        { name: 'b', type: 'int' },
      ],
      return_values: [{ type: 'int' }],
    },
    correctness_test_suite: [{ input: { a: 1, b: 2 }, expected_output: [3] }],
    optimal_solution: 'function add(a, b) { return a + b; }',
    ...overrides,
  };
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evalrun-bad-input-'));
});
afterEach(async () => {
  await chmod(root, 0o755).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

async function put(path: string, content: string | Uint8Array): Promise<string> {
  const full = join(root, path);
  await mkdir(join(full, '..'), { recursive: true });
  await writeFile(full, content);
  return full;
}

function invalidAt(loaded: LoadedProblems, file: string): InvalidProblemFile {
  const found = loaded.invalid.find((i) => i.file === file);
  if (!found) throw new Error(`${file} not invalid; invalid: ${loaded.invalid.map((i) => i.file).join(', ')}`);
  return found;
}

/** `line L, column C` of the first occurrence of `needle`, counted independently of the code under test. */
function where(text: string, needle: string): string {
  const before = text.slice(0, text.indexOf(needle)).split('\n');
  return `line ${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1}`;
}

function prepared(result: PreparedProblem | InvalidProblemFile): PreparedProblem {
  if (isInvalidProblemFile(result)) throw new Error(`invalid: ${result.errors.join('\n')}`);
  return result;
}

describe('the problem folder itself', () => {
  it('is an error naming the folder when it has no problem files, even with other files or subfolders', async () => {
    const error = await loadProblems(root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemDirectoryError);
    expect(error).toMatchObject({
      dir: root,
      reason: 'no problem files (*.json) found in it or its subfolders',
      message: `problem directory "${root}" has no problem files (*.json) in it or its subfolders`,
    });
    await put('notes.md', '# none here');
    await put('sub/.hidden.json', '{}');
    await put('node_modules/x/package.json', '{}');
    await expect(loadProblems(root)).rejects.toMatchObject({ reason: 'no problem files (*.json) found in it or its subfolders' });
  });

  it('gives a short reason for a missing folder and for a file', async () => {
    await expect(loadProblems(join(root, 'nope'))).rejects.toMatchObject({ reason: 'no such folder' });
    const file = await put('a.json', JSON.stringify(problem('a')));
    await expect(loadProblems(file)).rejects.toMatchObject({ reason: 'not a folder' });
  });

  it.skipIf(isRoot)('gives the OS reason for a folder it may not list', async () => {
    await put('a.json', JSON.stringify(problem('a')));
    await chmod(root, 0o000);
    await expect(loadProblems(root)).rejects.toMatchObject({ reason: 'cannot read folder: EACCES: permission denied' });
  });
});

describe('unreadable entries', () => {
  it('reports a .json FIFO without opening it (which would block) and a dangling link, and loads the rest', async () => {
    await put('good.json', JSON.stringify(problem('good')));
    const fifo = join(root, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const dangling = join(root, 'gone.json');
    await symlink(join(root, 'missing.json'), dangling);
    const loaded = await loadProblems(root);
    expect(loaded.problems.map((p) => p.id)).toEqual(['good']);
    expect(invalidAt(loaded, fifo).errors).toEqual([`${fifo}: cannot read file: not a regular file`]);
    expect(invalidAt(loaded, dangling).errors).toEqual([`${dangling}: cannot read file: ENOENT: no such file or directory`]);
  });

  it.skipIf(isRoot)('reports a file and a subfolder it may not read, and loads the rest', async () => {
    await put('good.json', JSON.stringify(problem('good')));
    const file = await put('locked.json', JSON.stringify(problem('locked')));
    const folder = join(root, 'closed');
    await put('closed/inner.json', JSON.stringify(problem('inner')));
    await chmod(file, 0o000);
    await chmod(folder, 0o000);
    const loaded = await loadProblems(root);
    await chmod(folder, 0o755);
    expect(loaded.problems.map((p) => p.id)).toEqual(['good']);
    expect(invalidAt(loaded, file).errors).toEqual([`${file}: cannot read file: EACCES: permission denied`]);
    expect(invalidAt(loaded, folder).errors).toEqual([`${folder}: cannot read folder: EACCES: permission denied`]);
  });
});

describe('symlinks', () => {
  it('follows links to good files and folders, and reports each loop once without following it', async () => {
    await put('a/good.json', JSON.stringify(problem('good')));
    await put('elsewhere/linked.json', JSON.stringify(problem('linked')));
    await put('shared/one.json', JSON.stringify(problem('one')));
    await symlink(join(root, 'elsewhere', 'linked.json'), join(root, 'a', 'via-link.json'));
    await symlink(join(root, 'shared'), join(root, 'a', 'shared-link'));
    await symlink('..', join(root, 'a', 'up'));
    await symlink(root, join(root, 'a', 'root'));
    await symlink('self', join(root, 'self'));
    await symlink('ping', join(root, 'pong'));
    await symlink('pong', join(root, 'ping'));

    const loaded = await loadProblems(root);
    // shared/ is reached first as a/shared-link and not walked again under its own name.
    expect(loaded.problems.map((p) => [p.file.slice(root.length + 1), p.id])).toEqual([
      ['a/good.json', 'good'],
      ['a/shared-link/one.json', 'one'],
      ['a/via-link.json', 'linked'],
    ]);
    const messages = loaded.invalid.flatMap((i) => i.errors);
    expect(messages).toEqual([
      `${join(root, 'a', 'root')}: symlink loop (leads back to ${root}), not followed`,
      `${join(root, 'a', 'up')}: symlink loop (leads back to ${root}), not followed`,
      `${join(root, 'elsewhere', 'linked.json')}: $.identifier: duplicate identifier "linked" (also in ${join(root, 'a', 'via-link.json')})`,
      `${join(root, 'ping')}: symlink loop (too many levels of symbolic links), not followed`,
      `${join(root, 'pong')}: symlink loop (too many levels of symbolic links), not followed`,
      `${join(root, 'self')}: symlink loop (too many levels of symbolic links), not followed`,
    ]);
  });

  it('names the nearest ancestor a deep loop leads back to', async () => {
    await put('x/y/good.json', JSON.stringify(problem('good')));
    await symlink(join(root, 'x'), join(root, 'x', 'y', 'back-to-x'));
    const loaded = await loadProblems(root);
    expect(loaded.problems.map((p) => p.id)).toEqual(['good']);
    expect(loaded.invalid.flatMap((i) => i.errors)).toEqual([
      `${join(root, 'x', 'y', 'back-to-x')}: symlink loop (leads back to ${join(root, 'x')}), not followed`,
    ]);
  });
});

describe('encodings', () => {
  it('accepts a UTF-8 BOM silently and UTF-16 with a warning; rejects Latin-1 with the offending byte', async () => {
    const text = JSON.stringify(problem('café'));
    const bom = await put('bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    const u16 = await put('u16.json', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(problem('u16')), 'utf16le')]));
    const latin1 = await put('latin1.json', Buffer.from(text, 'latin1'));
    const offset = Buffer.from(text, 'latin1').indexOf(0xe9);

    expect(prepared(await loadProblemFile(bom))).toMatchObject({ id: 'café', warnings: [] });
    expect(prepared(await loadProblemFile(u16)).warnings).toEqual([`${u16}: decoded as UTF-16LE: problem files should be UTF-8`]);
    expect(await loadProblemFile(latin1)).toEqual({
      file: latin1,
      id: null,
      errors: [`${latin1}: not valid UTF-8 (byte 0xE9 at offset ${offset}, line 1)`],
    });
  });
});

describe('JSON that parses but must not load', () => {
  it('rejects duplicate keys with their path, keeping the identifier for the report', async () => {
    const text = JSON.stringify(problem('dup'), null, 2).replace('"b": 2', '"b": 2,\n        "a": 5');
    const file = await put('dup.json', text);
    expect(await loadProblemFile(file)).toEqual({
      file,
      id: 'dup',
      errors: [`${file}: $.correctness_test_suite[0].input: duplicate key "a" (${where(text, '"a": 5')}; first at ${where(text, '"a": 1')})`],
    });
  });

  it('rejects 100,000 nested arrays with one message and no stack overflow', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const text = JSON.stringify(problem('deep')).replace('"a":1', `"a":${deep}`);
    const file = await put('deep.json', text);
    const result = await loadProblemFile(file);
    expect(result).toMatchObject({ id: 'deep' });
    expect((result as InvalidProblemFile).errors).toEqual([
      `${file}: $.correctness_test_suite[0].input.a[0][0][0][0]...: nested deeper than the limit of 1000 levels (line 1, column ${text.indexOf('[[') + 997})`,
    ]);
  });

  it('loads a value nested right up to the limit', async () => {
    // The document's own levels: {} [] {} {} then the value's arrays.
    const value = '['.repeat(996) + ']'.repeat(996);
    const text = JSON.stringify(
      problem('edge', { function_prototype: { function_name: 'f', parameters: [{ name: 'x', type: 'Any' }], return_values: [{ type: 'Any' }] } }),
    ).replace(
      '"correctness_test_suite":[{"input":{"a":1,"b":2},"expected_output":[3]}]',
      `"correctness_test_suite":[{"input":{"x":${value}},"expected_output":[${value}]}]`,
    );
    const file = await put('edge.json', text);
    const loaded = prepared(await loadProblemFile(file));
    let depth = 0;
    for (let v: unknown = loaded.correctness.tests[0]?.args[0]; Array.isArray(v); v = v[0]) depth++;
    expect(depth).toBe(996);
  });

  it('rejects a file over the size limit unread, and loads it with a higher limit', async () => {
    const file = await put('big.json', JSON.stringify(problem('big', { padding: 'x'.repeat(2 * 1024 * 1024) })));
    expect(await loadProblemFile(file, { maxFileBytes: 1024 * 1024 })).toEqual({
      file,
      id: null,
      errors: [`${file}: 2.0 MB is larger than the 1 MB limit for a problem file`],
    });
    expect(prepared(await loadProblemFile(file, { maxFileBytes: 3 * 1024 * 1024 })).id).toBe('big');
  });
});

describe('tests that do not fit the prototype', () => {
  it('names the test and the parameter or output that is missing, extra or miscounted', async () => {
    const file = await put(
      'mismatch.json',
      JSON.stringify(
        problem('mismatch', {
          correctness_test_suite: [
            { input: { a: 1, b: 2 }, expected_output: [3] },
            { input: { a: 1 }, expected_output: [3] },
            { input: { a: 1, b: 2, c: 3 }, expected_output: [3] },
            { input: { a: 1, b: 2 }, expected_output: [3, 4] },
            { input: { a: 1, b: 2 }, expected_output: { sum: 3, extra: 4 } },
          ],
        }),
      ),
    );
    expect(await loadProblemFile(file)).toEqual({
      file,
      id: 'mismatch',
      errors: [
        `${file}: $.correctness_test_suite[1].input: missing parameter "b"`,
        `${file}: $.correctness_test_suite[2].input: unexpected input "c" (not a parameter)`,
        `${file}: $.correctness_test_suite[3].expected_output: expected 1 value (one per return value), got 2`,
        `${file}: $.correctness_test_suite[4].expected_output: expected 1 key (one per return value), got 2`,
      ],
    });
  });
});

describe('named return values', () => {
  const divmod = (tests: unknown[], names: unknown[] = ['quotient', 'remainder']): Record<string, unknown> =>
    problem('divmod', {
      function_prototype: {
        function_name: 'divmod',
        parameters: [
          { name: 'a', type: 'int' },
          { name: 'b', type: 'int' },
        ],
        return_values: names.map((name) => ({ type: 'int', name })),
      },
      correctness_test_suite: tests,
    });

  it('reads object-form outputs by name, in any key order', async () => {
    const file = await put('named.json', JSON.stringify(divmod([{ input: { a: 7, b: 2 }, expected_output: { remainder: 1, quotient: 3 } }])));
    const loaded = prepared(await loadProblemFile(file));
    expect(loaded.correctness.tests[0]?.expected).toEqual([3, 1]);
  });

  it('reports missing and unknown output names', () => {
    const result = validateProblemDocument(
      divmod([
        { input: { a: 7, b: 2 }, expected_output: { quotient: 3 } },
        { input: { a: 7, b: 2 }, expected_output: { quotient: 3, rest: 1 } },
        { input: { a: 7, b: 2 }, expected_output: [3, 1] },
      ]),
      'd.json',
    );
    expect(result).toMatchObject({
      ok: false,
      errors: [
        'd.json: $.correctness_test_suite[0].expected_output: missing output "remainder"',
        'd.json: $.correctness_test_suite[1].expected_output: missing output "remainder"',
        'd.json: $.correctness_test_suite[1].expected_output: unexpected output "rest" (not a return value name)',
      ],
    });
  });

  it('requires distinct names, and only counts keys when not every return value is named', () => {
    expect(validateProblemDocument(divmod([], ['q', 'q']), 'd.json')).toMatchObject({
      ok: false,
      errors: ['d.json: $.function_prototype.return_values[1].name: duplicate return value name "q" (also $.function_prototype.return_values[0].name)'],
    });
    const partly = divmod([{ input: { a: 7, b: 2 }, expected_output: { x: 3, y: 1 } }]);
    const prototype = partly['function_prototype'] as { return_values: Record<string, unknown>[] };
    delete prototype.return_values[1]?.['name'];
    expect(validateProblemDocument(partly, 'd.json')).toMatchObject({ ok: true });
  });
});

describe('a problem with 100,000 tests', () => {
  it('loads every test, in order, in a few seconds', async () => {
    const tests = Array.from({ length: 100_000 }, (_, i) => ({ input: { a: i, b: 1 }, expected_output: [i + 1] }));
    const file = await put('many.json', JSON.stringify(problem('many', { correctness_test_suite: tests })));
    const started = performance.now();
    const loaded = prepared(await loadProblemFile(file));
    const ms = performance.now() - started;
    expect(loaded.correctness.tests).toHaveLength(100_000);
    expect(loaded.correctness.tests[99_999]).toMatchObject({ source: '$.correctness_test_suite[99999]', args: [99_999, 1], expected: 100_000 });
    console.log(`loaded 100,000 tests in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(15_000);
  });
});
