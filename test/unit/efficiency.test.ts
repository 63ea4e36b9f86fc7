import { describe, expect, it } from 'vitest';
import { efficiencyRatio, NO_SCORE, scoreEfficiency, type ScoredRow } from '../../src/report/efficiency.js';
import { candidateRow } from '../../src/report/rows.js';
import type { CandidateResult } from '../../src/report/scorecard.js';
import { efficiencyGraders, GraderNameError, parseGraders } from '../../src/grading/graders.js';

interface RowSpec {
  problem?: string;
  model?: string;
  language?: string;
  passed?: number;
  total?: number;
  cost?: number | null;
  memory?: number | null;
  error?: string | null;
  reference?: boolean;
  suite?: string;
  measured?: boolean;
}

function row(spec: RowSpec): ScoredRow {
  const base = {
    problem_id: spec.problem ?? 'p',
    model_id: spec.model ?? (spec.reference === true ? 'optimal_solution' : 'm'),
    language: spec.language ?? 'python',
    passed: spec.passed ?? 3,
    total: spec.total ?? 3,
  };
  if (spec.measured === false) return base;
  return {
    ...base,
    efficiency: {
      suite: spec.suite ?? 'correctness',
      reference: spec.reference === true,
      cost: spec.cost === undefined ? 100 : spec.cost,
      memory: spec.memory === undefined ? 1000 : spec.memory,
      error: spec.error ?? null,
    },
  };
}

const optimal = (spec: RowSpec = {}): ScoredRow => row({ cost: 100, memory: 1000, ...spec, reference: true });

describe('efficiencyRatio', () => {
  it('is min(1, optimal / candidate)', () => {
    expect(efficiencyRatio(100, 400)).toBe(0.25);
    expect(efficiencyRatio(400, 100)).toBe(1);
    expect(efficiencyRatio(100, 100)).toBe(1);
  });
  it('counts zero on both sides, and a candidate that did no work, as 1', () => {
    expect(efficiencyRatio(0, 0)).toBe(1);
    expect(efficiencyRatio(5, 0)).toBe(1);
    expect(efficiencyRatio(0, 5)).toBe(0);
  });
});

describe('scoreEfficiency', () => {
  it('scores a passing measured candidate against the optimal solution of its problem, with the raw figures beside', () => {
    const report = scoreEfficiency([row({ cost: 400, memory: 4000 }), optimal()], ['performance', 'memory']);
    expect(report.candidates[0]).toEqual({
      index: 0,
      problem_id: 'p',
      model_id: 'm',
      performance: 0.25,
      memory: 0.25,
      reason: null,
      cost: 400,
      memory_bytes: 4000,
      optimal_cost: 100,
      optimal_memory_bytes: 1000,
    });
    // The optimal solution scores 1 against itself.
    expect(report.candidates[1]).toMatchObject({ index: 1, model_id: 'optimal_solution', performance: 1, memory: 1, reason: null });
  });

  it('gives only the graders asked', () => {
    const report = scoreEfficiency([row({ cost: 200 }), optimal()], ['performance']);
    expect(report.candidates[0]!.performance).toBe(0.5);
    expect('memory' in report.candidates[0]!).toBe(false);
    expect(report.models[0]).toEqual({ model_id: 'm', candidates: 1, performance: { mean: 0.5, scored: 1 } });
  });

  it('says why a candidate is n/a', () => {
    const cases: Array<[ScoredRow[], string]> = [
      [[row({ passed: 2 }), optimal()], NO_SCORE.notPassed],
      [[row({ passed: 0, total: 0 }), optimal()], NO_SCORE.notPassed],
      [[row({ cost: null, memory: null, error: 'the engine did not measure' })], 'not measured: the engine did not measure'],
      [[row({ measured: false }), optimal({ language: 'javascript' })], 'not measured: no figures in its record'],
      [[row({ measured: false }), optimal({ passed: 1 })], 'not measured: no figures in its record'],
      [[row({ measured: false }), optimal({ cost: null, memory: null, error: 'the engine did not measure' })], 'not measured: no figures in its record'],
      [[row({})], NO_SCORE.noOptimal],
      [[row({}), optimal({ problem: 'other' })], NO_SCORE.noOptimal],
      [[row({}), optimal({ language: 'javascript' })], 'the optimal solution is in another language (javascript)'],
      [[row({}), optimal({ passed: 1 })], NO_SCORE.optimalFailed],
      [
        [row({}), optimal({ cost: null, memory: null, error: 'the engine did not measure' })],
        'the optimal solution was not measured: the engine did not measure',
      ],
    ];
    for (const [rows, reason] of cases) {
      const scored = scoreEfficiency(rows, ['performance', 'memory']).candidates[0]!;
      expect(scored.reason, reason).toBe(reason);
      expect(scored.performance).toBeNull();
      expect(scored.memory).toBeNull();
    }
  });

  it('scores 0 a candidate that passed but could not be measured where its optimal solution was', () => {
    // Left out of the mean, code that escapes the meter (a file written, the meter's names taken)
    // would raise its model's score above that of the same code measured.
    const rows = [
      row({ model: 'x', cost: 100, memory: 1000 }), // 1, 1
      row({ model: 'x', cost: null, memory: null, error: 'the engine did not measure' }),
      row({ model: 'x', cost: 5, memory: null, error: 'the measured run disagreed with the first: test 1 was fail' }),
      optimal(),
    ];
    const report = scoreEfficiency(rows, ['performance', 'memory']);
    expect(report.candidates[1]).toMatchObject({
      performance: 0,
      memory: 0,
      reason: `${NO_SCORE.zeroUnmeasured}: the engine did not measure`,
      cost: null,
      memory_bytes: null,
      optimal_cost: 100,
    });
    expect(report.candidates[2]).toMatchObject({
      performance: 0,
      memory: 0,
      reason: `${NO_SCORE.zeroUnmeasured}: the measured run disagreed with the first: test 1 was fail`,
    });
    expect(report.models.find((m) => m.model_id === 'x')).toEqual({
      model_id: 'x',
      candidates: 3,
      performance: { mean: 1 / 3, scored: 3 },
      memory: { mean: 1 / 3, scored: 3 },
    });
  });

  it('does not take a submission of a model named optimal_solution for the reference', () => {
    const impostor = row({ model: 'optimal_solution', cost: 1, memory: 1 });
    const report = scoreEfficiency([row({ cost: 100 }), impostor], ['performance']);
    expect(report.candidates[0]!.reason).toBe(NO_SCORE.noOptimal);
  });

  it('scores each suite against the reference of the same suite', () => {
    const rows = [
      optimal({ cost: 10 }),
      optimal({ suite: 'sample:a', cost: 20 }),
      row({ cost: 40 }),
      row({ suite: 'sample:a', cost: 40 }), // graded on another suite than the first reference
    ];
    const c = scoreEfficiency(rows, ['performance']).candidates;
    expect(c.map((x) => x.performance)).toEqual([1, 1, 0.25, 0.5]);
  });

  it('means per model and per tag over scored candidates only, with their count', () => {
    const rows = [
      row({ problem: 'a', model: 'x', cost: 200, memory: 1000 }), // 0.5, 1
      row({ problem: 'b', model: 'x', cost: 100, memory: 4000 }), // 1, 0.25
      row({ problem: 'b', model: 'x', passed: 0 }), // n/a
      row({ problem: 'a', model: 'y', cost: 400, memory: 2000 }), // 0.25, 0.5
      optimal({ problem: 'a' }),
      optimal({ problem: 'b' }),
    ];
    const tags = new Map([
      ['a', ['arrays', 'easy', 'easy']],
      ['b', ['arrays']],
    ]);
    const report = scoreEfficiency(rows, ['performance', 'memory'], tags);
    expect(report.graders).toEqual(['performance', 'memory']);
    expect(report.models).toEqual([
      { model_id: 'optimal_solution', candidates: 2, performance: { mean: 1, scored: 2 }, memory: { mean: 1, scored: 2 } },
      { model_id: 'x', candidates: 3, performance: { mean: 0.75, scored: 2 }, memory: { mean: 0.625, scored: 2 } },
      { model_id: 'y', candidates: 1, performance: { mean: 0.25, scored: 1 }, memory: { mean: 0.5, scored: 1 } },
    ]);
    const easy = report.tags.find((t) => t.tag === 'easy')!;
    // Problem a only, its tag counted once: x 0.5, y 0.25, optimal 1.
    expect(easy.candidates).toBe(3);
    expect(easy.performance).toEqual({ mean: (0.5 + 0.25 + 1) / 3, scored: 3 });
    expect(report.tags.map((t) => t.tag)).toEqual(['arrays', 'easy']);
  });

  it('gives a null mean to a group with no scored candidate', () => {
    const report = scoreEfficiency([row({ passed: 0 })], ['memory']);
    expect(report.models).toEqual([{ model_id: 'm', candidates: 1, memory: { mean: null, scored: 0 } }]);
  });
});

describe('rows of measured records', () => {
  const record = (over: Partial<CandidateResult>): CandidateResult => ({
    problem_id: 'p',
    model_id: 'optimal_solution',
    prompt_id: null,
    sample_id: null,
    language: 'python',
    source: 'problems/p.json#optimal_solution',
    raw_code: '',
    code: '',
    status: 'passed',
    error: null,
    entry_point: 'name:f',
    passed: 1,
    total: 1,
    score: 1,
    duration_ms: 1,
    tests: [{ index: 0, suite: 'correctness', source: '$', input: {}, expected: 1, status: 'pass', actual: 1, error: null, duration_ms: 0 }],
    ...over,
  });

  it('carry the totals, the suite and whether the record is a reference', () => {
    const measured = candidateRow(record({ measure: { cost: 7, memory: 8, load_cost: 1, load_memory: 2 }, measure_error: null }));
    expect(measured.efficiency).toEqual({ suite: 'correctness', reference: true, cost: 7, memory: 8, error: null });
    const failed = candidateRow(record({ source: 'sub/m/p.py', measure: null, measure_error: 'did not pass every test' }));
    expect(failed.efficiency).toEqual({ suite: 'correctness', reference: false, cost: null, memory: null, error: 'did not pass every test' });
  });

  it('carry nothing when nothing was measured', () => {
    expect('efficiency' in candidateRow(record({}))).toBe(false);
  });
});

describe('parseGraders', () => {
  it('always grades correctness, in canonical order, once each', () => {
    expect(parseGraders([])).toEqual(['correctness']);
    expect(parseGraders('memory,performance')).toEqual(['correctness', 'performance', 'memory']);
    expect(parseGraders(['memory', 'correctness, memory'])).toEqual(['correctness', 'memory']);
    expect(efficiencyGraders(parseGraders('correctness'))).toEqual([]);
  });
  it('refuses an unknown name, naming it', () => {
    expect(() => parseGraders('correctness,speed')).toThrow(GraderNameError);
    expect(() => parseGraders('speed')).toThrow(/unknown grader "speed"; the graders are correctness, performance, memory/);
  });
});
