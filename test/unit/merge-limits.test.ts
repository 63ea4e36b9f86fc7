/**
 * The merge's test limits (src/merge/merge-limits.ts): shards that graded a
 * problem under one set of limits merge silently; shards that graded it
 * under different ones merge with a warning on the problem; a shard's
 * limits for a problem it graded nothing of do not count.
 */
import { describe, expect, it } from 'vitest';
import { candidateKey } from '../../src/runlog/candidate-key.js';
import { mergeLimits } from '../../src/merge/merge-limits.js';
import type { ShardInput } from '../../src/merge/read-shard.js';
import type { ProblemReport, TestLimitsReport } from '../../src/report/scorecard.js';

const measured = (...ms: number[]): TestLimitsReport => ({ from: 'optimal_solution', language: 'python', tests_ms: ms });

/** A shard as the merge sees it: its index, the problems it graded candidates of, and its limits. */
function shard(index: number, graded: string[], limits: Record<string, TestLimitsReport>): ShardInput {
  const candidates = graded.map((problemId, rank) => {
    const key = candidateKey({ problemId, modelId: 'm', promptId: null, sampleId: null, source: `${problemId}.py` });
    return { rank, key, at: { kind: 'log' as const, key } };
  });
  const partial: Pick<ShardInput, 'candidates' | 'limits'> & { record: Pick<ShardInput['record'], 'index' | 'count'> } = {
    record: { index, count: 2 },
    candidates,
    limits: new Map(Object.entries(limits)),
  };
  return partial as unknown as ShardInput;
}

const problems: ProblemReport[] = ['a', 'b'].map((id) => ({ problem_id: id, file: `${id}.json`, valid: true, errors: [], warnings: [] }));

describe('merging test limits', () => {
  it('carries limits the shards agree on, whatever file they were taken from, without a warning', () => {
    const merged = mergeLimits(
      [shard(1, ['a'], { a: { ...measured(100, 300), taken_from: '/x.jsonl' } }), shard(2, ['a', 'b'], { a: measured(100, 300), b: measured(120) })],
      problems,
    );
    expect(merged.warnings).toEqual([]);
    expect(merged.problems.map((p) => p.test_limits)).toEqual([{ ...measured(100, 300), taken_from: '/x.jsonl' }, measured(120)]);
    expect(merged.problems.every((p) => p.warnings.length === 0)).toBe(true);
  });

  it('warns, on the problem and to the user, when shards that graded it used different limits, keeping the first', () => {
    const merged = mergeLimits([shard(1, ['a'], { a: measured(100, 300) }), shard(2, ['a'], { a: measured(100, 900) })], problems);
    expect(merged.warnings).toHaveLength(1);
    expect(merged.warnings[0]).toMatch(
      /^problem a: the shards graded this problem under different test limits \(shard 1\/2: \[100, 300\] ms; shard 2\/2: \[100, 900\] ms\)/,
    );
    expect(merged.problems[0]!.test_limits).toEqual(measured(100, 300));
    expect(merged.problems[0]!.warnings).toEqual([merged.warnings[0]!.replace(/^problem a: /, '')]);
    expect(merged.problems[1]!.test_limits).toBeUndefined();
  });

  it('ignores the limits of a shard that graded nothing of the problem', () => {
    const merged = mergeLimits([shard(1, [], { a: measured(100, 999) }), shard(2, ['a'], { a: measured(100, 300) })], problems);
    expect(merged.warnings).toEqual([]);
    expect(merged.problems[0]!.test_limits).toEqual(measured(100, 300));
  });
});
