/**
 * Validation of one parsed problem document: the TypeBox schema first, then
 * the checks a schema cannot express (names, arity, uniqueness). Every
 * message is one line, `<file>: <json path>: <what is wrong>`.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { childPath, formatJsonPath, jsonPointerToSegments } from './json-path.js';
import { ProblemSchema, type FunctionPrototype, type Problem, type Prompt, type ReturnValue, type TestCase } from './schema.js';

/** Compiled once: a valid document is checked in one pass, and only an invalid one is walked again to name its errors. */
const problemChecker = TypeCompiler.Compile(ProblemSchema);

export type ValidationResult = { ok: true; problem: Problem; warnings: string[] } | { ok: false; errors: string[]; id: string | null };

/**
 * Validates a parsed JSON document as a problem definition. On success the
 * returned `problem` is a copy with defaults applied and unknown fields kept;
 * `doc` itself is never modified. The copy shares the test cases (and the
 * values of unknown fields) with `doc`: nothing that reads a problem writes
 * to them.
 */
export function validateProblemDocument(doc: unknown, file: string): ValidationResult {
  const at = (message: string): string => `${file}: ${message}`;
  const schemaErrors = schemaErrorMessages(doc);
  if (schemaErrors.length > 0) {
    return { ok: false, errors: schemaErrors.map(at), id: identifierOf(doc) };
  }
  // The schema check passed, so the document has the Problem shape minus
  // the defaulted fields.
  const original = doc as Problem;
  const problem = withDefaults(original);
  const semanticErrors = semanticErrorMessages(problem);
  if (semanticErrors.length > 0) {
    return { ok: false, errors: semanticErrors.map(at), id: problem.identifier };
  }
  const warnings = [...defaultedFieldWarnings(original), ...contentWarnings(problem)];
  return { ok: true, problem, warnings: warnings.map(at) };
}

/** The identifier of a document that may be malformed, when it has a usable one. */
export function identifierOf(doc: unknown): string | null {
  if (!isPlainObject(doc)) return null;
  const id = doc['identifier'];
  return typeof id === 'string' && id !== '' ? id : null;
}

// ---------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------

/*
 * What `Value.Default(ProblemDefaultsSchema, structuredClone(doc))` returns,
 * written out: cloning the whole document was most of the cost of loading
 * it, yet test cases have no defaulted fields and are only ever read. Each
 * object on the way to a defaulted field is copied, and a field that is
 * missing (or `undefined`) gets its schema default; fields that were
 * missing end up after the others, in schema order, as with Value.Default.
 * Spread, not assignment, copies the objects, so that an own `__proto__`
 * key stays a key.
 */

function withDefaults(doc: Problem): Problem {
  const problem: Problem = { ...doc };
  problem.prompts = doc.prompts.map(promptWithDefaults);
  problem.function_prototype = copyPrototype(doc.function_prototype);
  if (problem.description === undefined) problem.description = '';
  problem.correctness_test_suite = doc.correctness_test_suite === undefined ? [] : doc.correctness_test_suite.slice();
  if (problem.optimal_solution === undefined) problem.optimal_solution = null;
  if (problem.additional_instructions === undefined) problem.additional_instructions = null;
  problem.tags = doc.tags === undefined || doc.tags === null ? null : doc.tags.slice();
  return problem;
}

function promptWithDefaults(doc: Prompt): Prompt {
  const prompt: Prompt = { ...doc };
  if (prompt.genericize === undefined) prompt.genericize = false;
  prompt.sample_inputs_outputs = doc.sample_inputs_outputs === undefined ? [] : doc.sample_inputs_outputs.slice();
  if (prompt.input_code === undefined) prompt.input_code = null;
  return prompt;
}

function copyPrototype(doc: FunctionPrototype): FunctionPrototype {
  return {
    ...doc,
    parameters: doc.parameters.map((parameter) => ({ ...parameter })),
    return_values: doc.return_values.map((returnValue) => ({ ...returnValue })),
  };
}

// ---------------------------------------------------------------------------
// Schema errors
// ---------------------------------------------------------------------------

/** Schema errors as `<path>: <message>`, deduplicated, in document order. */
export function schemaErrorMessages(doc: unknown): string[] {
  if (problemChecker.Check(doc)) return [];
  return [...new Set(renderErrors(Value.Errors(ProblemSchema, doc), doc))];
}

function renderErrors(iterable: Iterable<ValueError>, doc: unknown): string[] {
  const errors = [...iterable];
  // TypeBox reports a missing field twice (as missing, and as a wrong-typed
  // `undefined` at the field's own path); only the first is worth reading.
  const missing = new Set(errors.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty).map((e) => e.path));
  return errors.flatMap((error) => {
    if (error.type !== ValueErrorType.ObjectRequiredProperty && isAtOrBelowAny(error.path, missing)) return [];
    return error.type === ValueErrorType.Union ? renderUnionError(error, doc) : [renderSchemaError(error, doc)];
  });
}

/**
 * A union fails as a whole, with one error list per option. When the value
 * has the JSON type of exactly one option (an array where `array or null` is
 * allowed), the problem is inside it and that option's errors say where;
 * otherwise the value is the wrong kind altogether and one line says so.
 */
function renderUnionError(error: ValueError, doc: unknown): string[] {
  const options: unknown = error.schema['anyOf'];
  const got = describeJsonType(error.value);
  if (Array.isArray(options)) {
    const matching = options.flatMap((option: TSchema, i) => (describeSchema(option) === got ? [i] : []));
    const [only] = matching;
    const inner = matching.length === 1 && only !== undefined ? error.errors[only] : undefined;
    if (inner !== undefined) return renderErrors(inner, doc);
  }
  return [renderSchemaError(error, doc)];
}

function isAtOrBelowAny(pointer: string, roots: ReadonlySet<string>): boolean {
  for (const root of roots) {
    if (pointer === root || pointer.startsWith(root + '/')) return true;
  }
  return false;
}

function renderSchemaError(error: ValueError, doc: unknown): string {
  const segments = jsonPointerToSegments(error.path, doc);
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    const field = segments[segments.length - 1];
    return `${formatJsonPath(segments.slice(0, -1))}: missing required field ${JSON.stringify(String(field))}`;
  }
  return `${formatJsonPath(segments)}: ${describeSchemaError(error)}`;
}

function describeSchemaError(error: ValueError): string {
  const got = describeJsonType(error.value);
  switch (error.type) {
    case ValueErrorType.StringMinLength:
      return `expected non-empty string, got ""`;
    case ValueErrorType.Union:
    case ValueErrorType.String:
    case ValueErrorType.Boolean:
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
    case ValueErrorType.Null:
    case ValueErrorType.Array:
    case ValueErrorType.Object:
      return `expected ${describeSchema(error.schema)}, got ${got}`;
    default:
      // Kinds the problem schema does not use today; TypeBox's own text is
      // still better than nothing if one ever appears.
      return `${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`;
  }
}

/** What a schema accepts, in words: `string`, `object or array`. */
function describeSchema(schema: TSchema): string {
  const options: unknown = schema['anyOf'];
  if (Array.isArray(options)) {
    const names = options.map((option: TSchema) => describeSchema(option));
    return [...new Set(names)].join(' or ');
  }
  const type: unknown = schema['type'];
  return typeof type === 'string' ? type : 'a different value';
}

/** The JSON type of a value, as a reader of the file would name it. */
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'object' : typeof value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// ---------------------------------------------------------------------------
// Semantic errors
// ---------------------------------------------------------------------------

function semanticErrorMessages(problem: Problem): string[] {
  const parameterNames = problem.function_prototype.parameters.map((p) => p.name);
  const returnValues = problem.function_prototype.return_values;
  const names = returnValueNames(returnValues);
  const outputs: Outputs = { count: returnValues.length, names, uniqueNames: names && [...new Set(names)] };
  const errors = [
    ...functionNameErrors(problem.function_prototype.function_name),
    ...duplicateErrors(parameterNames, (i) => formatJsonPath(['function_prototype', 'parameters', i, 'name']), 'parameter name'),
    ...duplicateErrors(outputs.names ?? [], (i) => formatJsonPath(['function_prototype', 'return_values', i, 'name']), 'return value name'),
    ...duplicateErrors(
      problem.prompts.map((p) => p.prompt_id),
      (i) => formatJsonPath(['prompts', i, 'prompt_id']),
      'prompt_id',
    ),
  ];
  const uniqueParameterNames = [...new Set(parameterNames)];
  const suites = [
    { at: formatJsonPath(['correctness_test_suite']), tests: problem.correctness_test_suite ?? [] },
    ...problem.prompts.map((prompt, p) => ({
      at: formatJsonPath(['prompts', p, 'sample_inputs_outputs']),
      tests: prompt.sample_inputs_outputs ?? [],
    })),
  ];
  // Paths are built only for a test with something to report: nearly every
  // test has none, and rendering a path per test was much of this loop.
  for (const { at, tests } of suites) {
    for (let i = 0; i < tests.length; i++) {
      const test = tests[i];
      if (test === undefined) continue;
      if (hasExactlyKeys(test.input, uniqueParameterNames) && outputsMatch(test, outputs)) continue;
      const path = childPath(at, i);
      errors.push(...inputErrors(test, path, parameterNames), ...outputErrors(test, path, outputs));
    }
  }
  return [...new Set(errors)];
}

/** Every test in the document with the JSON path where it was written. */
export function allTests(problem: Problem): { path: string; test: TestCase }[] {
  const tests = (problem.correctness_test_suite ?? []).map((test, i) => ({
    path: formatJsonPath(['correctness_test_suite', i]),
    test,
  }));
  problem.prompts.forEach((prompt, p) => {
    (prompt.sample_inputs_outputs ?? []).forEach((test, i) => {
      tests.push({ path: formatJsonPath(['prompts', p, 'sample_inputs_outputs', i]), test });
    });
  });
  return tests;
}

/** Words that cannot name a function declaration in strict-mode JavaScript. */
const RESERVED_WORDS = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export extends ' +
    'false finally for function if implements import in instanceof interface let new null package ' +
    'private protected public return static super switch this throw true try typeof var void while ' +
    'with yield arguments eval'
  ).split(' '),
);

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

/** The solution is looked up and called by this name, so it must be a usable JS name. */
function functionNameErrors(name: string): string[] {
  const path = formatJsonPath(['function_prototype', 'function_name']);
  if (!IDENTIFIER.test(name)) return [`${path}: ${JSON.stringify(name)} is not a valid JavaScript identifier`];
  if (RESERVED_WORDS.has(name)) return [`${path}: ${JSON.stringify(name)} is a reserved word in JavaScript`];
  return [];
}

function duplicateErrors(values: readonly string[], pathOf: (index: number) => string, what: string): string[] {
  const firstIndex = new Map<string, number>();
  const errors: string[] = [];
  values.forEach((value, i) => {
    const first = firstIndex.get(value);
    if (first === undefined) firstIndex.set(value, i);
    else errors.push(`${pathOf(i)}: duplicate ${what} ${JSON.stringify(value)} (also ${pathOf(first)})`);
  });
  return errors;
}

/**
 * Whether `object`'s own keys are exactly `unique` (which has no repeats),
 * in any order: for a test input, that inputErrors has nothing to say.
 */
function hasExactlyKeys(object: Record<string, unknown>, unique: readonly string[]): boolean {
  for (const key of unique) {
    if (!Object.prototype.hasOwnProperty.call(object, key)) return false;
  }
  return Object.keys(object).length === unique.length;
}

function inputErrors(test: TestCase, testPath: string, parameterNames: readonly string[]): string[] {
  const path = childPath(testPath, 'input');
  const given = Object.keys(test.input);
  const missing = [...new Set(parameterNames)]
    .filter((name) => !Object.prototype.hasOwnProperty.call(test.input, name))
    .map((name) => `${path}: missing parameter ${JSON.stringify(name)}`);
  const unexpected = given
    .filter((name) => !parameterNames.includes(name))
    .map((name) => `${path}: unexpected input ${JSON.stringify(name)} (not a parameter)`);
  return [...missing, ...unexpected];
}

/** What every expected_output must match: how many values, and their names when all have one. */
interface Outputs {
  count: number;
  names: string[] | null;
  /** `names` without repeats. */
  uniqueNames: string[] | null;
}

/**
 * The return values' names, when every one has a name (a field the spec
 * does not have); otherwise null, and object-form outputs are only counted.
 */
export function returnValueNames(returnValues: readonly ReturnValue[]): string[] | null {
  const names = returnValues.map((r) => r.name);
  return names.every((name): name is string => typeof name === 'string') && names.length > 0 ? names : null;
}

/** Whether outputErrors has nothing to say. */
function outputsMatch(test: TestCase, outputs: Outputs): boolean {
  const output = test.expected_output;
  if (Array.isArray(output)) return output.length === outputs.count;
  if (outputs.uniqueNames !== null) return hasExactlyKeys(output, outputs.uniqueNames);
  return Object.keys(output).length === outputs.count;
}

function outputErrors(test: TestCase, testPath: string, outputs: Outputs): string[] {
  const output = test.expected_output;
  const path = childPath(testPath, 'expected_output');
  const isArray = Array.isArray(output);
  if (!isArray && outputs.names !== null) {
    const names = outputs.names;
    const missing = [...new Set(names)]
      .filter((name) => !Object.prototype.hasOwnProperty.call(output, name))
      .map((name) => `${path}: missing output ${JSON.stringify(name)}`);
    const unexpected = Object.keys(output)
      .filter((key) => !names.includes(key))
      .map((key) => `${path}: unexpected output ${JSON.stringify(key)} (not a return value name)`);
    return [...missing, ...unexpected];
  }
  const count = isArray ? output.length : Object.keys(output).length;
  if (count === outputs.count) return [];
  const unit = isArray ? 'value' : 'key';
  const expected = `${outputs.count} ${unit}${outputs.count === 1 ? '' : 's'}`;
  return [`${path}: expected ${expected} (one per return value), got ${count}`];
}

// ---------------------------------------------------------------------------
// Warnings
// ---------------------------------------------------------------------------

/** Fields the spec requires that real files omit; accepted, but worth saying. */
function defaultedFieldWarnings(original: Problem): string[] {
  const warnings: string[] = [];
  if (original.description === undefined) warnings.push(`${formatJsonPath(['description'])}: missing, defaulted to ""`);
  original.prompts.forEach((prompt, i) => {
    if (prompt.genericize === undefined) {
      warnings.push(`${formatJsonPath(['prompts', i, 'genericize'])}: missing, defaulted to false`);
    }
    if (prompt.sample_inputs_outputs === undefined) {
      warnings.push(`${formatJsonPath(['prompts', i, 'sample_inputs_outputs'])}: missing, defaulted to []`);
    }
  });
  return warnings;
}

/** States that are legal but leave less to do. */
function contentWarnings(problem: Problem): string[] {
  const warnings: string[] = [];
  if (problem.optimal_solution === null || problem.optimal_solution === undefined) {
    warnings.push(`${formatJsonPath(['optimal_solution'])}: no optimal solution`);
  }
  if ((problem.correctness_test_suite ?? []).length === 0) {
    warnings.push(`${formatJsonPath(['correctness_test_suite'])}: no correctness tests, nothing to grade`);
  }
  return warnings;
}
