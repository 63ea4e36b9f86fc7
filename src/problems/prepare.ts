/**
 * Turns a validated problem into what the runner needs: parsed types and
 * every test input and expected output decoded by its declared type.
 */
import { decodeValue } from '../values/decode.js';
import type { TypeNode, Value } from '../values/type-node.js';
import { parseType } from '../values/type-grammar.js';
import { childPath, formatJsonPath, type PathSegment } from './json-path.js';
import type { PreparedProblem, PreparedSuite, PreparedTest } from './prepared.js';
import type { Problem, TestCase } from './schema.js';
import { returnValueNames } from './validate.js';

export type PrepareResult = { ok: true; prepared: PreparedProblem } | { ok: false; errors: string[] };

/** What every test of one problem is decoded against, and where problems are collected. */
interface DecodeContext {
  file: string;
  parameterNames: string[];
  parameterTypes: TypeNode[];
  returnTypes: TypeNode[];
  /** Set when every return value is named: object-form outputs are then read by name. */
  returnNames: string[] | null;
  errors: string[];
}

/**
 * Prepares a problem that `validateProblemDocument` accepted. `warnings` are
 * the validator's; unknown-type warnings are added to a copy of them.
 * Values that do not decode are all reported, as `<file>: <path>: expected
 * <type>, got <value>`; a type the grammar does not know is not an error.
 */
export function prepareProblem(problem: Problem, file: string, warnings: string[]): PrepareResult {
  const prototype = problem.function_prototype;
  const parameters = prototype.parameters.map((p, i) =>
    declaredType(p.type, ['function_prototype', 'parameters', i, 'type']),
  );
  const returns = prototype.return_values.map((r, i) =>
    declaredType(r.type, ['function_prototype', 'return_values', i, 'type']),
  );
  const context: DecodeContext = {
    file,
    parameterNames: prototype.parameters.map((p) => p.name),
    parameterTypes: parameters.map((d) => d.type),
    returnTypes: returns.map((d) => d.type),
    returnNames: returnValueNames(prototype.return_values),
    errors: [],
  };
  const correctness = prepareSuite(
    { kind: 'correctness', promptId: null },
    problem.correctness_test_suite ?? [],
    ['correctness_test_suite'],
    context,
  );
  const samples = problem.prompts.map((prompt, p) =>
    prepareSuite(
      { kind: 'sample', promptId: prompt.prompt_id },
      prompt.sample_inputs_outputs ?? [],
      ['prompts', p, 'sample_inputs_outputs'],
      context,
    ),
  );
  if (context.errors.length > 0) return { ok: false, errors: context.errors };
  return {
    ok: true,
    prepared: {
      file,
      problem,
      id: problem.identifier,
      functionName: prototype.function_name,
      parameterNames: context.parameterNames,
      parameterTypes: context.parameterTypes,
      returnType: combinedReturnType(context.returnTypes),
      correctness,
      samples,
      warnings: [...warnings, ...unknownTypeWarnings([...parameters, ...returns], file)],
    },
  };
}

/** A type string as written, parsed, with where it was written. */
interface DeclaredType {
  text: string;
  type: TypeNode;
  path: PathSegment[];
}

function declaredType(text: string, path: PathSegment[]): DeclaredType {
  return { text, type: parseType(text), path };
}

/** How a call's result is compared: one type, a tuple of several, or nothing. */
export function combinedReturnType(returnTypes: readonly TypeNode[]): TypeNode {
  if (returnTypes.length === 0) return { kind: 'none' };
  if (returnTypes.length === 1 && returnTypes[0] !== undefined) return returnTypes[0];
  return { kind: 'tuple', items: [...returnTypes] };
}

function prepareSuite(
  suite: Pick<PreparedSuite, 'kind' | 'promptId'>,
  tests: readonly TestCase[],
  at: PathSegment[],
  context: DecodeContext,
): PreparedSuite {
  return {
    ...suite,
    tests: tests.map((test, index) => prepareTest(test, index, formatJsonPath([...at, index]), context)),
  };
}

function prepareTest(test: TestCase, index: number, source: string, context: DecodeContext): PreparedTest {
  const inputPath = childPath(source, 'input');
  const args = context.parameterNames.map((name, i) =>
    decodeAt(test.input[name], context.parameterTypes[i], childPath(inputPath, name), context),
  );
  const outputs = expectedEntries(test.expected_output, childPath(source, 'expected_output'), context.returnNames);
  if (outputs.length !== context.returnTypes.length) {
    // Validation rejects this; kept so a caller that skipped it gets an error, not a wrong test.
    const path = childPath(source, 'expected_output');
    const count = context.returnTypes.length;
    context.errors.push(
      `${context.file}: ${path}: expected ${count} value${count === 1 ? '' : 's'} (one per return value), got ${outputs.length}`,
    );
  }
  const decoded = outputs.map(({ path, raw }, i) => decodeAt(raw, context.returnTypes[i], path, context));
  return {
    index,
    source,
    args,
    expected: expectedValue(decoded, context.returnTypes.length),
    rawInput: test.input,
  };
}

/**
 * The expected values in return_values order with where each was written.
 * Without return value names, the object form has no other link to
 * return_values than its key order.
 */
function expectedEntries(
  output: TestCase['expected_output'],
  path: string,
  names: readonly string[] | null,
): { path: string; raw: unknown }[] {
  if (Array.isArray(output)) return output.map((raw: unknown, i) => ({ path: childPath(path, i), raw }));
  if (names !== null && names.every((name) => Object.prototype.hasOwnProperty.call(output, name))) {
    return names.map((name) => ({ path: childPath(path, name), raw: output[name] }));
  }
  return Object.entries(output).map(([key, raw]) => ({ path: childPath(path, key), raw }));
}

function expectedValue(decoded: Value[], returnCount: number): Value {
  if (returnCount === 0) return null;
  if (returnCount === 1) return decoded[0] ?? null;
  return decoded;
}

/** Decodes one value; when it does not fit, records why (the test is then never used). */
function decodeAt(raw: unknown, type: TypeNode | undefined, path: string, context: DecodeContext): Value {
  const result = decodeValue(raw, type ?? { kind: 'any' });
  if (result.ok) return result.value;
  context.errors.push(`${context.file}: ${path}: expected ${result.expected}, got ${result.got}`);
  return null;
}

/** One warning per distinct unrecognised type text, at the first place it is declared. */
function unknownTypeWarnings(declared: readonly DeclaredType[], file: string): string[] {
  const seen = new Set<string>();
  const warnings: string[] = [];
  for (const { text, type, path } of declared) {
    for (const unknown of unknownParts(type)) {
      if (seen.has(unknown)) continue;
      seen.add(unknown);
      const where = unknown === text.trim() ? '' : ` in ${JSON.stringify(text)}`;
      warnings.push(
        `${file}: ${formatJsonPath(path)}: unknown type ${JSON.stringify(unknown)}${where}, values are used as written`,
      );
    }
  }
  return warnings;
}

/** The texts of every `unknown` node inside a parsed type. */
function unknownParts(type: TypeNode): string[] {
  switch (type.kind) {
    case 'unknown':
      return [type.text];
    case 'list':
    case 'set':
      return unknownParts(type.item);
    case 'dict':
      return [...unknownParts(type.key), ...unknownParts(type.value)];
    case 'tuple':
      return [...type.items, ...(type.rest ? [type.rest] : [])].flatMap(unknownParts);
    case 'optional':
      return unknownParts(type.inner);
    case 'union':
      return type.options.flatMap(unknownParts);
    default:
      return [];
  }
}
