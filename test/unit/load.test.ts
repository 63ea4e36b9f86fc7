import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineAndColumn } from '../../src/problems/json-structure.js';
import { findJsonErrorOffset, loadProblemFile, loadProblems, loadProblemText, parseJsonText } from '../../src/problems/load.js';
import { floatTag } from '../../src/values/py-tags.js';
import { isInvalidProblemFile, type InvalidProblemFile, type LoadedProblems, type PreparedProblem } from '../../src/problems/prepared.js';

/** Fixture folders as a path relative to the cwd, the way a user would pass them. */
function fixture(name: string): string {
  return relative(process.cwd(), fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)));
}

const CORPUS = fileURLToPath(new URL('../../../shared/corpus-sample', import.meta.url));

function invalidFile(loaded: LoadedProblems, file: string): InvalidProblemFile {
  const found = loaded.invalid.find((entry) => entry.file === file);
  if (!found) throw new Error(`${file} is not among the invalid files: ${loaded.invalid.map((i) => i.file).join(', ')}`);
  return found;
}

/** A minimal valid problem document as text. */
function problemText(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    identifier: id,
    description: `problem ${id}`,
    prompts: [],
    function_prototype: { function_name: 'f', parameters: [], return_values: [] },
    correctness_test_suite: [{ input: {}, expected_output: [] }],
    optimal_solution: 'def f():\n    pass',
    ...extra,
  });
}

describe('loadProblemText: the floats JSON has no spelling for', () => {
  it("reads NaN, Infinity and -Infinity as Python's json module writes and reads them, and only outside strings", () => {
    const text = JSON.stringify({
      identifier: 'top',
      description: 'NaN and Infinity in a string stay text',
      prompts: [],
      function_prototype: { function_name: 'f', parameters: [{ name: 'xs', type: 'List[float]' }], return_values: [{ type: 'float' }] },
      correctness_test_suite: [
        { input: { xs: ['@NaN', 1.5] }, expected_output: ['@-Infinity'] },
        { input: { xs: [] }, expected_output: ['@Infinity'] },
      ],
      optimal_solution: 'def f(xs):\n    return max(xs)  # NaN, Infinity',
    }).replace(/"@(-?Infinity|NaN)"/g, '$1');
    const loaded = loadProblemText(text, 'p.json') as PreparedProblem;
    expect(isInvalidProblemFile(loaded), JSON.stringify(loaded)).toBe(false);
    const tests = loaded.correctness.tests;
    expect(tests.map((t) => t.expected)).toEqual([floatTag(-Infinity), floatTag(Infinity)]);
    expect(tests[0]!.args).toEqual([[floatTag(NaN), 1.5]]);
    expect(loaded.problem.description).toBe('NaN and Infinity in a string stay text');
    expect(loaded.problem.optimal_solution).toContain('# NaN, Infinity');
    // Anything else that is no JSON is still reported where it is.
    const broken = loadProblemText(text.replace('"prompts":[]', '"prompts":[NaNa]'), 'p.json');
    expect(isInvalidProblemFile(broken) && broken.errors[0]).toMatch(/^p\.json: not valid JSON: .*\(line 1, column \d+\)$/);
  });
});

describe('loadProblems: spec-form files', () => {
  const dir = fixture('problems-spec');

  it('loads every .json file recursively, in sorted order, with paths as given', async () => {
    const loaded = await loadProblems(dir);
    expect(loaded.invalid).toEqual([]);
    expect(loaded.problems.map((p) => p.file)).toEqual([join(dir, 'add.json'), join(dir, 'more', 'divmod.json')]);
    expect(loaded.problems.map((p) => p.id)).toEqual(['add', 'divmod']);
  });

  it('prepares the spec form: object expected outputs, suites per prompt', async () => {
    const [add, divmod] = (await loadProblems(dir)).problems;
    expect(add).toMatchObject({
      functionName: 'add',
      parameterNames: ['a', 'b'],
      parameterTypes: [{ kind: 'int' }, { kind: 'int' }],
      returnType: { kind: 'int' },
      warnings: [],
    });
    expect(add?.correctness).toEqual({
      kind: 'correctness',
      promptId: null,
      tests: [
        { index: 0, source: '$.correctness_test_suite[0]', args: [1, 2], expected: 3, input: { a: 1, b: 2 } },
        { index: 1, source: '$.correctness_test_suite[1]', args: [-1, 5], expected: 4, input: { a: -1, b: 5 } },
      ],
    });
    expect(add?.samples.map((s) => [s.kind, s.promptId, s.tests.length])).toEqual([
      ['sample', 'brief', 1],
      ['sample', 'generic', 0],
    ]);
    expect(add?.samples[0]?.tests[0]?.source).toBe('$.prompts[0].sample_inputs_outputs[0]');
    expect(add?.problem.tags).toEqual(['arithmetic', 'easy']);
    expect(divmod?.returnType).toEqual({ kind: 'tuple', items: [{ kind: 'int' }, { kind: 'int' }] });
    expect(divmod?.correctness.tests.map((t) => t.expected)).toEqual([
      [3, 1],
      [3, 0],
    ]);
  });

  it('accepts a trailing slash or ./ prefix and still reports clean relative paths', async () => {
    const loaded = await loadProblems(`./${dir}/`);
    expect(loaded.problems.map((p) => p.file)).toEqual([join(dir, 'add.json'), join(dir, 'more', 'divmod.json')]);
  });
});

describe('loadProblems: corpus-form files', () => {
  it('decodes string-encoded values, keeps unknown fields and warns about defaults', async () => {
    const dir = fixture('problems-corpus-form');
    const loaded = await loadProblems(dir);
    expect(loaded.invalid).toEqual([]);
    const [noTests, kth] = loaded.problems;
    expect(kth?.id).toBe('kth_largest');
    expect(kth?.correctness.tests.map((t) => [t.args, t.expected])).toEqual([
      [[[3, 2, 1, 5, 6, 4], 2], 5],
      [[[3, 2, 3, 1, 2, 4, 5, 5, 6], 4], 4],
    ]);
    expect(kth?.correctness.tests[0]?.input).toEqual({ nums: [3, 2, 1, 5, 6, 4], k: 2 });
    expect(kth?.samples[0]).toMatchObject({ promptId: '12', tests: [{ args: [[3, 2, 1, 5, 6, 4], 2], expected: 5 }] });
    const raw = kth?.problem as unknown as Record<string, unknown>;
    expect(raw['parent_function_prototype']).toEqual({ function_name: 'kth', parameters: [], return_values: [] });
    expect(kth?.warnings).toEqual([
      `${join(dir, 'string-encoded.json')}: $.description: missing, defaulted to ""`,
      `${join(dir, 'string-encoded.json')}: $.prompts[0].genericize: missing, defaulted to false`,
    ]);

    expect(noTests?.correctness.tests).toEqual([]);
    expect(noTests?.problem.optimal_solution).toBeNull();
    expect(noTests?.problem.additional_instructions).toBe('Handle empty strings.');
    expect(noTests?.warnings).toEqual([
      `${join(dir, 'no-tests.json')}: $.optimal_solution: no optimal solution`,
      `${join(dir, 'no-tests.json')}: $.correctness_test_suite: no correctness tests, nothing to grade`,
    ]);
  });
});

describe('loadProblems: invalid files', () => {
  const dir = fixture('problems-invalid');
  let loaded: LoadedProblems;
  beforeAll(async () => {
    loaded = await loadProblems(dir);
  });

  it('keeps loading after bad files and loads the good one (with a BOM)', () => {
    expect(loaded.problems.map((p) => p.file)).toEqual([join(dir, 'bom.json')]);
    expect(loaded.problems[0]?.id).toBe('with_bom');
    expect(loaded.invalid.map((i) => i.file)).toEqual(
      ['bad-json.json', 'bad-token.json', 'decode.json', 'empty.json', 'schema.json', 'semantic.json'].map((f) => join(dir, f)),
    );
  });

  it('reports JSON syntax errors with line and column', () => {
    const file = join(dir, 'bad-json.json');
    expect(invalidFile(loaded, file)).toEqual({
      file,
      id: null,
      errors: [`${file}: not valid JSON: Expected ',' or '}' after property value (line 4, column 3)`],
    });
    const token = join(dir, 'bad-token.json');
    expect(invalidFile(loaded, token).errors).toEqual([`${token}: not valid JSON: Unexpected token ',' (line 2, column 17)`]);
    const empty = join(dir, 'empty.json');
    expect(invalidFile(loaded, empty).errors).toEqual([`${empty}: not valid JSON: Unexpected end of JSON input (line 1, column 1)`]);
  });

  it('reports every schema error of a file', () => {
    const file = join(dir, 'schema.json');
    expect(invalidFile(loaded, file)).toEqual({
      file,
      id: 'schema_errors',
      errors: [
        `${file}: $.prompts[0]: missing required field "prompt"`,
        `${file}: $.prompts[0].genericize: expected boolean, got string`,
        `${file}: $.function_prototype.parameters[1].type: expected string, got number`,
        `${file}: $.function_prototype.return_values: expected array, got object`,
        `${file}: $.correctness_test_suite[0].expected_output: expected object or array, got number`,
        `${file}: $.tags[1]: expected string, got number`,
      ],
    });
  });

  it('reports semantic errors', () => {
    const file = join(dir, 'semantic.json');
    expect(invalidFile(loaded, file)).toEqual({
      file,
      id: 'semantic_errors',
      errors: [
        `${file}: $.function_prototype.function_name: "my-func" is not a valid JavaScript identifier`,
        `${file}: $.prompts[1].prompt_id: duplicate prompt_id "p" (also $.prompts[0].prompt_id)`,
        `${file}: $.correctness_test_suite[1].expected_output: expected 1 value (one per return value), got 2`,
        `${file}: $.correctness_test_suite[2].input: missing parameter "b"`,
        `${file}: $.correctness_test_suite[2].expected_output: expected 1 key (one per return value), got 2`,
        `${file}: $.prompts[1].sample_inputs_outputs[0].input: unexpected input "c" (not a parameter)`,
      ],
    });
  });

  it('reports values that do not decode, with their paths', () => {
    const file = join(dir, 'decode.json');
    expect(invalidFile(loaded, file)).toEqual({
      file,
      id: 'decode_errors',
      errors: [
        `${file}: $.correctness_test_suite[1].input.a: expected int, got "abc"`,
        `${file}: $.prompts[0].sample_inputs_outputs[0].expected_output[0]: expected int, got "three"`,
      ],
    });
  });
});

describe('loadProblems: duplicate identifiers', () => {
  it('keeps the first file in sorted order and rejects later ones, naming both files', async () => {
    const dir = fixture('problems-duplicates');
    const loaded = await loadProblems(dir);
    const first = join(dir, 'a', 'first.json');
    const second = join(dir, 'b', 'second.json');
    expect(loaded.problems.map((p) => p.file)).toEqual([first, join(dir, 'c.json')]);
    expect(loaded.invalid).toEqual([
      {
        file: second,
        id: 'same_id',
        errors: [`${second}: $.identifier: duplicate identifier "same_id" (also in ${first})`],
      },
    ]);
  });
});

describe('loadProblems: walking the tree', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'evalrun-load-'));
    const write = async (path: string, text: string): Promise<void> => {
      await mkdir(join(root, path, '..'), { recursive: true });
      await writeFile(join(root, path), text);
    };
    await write('b.json', problemText('b'));
    await write('a/z.json', problemText('az'));
    await write('a/deeper/y.json', problemText('ay'));
    await write('a/readme.md', '# not a problem');
    await write('a-b.json', problemText('ab'));
    await write('node_modules/pkg/package.json', '{"name": "pkg"}');
    await write('.git/config.json', '{');
    await write('.hidden.json', '{');
    await symlink(join(root, 'a'), join(root, 'a', 'deeper', 'loop'));
    await symlink(join(root, 'missing-target.json'), join(root, 'dangling.json'));
    await symlink(join(root, 'b.json'), join(root, 'c-link.json'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('recurses, skips node_modules and hidden entries, and enters each real directory once', async () => {
    const loaded = await loadProblems(root);
    expect(loaded.problems.map((p) => relative(root, p.file))).toEqual([join('a', 'deeper', 'y.json'), join('a', 'z.json'), 'a-b.json', 'b.json']);
    const rejected = loaded.invalid.map((entry) => [relative(root, entry.file), entry.errors.length]);
    expect(rejected).toEqual([
      // A link back to a folder being walked is reported once, not followed.
      [join('a', 'deeper', 'loop'), 1],
      ['c-link.json', 1], // same content as b.json, so a duplicate identifier
      ['dangling.json', 1],
    ]);
  });

  it('reports an unreadable file with the OS reason', async () => {
    const file = join(root, 'dangling.json');
    expect(await loadProblemFile(file)).toEqual({
      file,
      id: null,
      errors: [`${file}: cannot read file: ENOENT: no such file or directory`],
    });
  });

  it('throws, naming the directory, when it is missing or not a directory', async () => {
    await expect(loadProblems(join(root, 'nope'))).rejects.toThrow(
      `problem directory "${join(root, 'nope')}" cannot be used: ENOENT: no such file or directory`,
    );
    await expect(loadProblems(join(root, 'b.json'))).rejects.toThrow(`problem directory "${join(root, 'b.json')}" is not a directory`);
  });
});

describe('loadProblemFile', () => {
  it('returns a prepared problem or an invalid file', async () => {
    const good = await loadProblemFile(join(fixture('problems-spec'), 'add.json'));
    const bad = await loadProblemFile(join(fixture('problems-invalid'), 'empty.json'));
    expect(isInvalidProblemFile(good)).toBe(false);
    expect(isInvalidProblemFile(bad)).toBe(true);
  });
});

describe('parseJsonText', () => {
  it('strips a BOM and parses', () => {
    expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('locates errors V8 gives no position for', () => {
    expect(parseJsonText('{\n  "a": tru\n}')).toEqual({ ok: false, message: "Unexpected token '\\n' (line 2, column 11)" });
    expect(parseJsonText('[1, 2,]')).toEqual({ ok: false, message: "Unexpected token ']' (line 1, column 7)" });
  });

  it('finds the first offending character like JSON.parse does', () => {
    const cases: [string, number | null][] = [
      ['{"a": [1, 2, {"b": null}], "c": "x\\u00e9"}', null],
      ['{"a": }', 6],
      ['{"a" 1}', 5],
      ['[1 2]', 3],
      ['"\\x"', 2],
      ['"a\nb"', 2],
      ['-', 1],
      ['{"a": 01}', 7],
      ['[] x', 3],
      ['', 0],
    ];
    for (const [text, offset] of cases) expect(findJsonErrorOffset(text), text).toBe(offset);
  });

  it('counts lines and columns from 1', () => {
    expect(lineAndColumn('ab\ncd\r\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd\r\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('ab\ncd\r\nef', 8)).toEqual({ line: 3, column: 2 });
  });
});

describe.skipIf(!existsSync(CORPUS))('loadProblems: the shared corpus sample', () => {
  const expected = [
    // folder, problems, correctness tests, prompts, sample tests, with optimal_solution
    ['basic', 5, 10, 10, 20, 0],
    ['bugfixing', 5, 10, 10, 20, 5],
    ['memory', 20, 51, 20, 20, 20],
  ] as const;

  it.each(expected)('loads every %s problem as valid', async (folder, count, tests, prompts, samples, optimal) => {
    const dir = relative(process.cwd(), join(CORPUS, folder, 'problems'));
    const loaded = await loadProblems(dir);
    expect(loaded.invalid).toEqual([]);
    const problems = loaded.problems;
    expect(problems).toHaveLength(count);
    expect(problems.every((p) => p.file.startsWith(dir))).toBe(true);
    expect(problems.reduce((n, p) => n + p.correctness.tests.length, 0)).toBe(tests);
    expect(problems.reduce((n, p) => n + p.samples.length, 0)).toBe(prompts);
    expect(problems.reduce((n, p) => n + p.samples.reduce((m, s) => m + s.tests.length, 0), 0)).toBe(samples);
    expect(problems.filter((p) => typeof p.problem.optimal_solution === 'string')).toHaveLength(optimal);
  });

  it('loads 30 valid problems in all, decoding the string-encoded values', async () => {
    let total = 0;
    for (const [folder] of expected) total += (await loadProblems(join(CORPUS, folder, 'problems'))).problems.length;
    expect(total).toBe(30);
    const memory = await loadProblems(join(CORPUS, 'memory', 'problems'));
    const water = memory.problems.find((p) => p.id === 'container_with_most_water');
    expect(water?.correctness.tests[0]).toMatchObject({ args: [[1, 8, 6, 2, 5, 4, 8, 3, 7]], expected: 49 });
    const duplicate = memory.problems.find((p) => p.id === 'contains_duplicate');
    expect(duplicate?.correctness.tests.map((t) => t.expected)).toEqual([true, false, true]);
    expect(duplicate?.warnings.some((w) => w.endsWith('$.prompts[0].genericize: missing, defaulted to false'))).toBe(true);
  });
});
