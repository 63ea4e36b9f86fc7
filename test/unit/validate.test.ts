import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { childPath, formatJsonPath, formatJsonPointer, jsonPointerToSegments, renderPathSegment } from '../../src/problems/json-path.js';
import { ProblemDefaultsSchema } from '../../src/problems/schema.js';
import { validateProblemDocument } from '../../src/problems/validate.js';

const FILE = 'problems/x.json';

/** A minimal valid document in the spec's form; tests override parts of it. */
function specDoc(): Record<string, unknown> {
  return {
    identifier: 'add',
    description: 'Add two numbers.',
    prompts: [
      {
        prompt_id: 'brief',
        prompt: 'Write add.',
        genericize: false,
        sample_inputs_outputs: [{ input: { a: 1, b: 2 }, expected_output: { sum: 3 } }],
      },
    ],
    function_prototype: {
      function_name: 'add',
      parameters: [
        { name: 'a', type: 'int' },
        { name: 'b', type: 'int' },
      ],
      return_values: [{ type: 'int' }],
    },
    correctness_test_suite: [
      { input: { a: 1, b: 2 }, expected_output: { sum: 3 } },
      { input: { a: 2, b: 2 }, expected_output: [4] },
    ],
    optimal_solution: 'def add(a, b):\n    return a + b',
  };
}

function errorsOf(doc: unknown): string[] {
  const result = validateProblemDocument(doc, FILE);
  if (result.ok) throw new Error('expected the document to be invalid');
  return result.errors;
}

function validOf(doc: unknown) {
  const result = validateProblemDocument(doc, FILE);
  if (!result.ok) throw new Error(`expected a valid document, got:\n${result.errors.join('\n')}`);
  return result;
}

/** Deep-ish update helper: `at(doc, 'function_prototype')` returns the nested object to edit. */
function at(doc: Record<string, unknown>, ...keys: (string | number)[]): Record<string, unknown> {
  let node: unknown = doc;
  for (const key of keys) node = (node as Record<string | number, unknown>)[key];
  return node as Record<string, unknown>;
}

describe('json paths', () => {
  it('renders segments with dots, indices and quoted odd keys', () => {
    expect(formatJsonPath([])).toBe('$');
    expect(formatJsonPath(['function_prototype', 'parameters', 1, 'type'])).toBe('$.function_prototype.parameters[1].type');
    expect(formatJsonPath(['odd key'])).toBe('$["odd key"]');
    expect(formatJsonPath(['input', '1'])).toBe('$.input["1"]');
    expect(formatJsonPath(['say "hi"'])).toBe('$["say \\"hi\\""]');
    expect(childPath('$.a', 'b', 0)).toBe('$.a.b[0]');
  });

  it('writes after a dot exactly the keys that are ASCII identifiers', () => {
    const plain = ['a', 'Z', '_', '$', 'a1', '_9', '$x$', 'snake_case', 'camelCase'];
    const odd = ['', '1', '1a', '-', 'a-b', 'a b', 'é', 'a.b', 'a\n', '[0]', 'ab\u0000'];
    for (const key of plain) expect(renderPathSegment(key), key).toBe(`.${key}`);
    for (const key of odd) expect(renderPathSegment(key), key).toBe(`[${JSON.stringify(key)}]`);
    expect([0, 7, 123].map(renderPathSegment)).toEqual(['[0]', '[7]', '[123]']);
    expect(childPath('$.a')).toBe('$.a');
  });

  it('converts JSON pointers, unescaping ~0 and ~1', () => {
    expect(formatJsonPointer('')).toBe('$');
    expect(formatJsonPointer('/function_prototype/parameters/1/type')).toBe('$.function_prototype.parameters[1].type');
    expect(jsonPointerToSegments('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
    expect(formatJsonPointer('/odd key/0')).toBe('$["odd key"][0]');
  });

  it('uses the document to tell numeric keys from indices', () => {
    const doc = { input: { '1': 'x' }, list: ['y'] };
    expect(formatJsonPointer('/input/1', doc)).toBe('$.input["1"]');
    expect(formatJsonPointer('/list/0', doc)).toBe('$.list[0]');
  });
});

describe('validateProblemDocument: valid documents', () => {
  it('accepts the spec form and applies every default', () => {
    const { problem, warnings } = validOf(specDoc());
    expect(problem.correctness_test_suite).toHaveLength(2);
    expect(problem.additional_instructions).toBeNull();
    expect(problem.tags).toBeNull();
    expect(problem.prompts[0]?.input_code).toBeNull();
    expect(warnings).toEqual([]);
  });

  it('defaults missing optional fields and warns about the lenient ones', () => {
    const doc = specDoc();
    delete doc['description'];
    delete doc['correctness_test_suite'];
    delete doc['optimal_solution'];
    delete at(doc, 'prompts', 0)['genericize'];
    delete at(doc, 'prompts', 0)['sample_inputs_outputs'];
    const { problem, warnings } = validOf(doc);
    expect(problem.description).toBe('');
    expect(problem.correctness_test_suite).toEqual([]);
    expect(problem.optimal_solution).toBeNull();
    expect(problem.prompts[0]?.genericize).toBe(false);
    expect(problem.prompts[0]?.sample_inputs_outputs).toEqual([]);
    expect(warnings).toEqual([
      'problems/x.json: $.description: missing, defaulted to ""',
      'problems/x.json: $.prompts[0].genericize: missing, defaulted to false',
      'problems/x.json: $.prompts[0].sample_inputs_outputs: missing, defaulted to []',
      'problems/x.json: $.optimal_solution: no optimal solution',
      'problems/x.json: $.correctness_test_suite: no correctness tests, nothing to grade',
    ]);
  });

  it('accepts explicit nulls for the nullable optional fields', () => {
    const doc = { ...specDoc(), tags: null, additional_instructions: null, optimal_solution: null };
    expect(validOf(doc).problem.tags).toBeNull();
  });

  it('keeps unknown fields at every level', () => {
    const doc = specDoc();
    doc['parent_function_prototype'] = { function_name: 'p', parameters: [], return_values: [] };
    at(doc, 'function_prototype')['docstring'] = 'adds';
    at(doc, 'function_prototype', 'parameters', 0)['doc'] = 'left operand';
    at(doc, 'prompts', 0)['source'] = 'leetcode';
    at(doc, 'correctness_test_suite', 0)['comment'] = 'small';
    const { problem } = validOf(doc);
    const kept = problem as unknown as Record<string, unknown>;
    expect(kept['parent_function_prototype']).toEqual({ function_name: 'p', parameters: [], return_values: [] });
    expect(at(kept, 'function_prototype')['docstring']).toBe('adds');
    expect(at(kept, 'function_prototype', 'parameters', 0)['doc']).toBe('left operand');
    expect(at(kept, 'prompts', 0)['source']).toBe('leetcode');
    expect(at(kept, 'correctness_test_suite', 0)['comment']).toBe('small');
  });

  it('does not modify the document it was given', () => {
    const doc = specDoc();
    delete doc['description'];
    delete doc['correctness_test_suite'];
    delete at(doc, 'prompts', 0)['genericize'];
    delete at(doc, 'prompts', 0)['sample_inputs_outputs'];
    const before = structuredClone(doc);
    const { problem } = validOf(doc);
    expect(doc).toEqual(before);
    // Nor does changing the result change it, outside the shared test cases.
    problem.prompts[0]!.prompt = 'changed';
    problem.prompts.push({ ...problem.prompts[0]!, prompt_id: 'other' });
    problem.function_prototype.parameters[0]!.name = 'changed';
    problem.function_prototype.return_values.pop();
    problem.correctness_test_suite!.push({ input: {}, expected_output: [] });
    expect(doc).toEqual(before);
  });

  it('applies defaults exactly as Value.Default would, in the same key order', () => {
    const docs: Record<string, unknown>[] = [specDoc()];
    const sparse = specDoc();
    for (const key of ['description', 'correctness_test_suite', 'optimal_solution']) delete sparse[key];
    at(sparse, 'prompts')[1] = { prompt_id: 'second', prompt: 'y', input_code: 'def f(): pass', extra: [1] };
    sparse['tags'] = ['a', 'b'];
    sparse['zz_unknown'] = { nested: [1, { deep: true }] };
    docs.push(sparse);
    const explicit = specDoc();
    explicit['description'] = undefined;
    explicit['tags'] = null;
    at(explicit, 'prompts', 0)['genericize'] = undefined;
    docs.push(explicit);
    const protoKey = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    docs.push({ ...protoKey, ...specDoc() });
    for (const doc of docs) {
      const expected = Value.Default(ProblemDefaultsSchema, structuredClone(doc));
      const { problem } = validOf(doc);
      expect(problem).toEqual(expected);
      expect(JSON.stringify(problem)).toBe(JSON.stringify(expected));
      expect(Object.getPrototypeOf(problem)).toBe(Object.prototype);
    }
  });

  it('accepts a function with no return values and empty expected outputs', () => {
    const doc = specDoc();
    at(doc, 'function_prototype')['return_values'] = [];
    doc['correctness_test_suite'] = [
      { input: { a: 1, b: 2 }, expected_output: [] },
      { input: { a: 1, b: 2 }, expected_output: {} },
    ];
    at(doc, 'prompts', 0)['sample_inputs_outputs'] = [];
    expect(validOf(doc).problem.function_prototype.return_values).toEqual([]);
  });
});

describe('validateProblemDocument: schema errors', () => {
  it('reports a wrong type with its path, expected and found types', () => {
    const doc = specDoc();
    at(doc, 'function_prototype', 'parameters', 1)['type'] = 5;
    expect(errorsOf(doc)).toEqual(['problems/x.json: $.function_prototype.parameters[1].type: expected string, got number']);
  });

  it('reports a missing required field once, at the parent path', () => {
    const doc = specDoc();
    delete doc['identifier'];
    delete at(doc, 'function_prototype', 'parameters', 0)['name'];
    expect(errorsOf(doc)).toEqual([
      'problems/x.json: $: missing required field "identifier"',
      'problems/x.json: $.function_prototype.parameters[0]: missing required field "name"',
    ]);
  });

  it('names the JSON kind for arrays, objects, booleans and null', () => {
    const doc = specDoc();
    doc['prompts'] = {};
    at(doc, 'function_prototype')['parameters'] = null;
    at(doc, 'correctness_test_suite', 0)['input'] = [1, 2];
    doc['description'] = true;
    expect(errorsOf(doc)).toEqual([
      'problems/x.json: $.description: expected string, got boolean',
      'problems/x.json: $.prompts: expected array, got object',
      'problems/x.json: $.function_prototype.parameters: expected array, got null',
      'problems/x.json: $.correctness_test_suite[0].input: expected object, got array',
    ]);
  });

  it('reports a non-object document', () => {
    expect(errorsOf([])).toEqual(['problems/x.json: $: expected object, got array']);
    expect(errorsOf('text')).toEqual(['problems/x.json: $: expected object, got string']);
    expect(errorsOf(null)).toEqual(['problems/x.json: $: expected object, got null']);
  });

  it('reports a union mismatch as one line, without the noise of each option', () => {
    const doc = specDoc();
    at(doc, 'correctness_test_suite', 1)['expected_output'] = 4;
    doc['optimal_solution'] = 42;
    expect(errorsOf(doc)).toEqual([
      'problems/x.json: $.correctness_test_suite[1].expected_output: expected object or array, got number',
      'problems/x.json: $.optimal_solution: expected string or null, got number',
    ]);
  });

  it('looks inside the one union option that has the right kind', () => {
    const doc = { ...specDoc(), tags: ['ok', 7, false] };
    expect(errorsOf(doc)).toEqual(['problems/x.json: $.tags[1]: expected string, got number', 'problems/x.json: $.tags[2]: expected string, got boolean']);
  });

  it('rejects empty names', () => {
    const doc = { ...specDoc(), identifier: '' };
    at(doc, 'function_prototype')['function_name'] = '';
    expect(errorsOf(doc)).toEqual([
      'problems/x.json: $.identifier: expected non-empty string, got ""',
      'problems/x.json: $.function_prototype.function_name: expected non-empty string, got ""',
    ]);
  });

  it('reports every error, each once, with the identifier when there is one', () => {
    const doc = specDoc();
    at(doc, 'prompts', 0)['genericize'] = 'yes';
    delete at(doc, 'prompts', 0)['prompt'];
    at(doc, 'function_prototype')['return_values'] = [{ type: 1 }, {}];
    const result = validateProblemDocument(doc, FILE);
    expect(result).toEqual({
      ok: false,
      id: 'add',
      errors: [
        'problems/x.json: $.prompts[0]: missing required field "prompt"',
        'problems/x.json: $.prompts[0].genericize: expected boolean, got string',
        'problems/x.json: $.function_prototype.return_values[0].type: expected string, got number',
        'problems/x.json: $.function_prototype.return_values[1]: missing required field "type"',
      ],
    });
  });

  it('reports an input that is not an object, and no id when there is none', () => {
    const doc = specDoc();
    at(doc, 'correctness_test_suite', 0)['input'] = 'a b';
    delete doc['identifier'];
    expect(validateProblemDocument(doc, 'x.json')).toEqual({
      ok: false,
      id: null,
      errors: ['x.json: $: missing required field "identifier"', 'x.json: $.correctness_test_suite[0].input: expected object, got string'],
    });
  });
});

describe('validateProblemDocument: semantic errors', () => {
  it('requires the function name to be a usable JavaScript identifier', () => {
    const doc = specDoc();
    at(doc, 'function_prototype')['function_name'] = 'add-two';
    expect(errorsOf(doc)).toEqual(['problems/x.json: $.function_prototype.function_name: "add-two" is not a valid JavaScript identifier']);
    at(doc, 'function_prototype')['function_name'] = 'class';
    expect(errorsOf(doc)).toEqual(['problems/x.json: $.function_prototype.function_name: "class" is a reserved word in JavaScript']);
    at(doc, 'function_prototype')['function_name'] = '_private$1';
    expect(validateProblemDocument(doc, FILE).ok).toBe(true);
  });

  it('requires unique parameter names', () => {
    const doc = specDoc();
    at(doc, 'function_prototype', 'parameters', 1)['name'] = 'a';
    doc['correctness_test_suite'] = [];
    at(doc, 'prompts', 0)['sample_inputs_outputs'] = [];
    expect(errorsOf(doc)).toEqual([
      'problems/x.json: $.function_prototype.parameters[1].name: duplicate parameter name "a" (also $.function_prototype.parameters[0].name)',
    ]);
  });

  it('requires unique prompt ids', () => {
    const doc = specDoc();
    const prompts = doc['prompts'] as unknown[];
    prompts.push({ ...(prompts[0] as object) });
    expect(errorsOf(doc)).toEqual(['problems/x.json: $.prompts[1].prompt_id: duplicate prompt_id "brief" (also $.prompts[0].prompt_id)']);
  });

  it('requires each test input to have exactly the parameter names', () => {
    const doc = specDoc();
    doc['correctness_test_suite'] = [
      { input: { a: 1, b: 2 }, expected_output: [3] },
      { input: { a: 1, b: 2 }, expected_output: [3] },
      { input: { a: 1 }, expected_output: [3] },
      { input: { a: 1, b: 2, c: 3 }, expected_output: [3] },
    ];
    at(doc, 'prompts', 0)['sample_inputs_outputs'] = [{ input: { b: 1 }, expected_output: [1] }];
    expect(errorsOf(doc)).toEqual([
      'problems/x.json: $.correctness_test_suite[2].input: missing parameter "b"',
      'problems/x.json: $.correctness_test_suite[3].input: unexpected input "c" (not a parameter)',
      'problems/x.json: $.prompts[0].sample_inputs_outputs[0].input: missing parameter "a"',
    ]);
  });

  it('requires one expected output per return value, in either form', () => {
    const doc = specDoc();
    doc['correctness_test_suite'] = [
      { input: { a: 1, b: 2 }, expected_output: [3, 4] },
      { input: { a: 1, b: 2 }, expected_output: [] },
      { input: { a: 1, b: 2 }, expected_output: { x: 1, y: 2 } },
    ];
    expect(errorsOf(doc)).toEqual([
      'problems/x.json: $.correctness_test_suite[0].expected_output: expected 1 value (one per return value), got 2',
      'problems/x.json: $.correctness_test_suite[1].expected_output: expected 1 value (one per return value), got 0',
      'problems/x.json: $.correctness_test_suite[2].expected_output: expected 1 key (one per return value), got 2',
    ]);
    at(doc, 'function_prototype')['return_values'] = [{ type: 'int' }, { type: 'int' }];
    at(doc, 'prompts', 0)['sample_inputs_outputs'] = [];
    expect(errorsOf(doc)).toEqual(['problems/x.json: $.correctness_test_suite[1].expected_output: expected 2 values (one per return value), got 0']);
  });

  it('returns the identifier with semantic errors', () => {
    const doc = specDoc();
    at(doc, 'function_prototype')['function_name'] = '1st';
    expect(validateProblemDocument(doc, FILE)).toMatchObject({ ok: false, id: 'add' });
  });
});
