import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservedPythonEngine } from './observed-engine.js';
import { pyJob, testsOf } from './helpers.js';

/**
 * Real-world Python: the `optimal_solution` of every problem in the shared
 * corpus sample, run against its own `correctness_test_suite`. The corpus
 * is read in place (it is not part of the repository); without it the
 * suite is skipped.
 */
const PROBLEMS = join(process.cwd(), '..', 'shared', 'corpus-sample', 'memory', 'problems');
const available = existsSync(PROBLEMS);

interface Parameter {
  name: string;
  type: string;
}
interface Problem {
  identifier: string;
  function_prototype: { function_name: string; parameters: Parameter[]; return_values: Array<{ type: string }> };
  correctness_test_suite?: Array<{ input: Record<string, unknown>; expected_output: unknown }>;
  optimal_solution?: string;
}

/**
 * The corpus writes values as strings that encode the typed value
 * ("[1,2]" for List[int], "True" for bool, "'a'" inside lists); this
 * decodes them just enough for the test, by the declared type.
 */
function decode(value: unknown, type: string): unknown {
  if (typeof value !== 'string') return value;
  const t = type.replace(/\s+/g, '').toLowerCase();
  if (t === 'str' || t === 'string') return value;
  let text = value.trim();
  // Some expected values are a JSON string around the literal.
  if (text.startsWith('"') && text.endsWith('"')) text = JSON.parse(text) as string;
  if (t === 'bool') return text === 'True' || text === 'true';
  if (t === 'int' || t === 'float') return Number(text);
  const json = text
    .replace(/'/g, '"')
    .replace(/\bTrue\b/g, 'true')
    .replace(/\bFalse\b/g, 'false')
    .replace(/\bNone\b/g, 'null');
  return JSON.parse(json) as unknown;
}

function loadProblems(): Problem[] {
  return readdirSync(PROBLEMS)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(PROBLEMS, name), 'utf8')) as Problem);
}

describe.skipIf(!available)('corpus sample: optimal solutions pass their own test suites', () => {
  let engine: ObservedPythonEngine;
  beforeAll(async () => {
    engine = await ObservedPythonEngine.open({ memoryMb: 256 });
  });
  afterAll(() => engine?.dispose());

  const problems = available ? loadProblems() : [];

  it('has the 20 problems of the sample', () => {
    expect(problems).toHaveLength(20);
  });

  for (const problem of problems) {
    it(problem.identifier, async () => {
      const proto = problem.function_prototype;
      const suite = problem.correctness_test_suite ?? [];
      expect(problem.optimal_solution).toBeTypeOf('string');
      expect(suite.length).toBeGreaterThan(0);
      const tests = suite.map((t) => proto.parameters.map((p) => decode(t.input[p.name], p.type)));
      const out = await engine.run(pyJob(problem.optimal_solution!, tests, { functionName: proto.function_name, timeoutMs: 5000 }));
      expect(out).toMatchObject({ kind: 'ran', entryPoint: `name:${proto.function_name}` });
      const returnType = proto.return_values[0]?.type ?? 'Any';
      testsOf(out).forEach((outcome, i) => {
        const expectedList = suite[i]!.expected_output;
        const expected = decode(Array.isArray(expectedList) ? expectedList[0] : expectedList, returnType);
        expect(outcome.kind, JSON.stringify(outcome)).toBe('returned');
        if (outcome.kind === 'returned') expect(JSON.parse(outcome.json)).toEqual(expected);
      });
      // Honest solutions leave the interpreter clean for the next one.
      expect(engine.lastReset).toBe('clean');
    });
  }
});
