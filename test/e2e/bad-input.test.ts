/**
 * End-to-end: the bad-input matrix for --problems (issue 4, item 4). Each
 * case runs the built CLI on a folder made in a temp dir, with a good problem
 * beside the bad input; the good one must still pass (nothing lost), the bad
 * one must be named in one exact line, and the exit code must say which.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CandidateResult, ProblemReport, Scorecard } from '../../src/report/scorecard.js';
import { runCli, type CliRun } from './run-cli.js';

/** Root reads whatever the mode bits say, so permission cases cannot be staged there. */
const isRoot = process.getuid?.() === 0;
const MIB = 1024 * 1024;

const scratchDirs: string[] = [];
afterAll(async () => {
  for (const dir of scratchDirs) {
    await chmod(dir, 0o755).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'evalrun-bad-input-e2e-'));
  scratchDirs.push(dir);
  return dir;
}

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
    correctness_test_suite: [
      { input: { a: 1, b: 2 }, expected_output: [3] },
      { input: { a: -1, b: 1 }, expected_output: [0] },
      { input: { a: 40, b: 2 }, expected_output: [42] },
    ],
    optimal_solution: 'function add(a, b) { return a + b; }',
    ...overrides,
  };
}

const GOOD = JSON.stringify(problem('good'));

/** A problems folder holding good.json and `files` (paths relative to it). */
async function problemsFolder(files: Record<string, string | Uint8Array> = {}): Promise<string> {
  const dir = join(await scratch(), 'problems');
  await mkdir(dir);
  await writeFile(join(dir, 'good.json'), GOOD);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

interface Run extends CliRun {
  card: Scorecard | null;
  out: string;
}

async function evalrun(dir: string): Promise<Run> {
  const out = join(await scratch(), 'card.json');
  const run = await runCli(['--problems', dir, '--out', out]);
  const card = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Scorecard) : null;
  return { ...run, card, out };
}

function candidate(run: Run, id: string): CandidateResult {
  const found = run.card?.candidates.find((c) => c.problem_id === id && c.prompt_id === null);
  if (found === undefined) throw new Error(`no candidate for ${id}; stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return found;
}

function report(run: Run, file: string): ProblemReport {
  const found = run.card?.problems.find((p) => p.file === file);
  if (found === undefined) throw new Error(`${file} not in the scorecard; stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return found;
}

/** The good problem beside the bad input ran and passed: nothing was lost. */
function expectGoodPassed(run: Run): void {
  expect(candidate(run, 'good')).toMatchObject({ status: 'passed', passed: 3, total: 3 });
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

/** `file` is invalid with exactly `message`, in the scorecard and in the table's list, and the run exits 1. */
function expectInvalid(run: Run, file: string, message: string): void {
  expect(run.code).toBe(1);
  expect(report(run, file)).toMatchObject({ valid: false, errors: [message] });
  expect(run.stdout).toContain(`\n  ${message}\n`);
  expectGoodPassed(run);
}

/** `line L, column C` of the first occurrence of `needle`, counted here independently of the loader. */
function where(text: string, needle: string): string {
  const before = text.slice(0, text.indexOf(needle)).split('\n');
  return `line ${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1}`;
}

describe('bad --problems folders', () => {
  it('a missing folder: usage error, exit 2, one line', async () => {
    const dir = join(await scratch(), 'no-such-folder');
    const run = await evalrun(dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`evalrun: --problems ${dir}: no such folder\n`);
    expect(run.card).toBeNull();
  });

  it('an empty folder: usage error, exit 2, one line, no scorecard', async () => {
    const dir = join(await scratch(), 'empty');
    await mkdir(dir);
    const run = await evalrun(dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`evalrun: --problems ${dir}: no problem files (*.json) found in it or its subfolders\n`);
    expect(run.stdout).toBe('');
    expect(run.card).toBeNull();
  });

  it('a folder with no *.json file anywhere (only notes, hidden files and node_modules): same as empty', async () => {
    const dir = join(await scratch(), 'no-json');
    await mkdir(join(dir, 'sub', 'node_modules', 'pkg'), { recursive: true });
    await writeFile(join(dir, 'README.md'), '# problems go here');
    await writeFile(join(dir, 'sub', '.draft.json'), GOOD);
    await writeFile(join(dir, 'sub', 'node_modules', 'pkg', 'package.json'), '{}');
    const run = await evalrun(dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`evalrun: --problems ${dir}: no problem files (*.json) found in it or its subfolders\n`);
  });

  it.skipIf(isRoot)('a folder evalrun may not list: usage error, exit 2, one line with the OS reason', async () => {
    const dir = await problemsFolder();
    await chmod(dir, 0o000);
    const run = await evalrun(dir);
    await chmod(dir, 0o755);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`evalrun: --problems ${dir}: cannot read folder: EACCES: permission denied\n`);
  });

  it.skipIf(isRoot)('an unreadable subfolder: reported, the rest runs', async () => {
    const dir = await problemsFolder({ 'closed/inner.json': JSON.stringify(problem('inner')) });
    await chmod(join(dir, 'closed'), 0o000);
    const run = await evalrun(dir);
    await chmod(join(dir, 'closed'), 0o755);
    expectInvalid(run, join(dir, 'closed'), `${join(dir, 'closed')}: cannot read folder: EACCES: permission denied`);
  });
});

describe('unreadable problem files', () => {
  it.skipIf(isRoot)('a file without read permission: reported, the rest runs', async () => {
    const dir = await problemsFolder({ 'locked.json': JSON.stringify(problem('locked')) });
    const file = join(dir, 'locked.json');
    await chmod(file, 0o000);
    const run = await evalrun(dir);
    expectInvalid(run, file, `${file}: cannot read file: EACCES: permission denied`);
  });

  it('a *.json that is a FIFO: reported without being opened (which would hang the run)', async () => {
    const dir = await problemsFolder();
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const run = await evalrun(dir);
    expectInvalid(run, fifo, `${fifo}: cannot read file: not a regular file`);
  });

  it('a *.json symlink to a file that does not exist: reported, the rest runs', async () => {
    const dir = await problemsFolder();
    const link = join(dir, 'gone.json');
    await symlink(join(dir, 'nowhere.json'), link);
    const run = await evalrun(dir);
    expectInvalid(run, link, `${link}: cannot read file: ENOENT: no such file or directory`);
  });
});

describe('encodings', () => {
  it('UTF-8 with a BOM: accepted as is', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(problem('with_bom')))]);
    const dir = await problemsFolder({ 'bom.json': bom });
    const run = await evalrun(dir);
    expect(run.code).toBe(0);
    expect(report(run, join(dir, 'bom.json'))).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(candidate(run, 'with_bom')).toMatchObject({ status: 'passed', passed: 3 });
    expectGoodPassed(run);
  });

  it('Latin-1 bytes: invalid, naming the byte, its offset and line', async () => {
    const bytes = Buffer.from(JSON.stringify(problem('café')), 'latin1');
    const dir = await problemsFolder({ 'latin1.json': bytes });
    const file = join(dir, 'latin1.json');
    const run = await evalrun(dir);
    expectInvalid(run, file, `${file}: not valid UTF-8 (byte 0xE9 at offset ${bytes.indexOf(0xe9)}, line 1)`);
  });

  it('UTF-16 with a BOM: decoded and run, with a warning', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(problem('wide')), 'utf16le')]);
    const dir = await problemsFolder({ 'wide.json': utf16 });
    const file = join(dir, 'wide.json');
    const run = await evalrun(dir);
    expect(run.code).toBe(0);
    expect(report(run, file)).toMatchObject({
      valid: true,
      warnings: [`${file}: decoded as UTF-16LE: problem files should be UTF-8`],
    });
    expect(candidate(run, 'wide')).toMatchObject({ status: 'passed', passed: 3 });
    expectGoodPassed(run);
  });

  it('UTF-32: invalid, one clear line', async () => {
    const text = JSON.stringify(problem('utf32'));
    const utf32 = Buffer.alloc(4 + text.length * 4);
    utf32.set([0xff, 0xfe, 0x00, 0x00]);
    for (let i = 0; i < text.length; i++) utf32.writeUInt32LE(text.charCodeAt(i), 4 + i * 4);
    const dir = await problemsFolder({ 'utf32.json': utf32 });
    const file = join(dir, 'utf32.json');
    const run = await evalrun(dir);
    expectInvalid(run, file, `${file}: UTF-32 is not supported: save the file as UTF-8`);
  });
});

describe('JSON that JSON.parse accepts but a problem file must not have', () => {
  it('a duplicate key: invalid, naming the object path, the key and both lines', async () => {
    const text = JSON.stringify(problem('dup_key'), null, 2).replace('"function_name": "add",', '"function_name": "subtract",\n    "function_name": "add",');
    const dir = await problemsFolder({ 'dup.json': text });
    const file = join(dir, 'dup.json');
    const run = await evalrun(dir);
    expectInvalid(
      run,
      file,
      `${file}: $.function_prototype: duplicate key "function_name" (${where(text, '"function_name": "add"')}; first at ${where(text, '"function_name"')})`,
    );
    expect(report(run, file).problem_id).toBe('dup_key');
  });

  it('100,000 nested arrays in an input: invalid with one line, no stack overflow in the host', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const text = JSON.stringify(problem('deep')).replace('"a":1,', `"a":${deep},`);
    const dir = await problemsFolder({ 'deep.json': text });
    const file = join(dir, 'deep.json');
    const run = await evalrun(dir);
    const column = text.indexOf('[[') + 997; // the 1001st open bracket of the document
    expectInvalid(
      run,
      file,
      `${file}: $.correctness_test_suite[0].input.a[0][0][0][0]...: nested deeper than the limit of 1000 levels (line 1, column ${column})`,
    );
  });

  it('a value nested right up to the limit: loads and runs end to end', async () => {
    const value = '['.repeat(996) + ']'.repeat(996);
    const prototype = { function_name: 'same', parameters: [{ name: 'x', type: 'Any' }], return_values: [{ type: 'Any' }] };
    const text = JSON.stringify(
      problem('edge', { function_prototype: prototype, correctness_test_suite: [], optimal_solution: 'function same(x) { return x; }' }),
    ).replace('"correctness_test_suite":[]', `"correctness_test_suite":[{"input":{"x":${value}},"expected_output":[${value}]}]`);
    const dir = await problemsFolder({ 'edge.json': text });
    const run = await evalrun(dir);
    expect(run.code).toBe(0);
    expect(candidate(run, 'edge')).toMatchObject({ status: 'passed', passed: 1, total: 1 });
    expectGoodPassed(run);
  });
});

describe('size', () => {
  it('a 100 MB problem file: invalid unread, above the 32 MB limit; the rest runs', async () => {
    const dir = await problemsFolder();
    const file = join(dir, 'huge.json');
    // A valid problem padded to exactly 100 MB, written in pieces so the test never holds it twice.
    const head = Buffer.from(JSON.stringify(problem('huge', { padding: '' })).replace(/""}$/, '"'));
    const tail = Buffer.from('"}');
    const handle = await open(file, 'w');
    await handle.write(head);
    const chunk = Buffer.alloc(4 * MIB, 'x');
    let left = 100 * MIB - head.length - tail.length;
    while (left > 0) {
      const { bytesWritten } = await handle.write(chunk, 0, Math.min(left, chunk.length));
      left -= bytesWritten;
    }
    await handle.write(tail);
    await handle.close();

    const started = performance.now();
    const run = await evalrun(dir);
    const seconds = (performance.now() - started) / 1000;
    console.log(`100 MB problem file: CLI finished in ${seconds.toFixed(2)} s`);
    expectInvalid(run, file, `${file}: 100 MB is larger than the 32 MB limit for a problem file`);
    expect(seconds).toBeLessThan(30);
  });

  it('a problem with 100,000 tests: runs and reports every verdict', async () => {
    const tests = Array.from({ length: 100_000 }, (_, i) => ({ input: { a: i, b: 7 }, expected_output: [i + 7] }));
    const dir = await problemsFolder({ 'many.json': JSON.stringify(problem('many', { correctness_test_suite: tests })) });
    const started = performance.now();
    const run = await evalrun(dir);
    const seconds = (performance.now() - started) / 1000;
    console.log(`100,000 tests: CLI finished in ${seconds.toFixed(2)} s`);
    expect(run.code).toBe(0);
    const many = candidate(run, 'many');
    expect(many).toMatchObject({ status: 'passed', passed: 100_000, total: 100_000 });
    expect(many.tests).toHaveLength(100_000);
    expect(many.tests[99_999]).toMatchObject({ index: 99_999, source: '$.correctness_test_suite[99999]', status: 'pass', actual: 100_006 });
    expect(run.card?.summary).toMatchObject({ tests: 100_003, passed: 100_003, invalid_problems: 0 });
    expectGoodPassed(run);
    expect(seconds).toBeLessThan(60);
  });
});

describe('tests that do not fit the function prototype', () => {
  const withTests = (id: string, tests: unknown[]): string =>
    JSON.stringify(problem(id, { correctness_test_suite: [{ input: { a: 1, b: 2 }, expected_output: [3] }, ...tests] }));

  it('a parameter of the prototype missing from an input', async () => {
    const dir = await problemsFolder({ 'missing.json': withTests('missing_param', [{ input: { a: 1 }, expected_output: [1] }]) });
    const file = join(dir, 'missing.json');
    expectInvalid(await evalrun(dir), file, `${file}: $.correctness_test_suite[1].input: missing parameter "b"`);
  });

  it('an input key that is not a parameter', async () => {
    const dir = await problemsFolder({
      'extra.json': withTests('extra_input', [{ input: { a: 1, b: 2, c: 3 }, expected_output: [3] }]),
    });
    const file = join(dir, 'extra.json');
    expectInvalid(await evalrun(dir), file, `${file}: $.correctness_test_suite[1].input: unexpected input "c" (not a parameter)`);
  });

  it('an array expected_output of the wrong length', async () => {
    const dir = await problemsFolder({ 'arity.json': withTests('array_arity', [{ input: { a: 1, b: 2 }, expected_output: [3, 0] }]) });
    const file = join(dir, 'arity.json');
    expectInvalid(await evalrun(dir), file, `${file}: $.correctness_test_suite[1].expected_output: expected 1 value (one per return value), got 2`);
  });

  it('an object expected_output with the wrong number of keys (return values unnamed)', async () => {
    const dir = await problemsFolder({
      'keys.json': withTests('object_arity', [{ input: { a: 1, b: 2 }, expected_output: { sum: 3, carry: 0 } }]),
    });
    const file = join(dir, 'keys.json');
    expectInvalid(await evalrun(dir), file, `${file}: $.correctness_test_suite[1].expected_output: expected 1 key (one per return value), got 2`);
  });

  it('an object expected_output with a missing and an unknown name (return values named)', async () => {
    const divmod = (id: string, outputs: unknown[]): string =>
      JSON.stringify(
        problem(id, {
          function_prototype: {
            function_name: 'divmod',
            parameters: [
              { name: 'a', type: 'int' },
              { name: 'b', type: 'int' },
            ],
            return_values: [
              { name: 'quotient', type: 'int' },
              { name: 'remainder', type: 'int' },
            ],
          },
          correctness_test_suite: outputs.map((expected_output) => ({ input: { a: 7, b: 2 }, expected_output })),
          optimal_solution: 'function divmod(a, b) { return [Math.floor(a / b), a % b]; }',
        }),
      );
    const dir = await problemsFolder({
      // Keys in another order than return_values: read by name, so this passes.
      'named-ok.json': divmod('named_ok', [{ remainder: 1, quotient: 3 }]),
      'named-bad.json': divmod('named_bad', [
        { remainder: 1, quotient: 3 },
        { quotient: 3, rest: 1 },
      ]),
    });
    const file = join(dir, 'named-bad.json');
    const run = await evalrun(dir);
    expect(run.code).toBe(1);
    expect(report(run, file).errors).toEqual([
      `${file}: $.correctness_test_suite[1].expected_output: missing output "remainder"`,
      `${file}: $.correctness_test_suite[1].expected_output: unexpected output "rest" (not a return value name)`,
    ]);
    expect(candidate(run, 'named_ok')).toMatchObject({ status: 'passed', passed: 1, total: 1 });
    expect(candidate(run, 'named_ok').tests[0]?.actual).toEqual([3, 1]);
    expectGoodPassed(run);
  });
});

describe('symlinks', () => {
  it('loops are reported once each and not followed; links to good files and folders are followed', async () => {
    const base = await scratch();
    await mkdir(join(base, 'elsewhere', 'more'), { recursive: true });
    await writeFile(join(base, 'elsewhere', 'linked.json'), JSON.stringify(problem('linked_file')));
    await writeFile(join(base, 'elsewhere', 'more', 'inner.json'), JSON.stringify(problem('linked_folder')));
    const dir = await problemsFolder({ 'sub/nested.json': JSON.stringify(problem('nested')) });
    await symlink(join(base, 'elsewhere', 'linked.json'), join(dir, 'linked.json'));
    await symlink(join(base, 'elsewhere', 'more'), join(dir, 'more'));
    await symlink('..', join(dir, 'sub', 'up'));
    await symlink('self', join(dir, 'self'));

    const run = await evalrun(dir);
    expect(run.code).toBe(1);
    const up = join(dir, 'sub', 'up');
    const self = join(dir, 'self');
    expect(report(run, up).errors).toEqual([`${up}: symlink loop (leads back to ${dir}), not followed`]);
    expect(report(run, self).errors).toEqual([`${self}: symlink loop (too many levels of symbolic links), not followed`]);
    expect(run.card?.problems.filter((p) => !p.valid)).toHaveLength(2);
    for (const id of ['linked_file', 'linked_folder', 'nested']) {
      expect(candidate(run, id)).toMatchObject({ status: 'passed', passed: 3 });
    }
    expect(report(run, join(dir, 'more', 'inner.json')).valid).toBe(true);
    expectGoodPassed(run);
  });
});

describe('flags given wrong', () => {
  it('a one-value flag given twice, a word for a number, an empty --out, an unknown flag: exit 2, one line saying so', async () => {
    const cases: Array<[string[], string]> = [
      [['--problems', 'problems', '--out', 'a.json', '--out', 'b.json'], 'evalrun: --out was given more than once; give it once'],
      [['--problems', 'problems', '--problems', 'problems'], 'evalrun: --problems was given more than once; give it once'],
      [['--problems', 'problems', '--float-tolerance', '0.1', '--float-tolerance', '0.2'], 'evalrun: --float-tolerance was given more than once; give it once'],
      [['--problems', 'problems', '--concurrency', 'abc'], 'evalrun: --concurrency must be a number, got "abc"'],
      [['--problems', 'problems', '--memory=12abc'], 'evalrun: --memory must be a number, got "12abc"'],
      [['--problems', 'problems', '--out', ''], 'evalrun: --out needs a file name'],
      [['--problems', 'problems', '--bogus-flag'], 'evalrun: Unknown argument: bogus-flag'],
      [['report', 'x.jsonl', '--out', 'a', '--out', 'b'], 'evalrun report: --out was given more than once; give it once'],
      [['merge', 'a.jsonl', 'b.jsonl', '--out', ''], 'evalrun merge: --out needs a file name'],
      // yargs itself would add these two up.
      [['serve', '--problems', 'problems', '--concurrency', '2', '--concurrency', '1'], 'evalrun serve: --concurrency was given more than once; give it once'],
    ];
    for (const [args, line] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))]);
    }
  });
});

describe('where results are written', () => {
  it('merge makes its results folder, as the main command does; report exits 3 when it cannot write --out', async () => {
    const dir = await scratch();
    await mkdir(join(dir, 'problems'));
    await writeFile(join(dir, 'problems', 'good.json'), GOOD);
    for (const i of [1, 2]) {
      const r = await runCli(['--problems', 'problems', '--shard', `${i}/2`, '--out', `shard${i}.json`, '--no-progress'], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
    }
    const merged = await runCli(['merge', 'shard1.jsonl', 'shard2.jsonl'], { cwd: dir });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/results\/.*\.merged\.json/);
    const nested = await runCli(['merge', 'shard1.jsonl', 'shard2.jsonl', '--out', 'new/folder/m.json'], { cwd: dir });
    expect(nested.code, nested.stderr).toBe(0);
    expect(existsSync(join(dir, 'new', 'folder', 'm.json'))).toBe(true);
    await writeFile(join(dir, 'a-file'), '');
    const report = await runCli(['report', 'shard1.jsonl', '--out', 'a-file/x.html'], { cwd: dir });
    expect(report.code).toBe(3);
    expect(report.stderr.trim().split('\n')).toHaveLength(1);
  });
});
