/**
 * What the service says of a grading request that does not fit its schema:
 * each thing wrong in one clause, at a path written as evalrun writes JSON
 * paths, with what was expected there.
 */
import { describe, expect, it } from 'vitest';
import { gradeRequestProblem, isGradeRequest } from '../../src/service/grade-request.js';

describe('gradeRequestProblem', () => {
  it('accepts a request that fits, whatever its problem object holds', () => {
    const body = { problem: { anything: [1] }, candidates: [{ code: 'x', id: null, language: 'py', prompt_id: 'p' }], options: { grade: ['memory'] } };
    expect(isGradeRequest(body)).toBe(true);
    expect(gradeRequestProblem(body)).toBeNull();
  });

  it('names an unknown property and the ones that are known', () => {
    expect(gradeRequestProblem({ candidates: [], n_samples: 4 })).toBe(
      'n_samples: unknown property (expected one of problem_id, problem, candidates, options)',
    );
    expect(gradeRequestProblem({ candidates: [{ code: 'x', 'odd key': 1 }] })).toBe(
      'candidates[0]["odd key"]: unknown property (expected one of id, code, language, prompt_id)',
    );
  });

  it('says once what a union expected, or goes inside the one object it allows', () => {
    expect(gradeRequestProblem({ candidates: [{ code: 'x', id: 7 }] })).toBe('candidates[0].id: expected a string or null, got 7');
    expect(gradeRequestProblem({ candidates: [], options: { float_tolerance: { relative: 1, absolute: -1 } } })).toBe(
      'options.float_tolerance.absolute: expected a number of at least 0, got -1',
    );
  });

  it('reports a missing property once, and counts what is past the first few', () => {
    expect(gradeRequestProblem({ candidates: [{}] })).toBe('candidates[0].code: missing (expected a string)');
    const many = gradeRequestProblem({ candidates: [1, 2, 3, 4, 5].map((code) => ({ code })) });
    expect(many).toBe(
      'candidates[0].code: expected a string, got 1; candidates[1].code: expected a string, got 2; candidates[2].code: expected a string, got 3; and 2 more',
    );
  });

  it('describes the body itself when it is not an object', () => {
    expect(gradeRequestProblem(null)).toBe('the request body: expected a JSON object, got null');
    expect(gradeRequestProblem('x'.repeat(100))).toBe(`the request body: expected a JSON object, got "${'x'.repeat(40)}..."`);
  });
});
