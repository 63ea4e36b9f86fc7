import { describe, expect, it } from 'vitest';
import { combinedReturnType, prepareProblem } from '../../src/problems/prepare.js';
import type { PreparedProblem } from '../../src/problems/prepared.js';
import type { Problem } from '../../src/problems/schema.js';
import { validateProblemDocument } from '../../src/problems/validate.js';

const FILE = 'problems/p.json';

interface Shape {
  parameters: [name: string, type: string][];
  returns: string[];
  tests?: { input: Record<string, unknown>; expected_output: Record<string, unknown> | unknown[] }[];
  samples?: { input: Record<string, unknown>; expected_output: Record<string, unknown> | unknown[] }[];
}

/** A validated problem with the given prototype and tests. */
function problemOf(shape: Shape): Problem {
  const doc = {
    identifier: 'p',
    description: 'd',
    prompts: [
      { prompt_id: 'first', prompt: 'x', genericize: false, sample_inputs_outputs: shape.samples ?? [] },
      { prompt_id: 'second', prompt: 'y', genericize: true, sample_inputs_outputs: [] },
    ],
    function_prototype: {
      function_name: 'f',
      parameters: shape.parameters.map(([name, type]) => ({ name, type })),
      return_values: shape.returns.map((type) => ({ type })),
    },
    correctness_test_suite: shape.tests ?? [],
    optimal_solution: 'def f(): pass',
  };
  const validated = validateProblemDocument(doc, FILE);
  if (!validated.ok) throw new Error(validated.errors.join('\n'));
  return validated.problem;
}

function prepared(shape: Shape, warnings: string[] = []): PreparedProblem {
  const result = prepareProblem(problemOf(shape), FILE, warnings);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.prepared;
}

function errorsOf(shape: Shape): string[] {
  const result = prepareProblem(problemOf(shape), FILE, []);
  if (result.ok) throw new Error('expected decoding errors');
  return result.errors;
}

describe('prepareProblem', () => {
  it('describes the function: name, parameters, parsed types', () => {
    const p = prepared({
      parameters: [
        ['xs', 'List[int]'],
        ['k', 'int'],
      ],
      returns: ['Dict[str, int]'],
    });
    expect(p).toMatchObject({
      file: FILE,
      id: 'p',
      functionName: 'f',
      parameterNames: ['xs', 'k'],
      parameterTypes: [{ kind: 'list', item: { kind: 'int' } }, { kind: 'int' }],
      returnType: { kind: 'dict', key: { kind: 'str' }, value: { kind: 'int' } },
    });
    expect(p.problem.identifier).toBe('p');
  });

  it('decodes inputs in parameter order, whatever the key order of the test', () => {
    const p = prepared({
      parameters: [
        ['a', 'int'],
        ['b', 'str'],
      ],
      returns: ['int'],
      tests: [{ input: { b: 'x', a: 1 }, expected_output: [1] }],
    });
    expect(p.correctness.tests).toEqual([{ index: 0, source: '$.correctness_test_suite[0]', args: [1, 'x'], expected: 1, input: { a: 1, b: 'x' } }]);
    // Records show the input in parameter order, whatever order the file wrote it in.
    expect(Object.keys(p.correctness.tests[0]!.input)).toEqual(['a', 'b']);
  });

  it('decodes string-encoded values by their declared types', () => {
    const p = prepared({
      parameters: [
        ['nums', 'List[int]'],
        ['k', 'int'],
      ],
      returns: ['bool'],
      tests: [{ input: { nums: '[1, 2, 3]', k: '7' }, expected_output: ['True'] }],
    });
    expect(p.correctness.tests[0]).toMatchObject({ args: [[1, 2, 3], 7], expected: true });
    // The input records show is what the candidate gets, not the file's text.
    expect(p.correctness.tests[0]?.input).toEqual({ nums: [1, 2, 3], k: 7 });
  });

  it('gives the value for one return value, an array for several, null for none', () => {
    const one = prepared({ parameters: [], returns: ['int'], tests: [{ input: {}, expected_output: { result: 5 } }] });
    expect(one.correctness.tests[0]?.expected).toBe(5);

    const two = prepared({
      parameters: [],
      returns: ['int', 'str'],
      tests: [
        { input: {}, expected_output: [1, 'a'] },
        { input: {}, expected_output: { quotient: 2, remainder: 'b' } },
      ],
    });
    expect(two.correctness.tests.map((t) => t.expected)).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(two.returnType).toEqual({ kind: 'tuple', items: [{ kind: 'int' }, { kind: 'str' }] });

    const none = prepared({ parameters: [], returns: [], tests: [{ input: {}, expected_output: [] }] });
    expect(none.correctness.tests[0]?.expected).toBeNull();
    expect(none.returnType).toEqual({ kind: 'none' });
  });

  it('uses the object form in key order, decoding each key by the matching return type', () => {
    const p = prepared({
      parameters: [],
      returns: ['str', 'int'],
      tests: [{ input: {}, expected_output: { name: 'x', count: '3' } }],
    });
    expect(p.correctness.tests[0]?.expected).toEqual(['x', 3]);
  });

  it('builds a correctness suite and one sample suite per prompt', () => {
    const p = prepared({
      parameters: [['a', 'int']],
      returns: ['int'],
      tests: [{ input: { a: 1 }, expected_output: [1] }],
      samples: [
        { input: { a: 2 }, expected_output: [2] },
        { input: { a: 3 }, expected_output: [3] },
      ],
    });
    expect(p.correctness).toMatchObject({ kind: 'correctness', promptId: null });
    expect(p.samples.map((s) => ({ kind: s.kind, promptId: s.promptId, tests: s.tests.length }))).toEqual([
      { kind: 'sample', promptId: 'first', tests: 2 },
      { kind: 'sample', promptId: 'second', tests: 0 },
    ]);
    expect(p.samples[0]?.tests[1]).toMatchObject({
      index: 1,
      source: '$.prompts[0].sample_inputs_outputs[1]',
      args: [3],
      expected: 3,
    });
  });

  it('reports every value that does not decode, with its path', () => {
    expect(
      errorsOf({
        parameters: [
          ['a', 'int'],
          ['odd key', 'List[int]'],
        ],
        returns: ['int'],
        tests: [
          { input: { a: 1, 'odd key': [] }, expected_output: [1] },
          { input: { a: 'abc', 'odd key': [1] }, expected_output: { result: 'x' } },
        ],
        samples: [{ input: { a: 2, 'odd key': 'nope' }, expected_output: [2] }],
      }),
    ).toEqual([
      'problems/p.json: $.correctness_test_suite[1].input.a: expected int, got "abc"',
      'problems/p.json: $.correctness_test_suite[1].expected_output.result: expected int, got "x"',
      'problems/p.json: $.prompts[0].sample_inputs_outputs[0].input["odd key"]: expected List[int], got "nope"',
    ]);
  });

  it('names the place of a bad expected value in either output form', () => {
    expect(
      errorsOf({
        parameters: [],
        returns: ['int', 'List[int]'],
        tests: [
          { input: {}, expected_output: [1, [2, 'x']] },
          { input: {}, expected_output: { 'the count': 'n', items: [] } },
        ],
      }),
    ).toEqual([
      'problems/p.json: $.correctness_test_suite[0].expected_output[1]: expected int at [1], got "x"',
      'problems/p.json: $.correctness_test_suite[1].expected_output["the count"]: expected int, got "n"',
    ]);
  });

  it('accepts values of an unknown type as written and warns once per type', () => {
    const p = prepared(
      {
        parameters: [
          ['root', 'TreeNode'],
          ['other', 'Optional[TreeNode]'],
          ['w', 'List[Widget]'],
        ],
        returns: ['TreeNode'],
        tests: [{ input: { root: { val: 1 }, other: null, w: ['x'] }, expected_output: [[1, 2]] }],
      },
      ['earlier warning'],
    );
    expect(p.correctness.tests[0]).toMatchObject({ args: [{ val: 1 }, null, ['x']], expected: [1, 2] });
    expect(p.warnings).toEqual([
      'earlier warning',
      'problems/p.json: $.function_prototype.parameters[0].type: unknown type "TreeNode", values are used as written',
      'problems/p.json: $.function_prototype.parameters[2].type: unknown type "Widget" in "List[Widget]", values are used as written',
    ]);
  });

  it('reports an arity mismatch itself when given an unvalidated problem', () => {
    const problem = problemOf({ parameters: [], returns: ['int'], tests: [{ input: {}, expected_output: [1] }] });
    problem.correctness_test_suite = [{ input: {}, expected_output: [1, 2] }];
    expect(prepareProblem(problem, FILE, [])).toEqual({
      ok: false,
      errors: ['problems/p.json: $.correctness_test_suite[0].expected_output: expected 1 value (one per return value), got 2'],
    });
  });

  it('does not modify the warnings it was given', () => {
    const given = ['a'];
    prepared({ parameters: [['x', 'Mystery']], returns: [] }, given);
    expect(given).toEqual(['a']);
  });
});

describe('combinedReturnType', () => {
  it('is none, the single type, or a tuple', () => {
    expect(combinedReturnType([])).toEqual({ kind: 'none' });
    expect(combinedReturnType([{ kind: 'str' }])).toEqual({ kind: 'str' });
    expect(combinedReturnType([{ kind: 'str' }, { kind: 'none' }])).toEqual({
      kind: 'tuple',
      items: [{ kind: 'str' }, { kind: 'none' }],
    });
  });
});
