/**
 * The problem-definition format as TypeBox schemas: one source for the
 * TypeScript types, the runtime validator (validate.ts) and the published
 * JSON Schema document (scripts/write-schema.ts writes `problemJsonSchema()`).
 *
 * The schemas follow docs `problem-definition.md`, with deliberate leniency
 * for what real files do; every such deviation says so in its `description`
 * so that it shows up in the generated JSON Schema as well.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Every object keeps fields the format does not name (they are data for other tools). */
const OPEN = { additionalProperties: true } as const;

/*
 * Fields that may be absent are `Type.Optional` with a `default`: validate.ts
 * fills them in with `Value.Default`, and the JSON Schema shows the default.
 */

function nullableString(description: string) {
  return Type.Optional(Type.Union([Type.String(), Type.Null()], { default: null, description }));
}

export const ParameterSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Name of the parameter; test inputs are keyed by it.' }),
    type: Type.String({
      description:
        'Python-style type of the parameter, e.g. `int`, `List[int]`, `Dict[str, int]`. ' +
        'An unrecognised type is not an error: its values are used as written.',
    }),
  },
  { ...OPEN, title: 'Parameter', description: 'One parameter of the function under test.' },
);

export const ReturnValueSchema = Type.Object(
  {
    type: Type.String({ description: 'Python-style type of the return value, as for parameters.' }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Name of the return value; not in the spec. When every return value has one, an object-form ' +
          'expected_output must use exactly these names as keys (in any order); otherwise its keys are free ' +
          'and only their order links them to return_values.',
      }),
    ),
  },
  { ...OPEN, title: 'ReturnValue', description: 'One value returned by the function under test.' },
);

export const FunctionPrototypeSchema = Type.Object(
  {
    function_name: Type.String({
      minLength: 1,
      description: 'Name of the function the solution must define; it is called by this name.',
    }),
    parameters: Type.Array(ParameterSchema, { description: 'Parameters, in call order.' }),
    return_values: Type.Array(ReturnValueSchema, {
      description: 'Return values, in order. Several return values mean the function returns a tuple; none means it returns nothing.',
    }),
  },
  { ...OPEN, title: 'FunctionPrototype', description: 'Signature of the function under test.' },
);

export const TestCaseSchema = Type.Object(
  {
    input: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Arguments keyed by parameter name; exactly the parameter names. A value may also be a string ' +
        'that encodes the typed value (`"7"` for `int`, `"[1, 2]"` for `List[int]`).',
    }),
    expected_output: Type.Union(
      [
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'Spec form: expected values keyed by output name, in return_values order.',
        }),
        Type.Array(Type.Unknown(), {
          description: 'Form used by most real files: expected values as an array in return_values order.',
        }),
      ],
      {
        description:
          'Expected return values: an object keyed by output name (as the spec shows) or an array in ' +
          'return_values order (as real files mostly do). Either way one entry per return value.',
      },
    ),
  },
  { ...OPEN, title: 'TestCase', description: 'One call of the function and the result it must give.' },
);

function promptSchema<T extends TSchema>(testCase: T) {
  return Type.Object(
    {
      prompt_id: Type.String({ minLength: 1, description: 'Identifier of the prompt, unique within the problem.' }),
      prompt: Type.String({ description: 'Text of the prompt shown to the model.' }),
      genericize: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'Whether the prototype was shown renamed (function `function`, parameters `a`, `b`, ...). ' +
            'Required by the spec; evalrun accepts its absence (as in real files) and defaults it to false.',
        }),
      ),
      sample_inputs_outputs: Type.Optional(
        Type.Array(testCase, {
          default: [],
          description: 'Example tests shown with the prompt. Required by the spec; evalrun accepts its absence and defaults it to [].',
        }),
      ),
      input_code: nullableString('Code given with the prompt, e.g. a buggy function to fix. Defaults to null.'),
    },
    { ...OPEN, title: 'Prompt', description: 'One way of asking for a solution to the problem.' },
  );
}

export const PromptSchema = promptSchema(TestCaseSchema);

function problemSchema<T extends TSchema>(testCase: T) {
  return Type.Object(
    {
      identifier: Type.String({ minLength: 1, description: 'Unique identifier of the problem.' }),
      description: Type.Optional(
        Type.String({
          default: '',
          description: 'Description of the problem. Required by the spec; evalrun accepts its absence (as in real files) and defaults it to "".',
        }),
      ),
      prompts: Type.Array(promptSchema(testCase), { description: 'Prompts for this problem.' }),
      function_prototype: FunctionPrototypeSchema,
      correctness_test_suite: Type.Optional(
        Type.Array(testCase, {
          default: [],
          description: 'Tests a solution is graded by. Defaults to [] (nothing to grade).',
        }),
      ),
      optimal_solution: nullableString('A reference solution. Defaults to null.'),
      additional_instructions: nullableString('Extra instructions for the problem. Defaults to null.'),
      tags: Type.Optional(
        Type.Union([Type.Array(Type.String()), Type.Null()], {
          default: null,
          description: 'Tags for the problem. Defaults to null.',
        }),
      ),
    },
    {
      ...OPEN,
      title: 'Problem',
      description: 'A problem definition: the function to write, the prompts that ask for it, and its tests.',
    },
  );
}

export const ProblemSchema = problemSchema(TestCaseSchema);

/**
 * The same shape with every test case left unchecked: test cases have no
 * defaulted fields. `Value.Default` with this schema is what validate.ts
 * does by hand (without copying the tests); the unit tests hold the two to
 * the same result, so a default added here and not there fails them.
 */
export const ProblemDefaultsSchema = problemSchema(Type.Unknown());

export type Parameter = Static<typeof ParameterSchema>;
export type ReturnValue = Static<typeof ReturnValueSchema>;
export type FunctionPrototype = Static<typeof FunctionPrototypeSchema>;
export type TestCase = Static<typeof TestCaseSchema>;
export type Prompt = Static<typeof PromptSchema>;
/**
 * A problem document. After `validateProblemDocument` every defaulted field
 * is present (the optional markers describe the file, not the result), and
 * unknown fields are kept on the object even though the type does not name them.
 */
export type Problem = Static<typeof ProblemSchema>;

export const PROBLEM_SCHEMA_ID = 'urn:evalrun:schema:problem-definition';

/** The JSON Schema (draft 2020-12) document for problem files, as plain JSON. */
export function problemJsonSchema(): Record<string, unknown> {
  // The round trip drops TypeBox's symbol-keyed metadata and detaches the
  // result, so callers cannot mutate the live validator schema.
  const body = JSON.parse(JSON.stringify(ProblemSchema)) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: PROBLEM_SCHEMA_ID,
    ...body,
    title: 'evalrun problem definition',
  };
}
