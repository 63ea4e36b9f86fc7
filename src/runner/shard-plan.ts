/**
 * A sharded run's part of the plan, and what it records so that
 * `evalrun merge` can rebuild the single run's scorecard from the shards
 * without reading any problem or solution file: the digest of its input,
 * every shard's planned load, and each candidate's rank in the whole run's
 * plan (the order a single run lists candidates in).
 */
import type { ProblemReport, SkippedSubmissionReport } from '../report/scorecard.js';
import { VERSION } from '../version.js';
import type { ProblemSummary } from '../grading/candidate.js';
import { subList, type CandidateList } from './candidate-list.js';
import { digestDifferences, digestFolder, folderName, type InputDigest, type WalkedFile } from './input-digest.js';
import type { RunHeader, ShardLogRecord } from '../runlog/run-log.js';
import type { ShardCardRecord, ShardRecord } from './shard-records.js';
import { assignShards, type ShardSpec } from './shard.js';

export type { ShardCardRecord, ShardLogRecord, ShardRecord };

export interface ShardPlan {
  /** This shard's candidates, in the whole plan's order. */
  specs: CandidateList;
  /** Each one's rank in the whole plan. */
  ranks: number[];
  record: ShardRecord;
}

export function planShard(all: CandidateList, shard: ShardSpec, inputs: InputDigest, selected: readonly ProblemSummary[]): ShardPlan {
  const { shardOf, loads } = assignShards(
    Array.from({ length: all.length }, (_, rank) => ({ problemId: all.problemId(rank), modelId: all.modelId(rank), tests: all.tests(rank) })),
    shard.count,
  );
  const ranks: number[] = [];
  for (let rank = 0; rank < all.length; rank++) if (shardOf[rank] === shard.index) ranks.push(rank);
  const specs = subList(all, ranks);
  const problemTags = selected
    .filter((p) => p.tags.length > 0)
    .map((p): [string, string[]] => [p.id, [...p.tags]])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    specs,
    ranks,
    record: { index: shard.index, count: shard.count, evalrun_version: VERSION, inputs, loads, problem_tags: problemTags },
  };
}

export function shardLogRecord(plan: ShardPlan, problems: ProblemReport[], skipped: SkippedSubmissionReport[]): ShardLogRecord {
  return {
    ...plan.record,
    planned: plan.ranks.map((rank, i) => [rank, plan.specs.key(i)]),
    problems,
    skipped_submissions: skipped,
  };
}

/** `[0, 1, 2, 3, 7]` as `0-3,7`. */
export function encodeRanks(ranks: readonly number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < ranks.length) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j]! + 1) j++;
    parts.push(j === i ? String(ranks[i]) : `${ranks[i]}-${ranks[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The inverse of encodeRanks; throws on anything it would not have written. */
export function decodeRanks(text: string): number[] {
  if (text === '') return [];
  const out: number[] = [];
  for (const part of text.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (match === null) throw new Error(`bad rank range "${part}"`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) throw new Error(`bad rank range "${part}"`);
    for (let r = from; r <= to; r++) out.push(r);
  }
  return out;
}

/** A sharded run resumed over problem or solution files that are not the ones it started with. */
export class ShardInputsChanged extends Error {}

/** The digest of what a shard read: the problem files, and the submissions when it grades them. */
export async function digestInputs(
  solutionsDir: string | null,
  problems: readonly WalkedFile[],
  solutions: readonly WalkedFile[] | null,
): Promise<InputDigest> {
  return {
    problems: await digestFolder(problems),
    solutions: solutionsDir === null || solutions === null ? null : await digestFolder(solutions, folderName(solutionsDir)),
  };
}

/** A resumed shard must find the input it started with, or its plan (and the merge) would not hold. */
export function checkResumedShard(header: RunHeader, now: ShardLogRecord): void {
  const before = header.shard;
  if (before === undefined) throw new ShardInputsChanged('the run log records no shard, but its options name one');
  const changed = digestDifferences(before.inputs, now.inputs);
  if (changed.length === 0 && JSON.stringify(before.planned) === JSON.stringify(now.planned)) return;
  throw new ShardInputsChanged(
    `shard ${before.index}/${before.count}: the problem or solution files are not the ones this shard started with ` +
      `(${changed.length > 0 ? changed.join('; ') : 'another plan'}); grade the shard again from the start`,
  );
}

/** The scorecard's shard block: the log's, with the ranks of the candidates the scorecard lists (`finished`) instead of the plan. */
export function shardCard(record: ShardLogRecord, ranks: readonly number[], finished: (i: number) => boolean): ShardCardRecord {
  const { planned: _planned, problems: _problems, skipped_submissions: _skipped, ...common } = record;
  return { ...common, ranks: encodeRanks(ranks.filter((_, i) => finished(i))) };
}
