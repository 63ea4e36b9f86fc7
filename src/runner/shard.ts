/**
 * Splitting one run's candidates between N independent processes
 * (`--shard I/N`), with no coordinator: every shard plans the whole run,
 * computes the same assignment and grades only its own part.
 *
 * The unit of assignment is a group: every candidate of one (problem,
 * model), so all samples behind a model's pass@k for a problem, under every
 * prompt, are graded by one shard and its own scorecard's pass@k and
 * "problems solved" are already exact. A group weighs the number of tests
 * its candidates run.
 *
 * The assignment is a function of the set of groups and nothing else (not
 * of the order files were listed in, nor of the locale): groups are sorted
 * by weight, heaviest first, ties broken by their key in code-unit order,
 * and each goes to the shard with the least weight so far (the lowest index
 * on a tie). That greedy rule (longest processing time first) keeps the
 * heaviest shard within 4/3 of the best possible split, and within one
 * group's weight of the average.
 */

/** One part of a sharded run: `index` of `count`, 1-based as vitest's and Playwright's `--shard`. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** A planned candidate as the assignment sees it. */
export interface ShardItem {
  problemId: string;
  modelId: string;
  tests: number;
}

/** What one shard plans to grade. */
export interface ShardLoad {
  groups: number;
  candidates: number;
  tests: number;
}

export interface ShardAssignment {
  /** The shard (1-based) of each item, in the items' order. */
  shardOf: number[];
  /** Planned work of each shard, index 0 for shard 1. */
  loads: ShardLoad[];
}

export class ShardSpecError extends Error {}

/** The group an item belongs to; JSON keeps ids containing any character apart. */
export function shardGroupKey(item: Pick<ShardItem, 'problemId' | 'modelId'>): string {
  return JSON.stringify([item.problemId, item.modelId]);
}

export function assignShards(items: readonly ShardItem[], count: number): ShardAssignment {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`shard count must be a positive whole number, got ${count}`);
  const groups = new Map<string, { key: string; weight: number; candidates: number }>();
  const groupOf: string[] = [];
  for (const item of items) {
    const key = shardGroupKey(item);
    groupOf.push(key);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { key, weight: item.tests, candidates: 1 });
    else {
      group.weight += item.tests;
      group.candidates++;
    }
  }
  const ordered = [...groups.values()].sort((a, b) => b.weight - a.weight || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const loads: ShardLoad[] = Array.from({ length: count }, () => ({ groups: 0, candidates: 0, tests: 0 }));
  const shardOfGroup = new Map<string, number>();
  for (const group of ordered) {
    let lightest = 0;
    for (let s = 1; s < count; s++) if (loads[s]!.tests < loads[lightest]!.tests) lightest = s;
    const load = loads[lightest]!;
    load.groups++;
    load.candidates += group.candidates;
    load.tests += group.weight;
    shardOfGroup.set(group.key, lightest + 1);
  }
  return { shardOf: groupOf.map((key) => shardOfGroup.get(key)!), loads };
}

/** The value of `--shard`: `I/N`, or `auto` to read it from the scheduler's environment. */
export function resolveShard(text: string, env: Readonly<Record<string, string | undefined>>): ShardSpec {
  return text.trim() === 'auto' ? shardFromEnvironment(env) : parseShardText(text);
}

/** `I/N` with 1 <= I <= N. */
export function parseShardText(text: string): ShardSpec {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (match === null) throw new ShardSpecError(`--shard must be I/N (for example 2/8) or auto, got ${text}`);
  return checkedShard(Number(match[1]), Number(match[2]), `--shard ${text}`);
}

function checkedShard(index: number, count: number, what: string): ShardSpec {
  if (!Number.isSafeInteger(count) || count < 1) throw new ShardSpecError(`${what}: the shard count must be at least 1`);
  if (!Number.isSafeInteger(index) || index < 1 || index > count) {
    throw new ShardSpecError(`${what}: the shard index must be from 1 to ${count} (it is 1-based)`);
  }
  return { index, count };
}

/**
 * `--shard auto`: the shard from a scheduler's environment.
 *
 * - Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (0-based) and
 *   `EVALRUN_SHARD_COUNT` (the Job's `completions`, which Kubernetes does
 *   not pass to the pod).
 * - SLURM job array: `SLURM_ARRAY_TASK_ID`, placed in the array's range by
 *   `SLURM_ARRAY_TASK_MIN` and `SLURM_ARRAY_TASK_STEP` (0 and 1 when unset)
 *   and counted by `SLURM_ARRAY_TASK_COUNT`, or from `SLURM_ARRAY_TASK_MAX`.
 *   An array with gaps (`--array=1,4,9`) cannot be mapped onto shards
 *   without guessing, so it is refused.
 */
export function shardFromEnvironment(env: Readonly<Record<string, string | undefined>>): ShardSpec {
  const k8sIndex = env.JOB_COMPLETION_INDEX;
  if (k8sIndex !== undefined && k8sIndex !== '') {
    const countText = env.EVALRUN_SHARD_COUNT;
    if (countText === undefined || countText === '') {
      throw new ShardSpecError("--shard auto: JOB_COMPLETION_INDEX is set but EVALRUN_SHARD_COUNT is not (set it to the Job's completions)");
    }
    const index = wholeNumber('JOB_COMPLETION_INDEX', k8sIndex);
    const count = wholeNumber('EVALRUN_SHARD_COUNT', countText);
    return checkedShard(index + 1, count, `--shard auto (JOB_COMPLETION_INDEX=${k8sIndex}, EVALRUN_SHARD_COUNT=${countText})`);
  }
  const slurmId = env.SLURM_ARRAY_TASK_ID;
  if (slurmId !== undefined && slurmId !== '') {
    const id = wholeNumber('SLURM_ARRAY_TASK_ID', slurmId);
    const min = optionalNumber('SLURM_ARRAY_TASK_MIN', env.SLURM_ARRAY_TASK_MIN) ?? 0;
    const step = optionalNumber('SLURM_ARRAY_TASK_STEP', env.SLURM_ARRAY_TASK_STEP) ?? 1;
    const max = optionalNumber('SLURM_ARRAY_TASK_MAX', env.SLURM_ARRAY_TASK_MAX);
    const given = optionalNumber('SLURM_ARRAY_TASK_COUNT', env.SLURM_ARRAY_TASK_COUNT);
    if (step < 1) throw new ShardSpecError(`--shard auto: SLURM_ARRAY_TASK_STEP must be at least 1, got ${step}`);
    const fromRange = max === null ? null : Math.floor((max - min) / step) + 1;
    const count = given ?? fromRange;
    if (count === null) {
      throw new ShardSpecError('--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is');
    }
    if (fromRange !== null && fromRange !== count) {
      throw new ShardSpecError(`--shard auto: the SLURM array has gaps (${count} tasks between ${min} and ${max}); use a range such as --array=0-${count - 1}`);
    }
    if ((id - min) % step !== 0) {
      throw new ShardSpecError(`--shard auto: SLURM_ARRAY_TASK_ID ${id} is not on the array's step ${step} from ${min}`);
    }
    return checkedShard((id - min) / step + 1, count, `--shard auto (SLURM_ARRAY_TASK_ID=${slurmId}, from ${min}, ${count} tasks)`);
  }
  throw new ShardSpecError(
    '--shard auto needs JOB_COMPLETION_INDEX with EVALRUN_SHARD_COUNT (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (SLURM job array); neither is set',
  );
}

function wholeNumber(name: string, text: string): number {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new ShardSpecError(`--shard auto: ${name} must be a whole number, got ${text}`);
  return value;
}

function optionalNumber(name: string, text: string | undefined): number | null {
  return text === undefined || text === '' ? null : wholeNumber(name, text);
}

/** `2/3`, as messages and file names show a shard. */
export function shardLabel(shard: ShardSpec): string {
  return `${shard.index}/${shard.count}`;
}
