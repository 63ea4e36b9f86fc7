/**
 * The body of `POST /v1/grade`: its schema, and what the service answers
 * when a body does not fit it. Each thing wrong is one clause that names
 * where it is, in the path style of evalrun's other messages
 * (`candidates[0].code`), and what was expected there: a reader fixes a
 * request from the message alone, without the schema at hand.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError, type ValueErrorIterator } from '@sinclair/typebox/errors';
import { LIMIT_BOUNDS } from '../defaults.js';
import { jsonPointerToSegments, renderPathSegment } from '../problems/json-path.js';

/**
 * `expected` on a schema is the words a message uses for it, where the
 * ones made from its type would say too little.
 */
const Tolerance = Type.Union(
  [Type.Number({ minimum: 0 }), Type.Object({ relative: Type.Number({ minimum: 0 }), absolute: Type.Number({ minimum: 0 }) }, { additionalProperties: false })],
  { expected: 'a number of at least 0, or {"relative": number, "absolute": number}' },
);

const Candidate = Type.Object(
  {
    id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    code: Type.String(),
    language: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    prompt_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false, expected: 'an object with "code"' },
);

export const GradeBody = Type.Object(
  {
    problem_id: Type.Optional(Type.String({ expected: "a string (a loaded problem's id)" })),
    problem: Type.Optional(Type.Object({}, { additionalProperties: true, expected: 'a problem object (the problem-definition format)' })),
    candidates: Type.Array(Candidate, { expected: 'a list of candidates, each an object with "code"' }),
    options: Type.Optional(
      Type.Object(
        {
          timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_BOUNDS.timeoutMs })),
          memory_mb: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_BOUNDS.memoryMb })),
          float_tolerance: Type.Optional(Tolerance),
          strict_types: Type.Optional(Type.Boolean()),
          stop_on_first_failure: Type.Optional(Type.Boolean()),
          extract_code: Type.Optional(Type.Boolean()),
          grade: Type.Optional(
            Type.Union([Type.String(), Type.Array(Type.String())], { expected: 'a list of grader names, or one comma-separated string of them' }),
          ),
          repetitions: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, expected: 'a JSON object' },
);

export type GradeRequest = Static<typeof GradeBody>;

const checker = TypeCompiler.Compile(GradeBody);

/** Past this many, the rest are counted rather than listed, to keep a reply to a large batch one short line. */
const LISTED = 3;

/** Null when `body` is a grading request; else why not, one clause per thing wrong. */
export function gradeRequestProblem(body: unknown): string | null {
  if (checker.Check(body)) return null;
  const clauses = [...new Set(clausesOf(checker.Errors(body), body))];
  const more = clauses.length - LISTED;
  return clauses.slice(0, LISTED).join('; ') + (more > 0 ? `; and ${more} more` : '');
}

export function isGradeRequest(body: unknown): body is GradeRequest {
  return checker.Check(body);
}

function clausesOf(errors: Iterable<ValueError>, body: unknown): string[] {
  const clauses: string[] = [];
  // A missing property is also reported as a value of the wrong type at its path: the first says it better.
  const missing = new Set<string>();
  for (const error of errors) {
    if (error.type === ValueErrorType.ObjectRequiredProperty) missing.add(error.path);
    else if (missing.has(error.path)) continue;
    clauses.push(...clauseOf(error, body));
  }
  return clauses;
}

function clauseOf(error: ValueError, body: unknown): string[] {
  const at = pathOf(error.path, body);
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return [`${at}: missing (expected ${expected(error.schema)})`];
    case ValueErrorType.ObjectAdditionalProperties: {
      const known = Object.keys((error.schema['properties'] as Record<string, unknown> | undefined) ?? {});
      return [`${at}: unknown property (expected one of ${known.join(', ')})`];
    }
    case ValueErrorType.Union: {
      // A value of the one kind of object a union allows is wrong inside: its own errors say where.
      const inner = objectOptionErrors(error);
      if (inner !== null) return clausesOf(inner, body);
      return [`${at}: expected ${expected(error.schema)}, got ${shown(error.value)}`];
    }
    default:
      return [`${at}: expected ${expected(error.schema)}, got ${shown(error.value)}`];
  }
}

function objectOptionErrors(error: ValueError): ValueErrorIterator | null {
  const value = error.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const options = (error.schema['anyOf'] as TSchema[] | undefined) ?? [];
  const objects = options.flatMap((option, i) => (option['type'] === 'object' ? [i] : []));
  return objects.length === 1 ? (error.errors[objects[0]!] ?? null) : null;
}

/** `/candidates/0/code` as `candidates[0].code`. */
function pathOf(pointer: string, body: unknown): string {
  const text = jsonPointerToSegments(pointer, body).map(renderPathSegment).join('');
  if (text === '') return 'the request body';
  return text.startsWith('.') ? text.slice(1) : text;
}

/** What a schema accepts, in words. */
function expected(schema: TSchema): string {
  const own: unknown = schema['expected'];
  if (typeof own === 'string') return own;
  const options: unknown = schema['anyOf'];
  if (Array.isArray(options)) return (options as TSchema[]).map(expected).join(' or ');
  switch (schema['type']) {
    case 'string':
      return 'a string';
    case 'null':
      return 'null';
    case 'boolean':
      return 'true or false';
    case 'integer':
      return ranged('a whole number', schema);
    case 'number':
      return ranged('a number', schema);
    case 'array':
      return 'a list';
    case 'object':
      return 'an object';
    default:
      return 'another value';
  }
}

function ranged(what: string, schema: TSchema): string {
  const min: unknown = schema['minimum'];
  const max: unknown = schema['maximum'];
  if (typeof min === 'number' && typeof max === 'number') return `${what} from ${min} to ${max}`;
  if (typeof min === 'number') return `${what} of at least ${min}`;
  if (typeof max === 'number') return `${what} of at most ${max}`;
  return what;
}

/** A value as a message shows what was sent: scalars as written (long strings cut), containers by kind. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'a list';
  return value === undefined ? 'nothing' : 'an object';
}
