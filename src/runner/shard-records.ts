/**
 * What a sharded run records about its shard, in the run log's header and in
 * the scorecard: types only, so that the scorecard and the shard planner can
 * both name them without importing each other (the log's own record is
 * ShardLogRecord, beside the log's header in runlog/records.ts).
 */
import type { InputDigest } from './input-digest.js';
import type { ShardLoad } from './shard.js';

/** What the run log's header and the scorecard both say about a shard. */
export interface ShardRecord {
  index: number;
  count: number;
  evalrun_version: string;
  inputs: InputDigest;
  /** Planned work of every shard, index 0 for shard 1 (so a merge can say what a missing shard held). */
  loads: ShardLoad[];
  /** Tags of the selected problems that have any, as [id, tags] pairs by id: the tag roll-up needs them. */
  problem_tags: Array<[string, string[]]>;
}

/** In the scorecard: which candidates it lists. */
export interface ShardCardRecord extends ShardRecord {
  /** Ranks in the whole run's plan of the candidates whose results it lists, in its order, as ranges: `0-3,7,9-12`. */
  ranks: string;
}
