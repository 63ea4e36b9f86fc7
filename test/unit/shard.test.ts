import { describe, expect, it } from 'vitest';
import { assignShards, parseShardText, resolveShard, shardFromEnvironment, ShardSpecError, type ShardItem } from '../../src/runner/shard.js';
import { decodeRanks, encodeRanks } from '../../src/runner/shard-plan.js';
import { Rng } from '../../bench/rng.js';

/** A pass@k-shaped plan: problems of uneven size, several models, many samples each, in discovery order. */
function workload(): ShardItem[] {
  const items: ShardItem[] = [];
  for (const model of ['gpt-x', 'llama', 'mistral/7b', 'a"quoted']) {
    for (let p = 0; p < 37; p++) {
      const samples = 1 + ((p * 7 + model.length) % 11);
      for (let s = 0; s < samples; s++) items.push({ problemId: `problem_${p}`, modelId: model, tests: 1 + ((p * 13) % 29) });
    }
  }
  return items;
}

/** A deterministic shuffle, so the test does not depend on Math.random. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const rng = new Rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('assignShards', () => {
  const items = workload();
  const totalTests = items.reduce((n, i) => n + i.tests, 0);

  it.each([1, 2, 3, 7, 16])('splits %i ways: every candidate in exactly one shard, every (problem, model) whole', (count) => {
    const { shardOf, loads } = assignShards(items, count);
    expect(shardOf).toHaveLength(items.length);
    for (const s of shardOf) expect(s >= 1 && s <= count).toBe(true);
    const groupShard = new Map<string, number>();
    items.forEach((item, i) => {
      const key = `${item.problemId}\u0000${item.modelId}`;
      const before = groupShard.get(key);
      if (before !== undefined) expect(shardOf[i]).toBe(before);
      groupShard.set(key, shardOf[i]!);
    });
    // The loads it reports are the loads it made.
    for (let s = 1; s <= count; s++) {
      const mine = items.filter((_, i) => shardOf[i] === s);
      expect(loads[s - 1]!.candidates).toBe(mine.length);
      expect(loads[s - 1]!.tests).toBe(mine.reduce((n, i) => n + i.tests, 0));
    }
    expect(loads.reduce((n, l) => n + l.tests, 0)).toBe(totalTests);
  });

  it('balances by tests: every shard within the heaviest group of the average', () => {
    const groups = new Map<string, number>();
    for (const i of items) groups.set(`${i.problemId}/${i.modelId}`, (groups.get(`${i.problemId}/${i.modelId}`) ?? 0) + i.tests);
    const heaviest = Math.max(...groups.values());
    for (const count of [2, 3, 5, 8]) {
      const { loads } = assignShards(items, count);
      const average = totalTests / count;
      for (const load of loads) expect(Math.abs(load.tests - average)).toBeLessThanOrEqual(heaviest);
      const tests = loads.map((l) => l.tests);
      // Far tighter than a split by problem name would be on this uneven set.
      expect(Math.max(...tests) / Math.min(...tests)).toBeLessThan(1.1);
    }
  });

  it('depends on the set of candidates only, not on the order they were listed in', () => {
    const byItem = (list: readonly ShardItem[], count: number): Map<string, number> => {
      const { shardOf } = assignShards(list, count);
      return new Map(list.map((item, i) => [`${item.problemId}\u0000${item.modelId}`, shardOf[i]!] as const));
    };
    const reference = byItem(items, 5);
    for (const seed of [1, 2, 3]) expect(byItem(shuffled(items, seed), 5)).toEqual(reference);
  });

  it('gives shards with nothing to do when there are fewer groups than shards', () => {
    const { loads } = assignShards([{ problemId: 'a', modelId: 'm', tests: 3 }], 3);
    expect(loads.map((l) => l.candidates)).toEqual([1, 0, 0]);
  });
});

describe('--shard values', () => {
  it('reads I/N, 1-based', () => {
    expect(parseShardText('2/8')).toEqual({ index: 2, count: 8 });
    expect(parseShardText(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/3', '4/3', '1/0', '2', 'a/b', '1/2/3', '-1/3', '1.5/3']) {
      expect(() => parseShardText(bad), bad).toThrow(ShardSpecError);
    }
  });

  it('auto: a Kubernetes Indexed Job (0-based index, count from EVALRUN_SHARD_COUNT)', () => {
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: '0', EVALRUN_SHARD_COUNT: '4' })).toEqual({ index: 1, count: 4 });
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: '3', EVALRUN_SHARD_COUNT: '4' })).toEqual({ index: 4, count: 4 });
    expect(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '4', EVALRUN_SHARD_COUNT: '4' })).toThrow(/from 1 to 4/);
    expect(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '1' })).toThrow(/EVALRUN_SHARD_COUNT is not/);
  });

  it('auto: a SLURM array, by count or by min and max, with a step', () => {
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '3' })).toEqual({ index: 1, count: 3 });
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '3' })).toEqual({ index: 3, count: 3 });
    expect(
      shardFromEnvironment({
        SLURM_ARRAY_TASK_ID: '7',
        SLURM_ARRAY_TASK_MIN: '1',
        SLURM_ARRAY_TASK_MAX: '9',
        SLURM_ARRAY_TASK_STEP: '2',
        SLURM_ARRAY_TASK_COUNT: '5',
      }),
    ).toEqual({ index: 4, count: 5 });
    // --array=1,4,9: three tasks that no range maps onto shards.
    expect(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '9', SLURM_ARRAY_TASK_COUNT: '3' })).toThrow(
      /gaps/,
    );
    expect(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '2' })).toThrow(/SLURM_ARRAY_TASK_COUNT/);
  });

  it('auto without a scheduler is an error naming what it looked for', () => {
    expect(() => resolveShard('auto', {})).toThrow(/JOB_COMPLETION_INDEX.*SLURM_ARRAY_TASK_ID/);
    expect(resolveShard('auto', { JOB_COMPLETION_INDEX: '1', EVALRUN_SHARD_COUNT: '2' })).toEqual({ index: 2, count: 2 });
  });
});

describe('rank ranges', () => {
  it('round-trip', () => {
    for (const ranks of [[], [0], [0, 1, 2, 3, 7], [5, 9, 10, 11, 40], Array.from({ length: 1000 }, (_, i) => i * 2)]) {
      expect(decodeRanks(encodeRanks(ranks))).toEqual(ranks);
    }
    expect(encodeRanks([0, 1, 2, 3, 7, 9, 10])).toBe('0-3,7,9-10');
    expect(() => decodeRanks('3-1')).toThrow();
    expect(() => decodeRanks('x')).toThrow();
  });
});
