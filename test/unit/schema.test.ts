import { Value } from '@sinclair/typebox/value';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { PROBLEM_SCHEMA_ID, ProblemSchema, problemJsonSchema, type Problem, type Prompt, type TestCase } from '../../src/problems/schema.js';

type JsonObject = Record<string, unknown>;

/** Every subschema that describes an object, with where it sits in the document. */
function objectSchemas(node: unknown, path = '#'): { path: string; schema: JsonObject }[] {
  if (node === null || typeof node !== 'object') return [];
  const here = Array.isArray(node) ? [] : [{ path, schema: node as JsonObject }];
  const children = Object.entries(node).flatMap(([key, child]) => objectSchemas(child, `${path}/${key}`));
  return [...here.filter(({ schema }) => schema['type'] === 'object'), ...children];
}

function property(schema: JsonObject, name: string): JsonObject {
  return (schema['properties'] as Record<string, JsonObject>)[name] as JsonObject;
}

describe('problemJsonSchema', () => {
  const schema = problemJsonSchema();

  it('is a draft 2020-12 document with an id and title', () => {
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['$id']).toBe(PROBLEM_SCHEMA_ID);
    expect(schema['title']).toBe('evalrun problem definition');
    expect(schema['type']).toBe('object');
  });

  it('is plain JSON, detached from the live schema', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    (schema['properties'] as JsonObject)['identifier'] = 'changed';
    expect((problemJsonSchema()['properties'] as JsonObject)['identifier']).not.toBe('changed');
  });

  it('requires only what real files always have', () => {
    const fresh = problemJsonSchema();
    expect(fresh['required']).toEqual(['identifier', 'prompts', 'function_prototype']);
    expect(property(fresh, 'prompts')['items']).toMatchObject({ required: ['prompt_id', 'prompt'] });
    expect(property(fresh, 'function_prototype')['required']).toEqual(['function_name', 'parameters', 'return_values']);
  });

  it('states the defaults of optional fields', () => {
    const fresh = problemJsonSchema();
    expect(property(fresh, 'description')['default']).toBe('');
    expect(property(fresh, 'correctness_test_suite')['default']).toEqual([]);
    expect(property(fresh, 'optimal_solution')['default']).toBeNull();
    expect(property(fresh, 'additional_instructions')['default']).toBeNull();
    expect(property(fresh, 'tags')['default']).toBeNull();
    const prompt = property(fresh, 'prompts')['items'] as JsonObject;
    expect(property(prompt, 'genericize')['default']).toBe(false);
    expect(property(prompt, 'sample_inputs_outputs')['default']).toEqual([]);
    expect(property(prompt, 'input_code')['default']).toBeNull();
  });

  it('documents the leniency towards real files', () => {
    const fresh = problemJsonSchema();
    const prompt = property(fresh, 'prompts')['items'] as JsonObject;
    expect(property(fresh, 'description')['description']).toMatch(/accepts its absence/);
    expect(property(prompt, 'genericize')['description']).toMatch(/accepts its absence/);
    expect(property(prompt, 'sample_inputs_outputs')['description']).toMatch(/accepts its absence/);
    const testCase = property(fresh, 'correctness_test_suite')['items'] as JsonObject;
    const expected = property(testCase, 'expected_output');
    expect(expected['description']).toMatch(/array in return_values order/);
    expect((expected['anyOf'] as JsonObject[]).map((option) => option['type'])).toEqual(['object', 'array']);
  });

  it('allows unknown fields on every object and describes every named field', () => {
    const objects = objectSchemas(problemJsonSchema());
    expect(objects.length).toBeGreaterThanOrEqual(9);
    for (const { path, schema: object } of objects) {
      const isRecord = object['patternProperties'] !== undefined;
      if (!isRecord) expect(object['additionalProperties'], path).toBe(true);
      for (const [name, field] of Object.entries((object['properties'] as JsonObject | undefined) ?? {})) {
        const described = (field as JsonObject)['description'] ?? (field as JsonObject)['title'];
        expect(typeof described, `${path}/properties/${name}`).toBe('string');
      }
    }
  });
});

describe('ProblemSchema', () => {
  it('checks the spec example shape with TypeBox', () => {
    const doc = {
      identifier: 'p',
      prompts: [{ prompt_id: 'a', prompt: 'b' }],
      function_prototype: { function_name: 'f', parameters: [], return_values: [] },
    };
    expect(Value.Check(ProblemSchema, doc)).toBe(true);
    expect(Value.Check(ProblemSchema, { ...doc, prompts: 'x' })).toBe(false);
  });

  it('gives the TypeScript types from the same source', () => {
    expectTypeOf<Problem['identifier']>().toEqualTypeOf<string>();
    expectTypeOf<Problem['function_prototype']['parameters'][number]>().toMatchTypeOf<{ name: string; type: string }>();
    expectTypeOf<Prompt['genericize']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<TestCase['expected_output']>().toEqualTypeOf<Record<string, unknown> | unknown[]>();
    expectTypeOf<Problem['optimal_solution']>().toEqualTypeOf<string | null | undefined>();
  });
});
