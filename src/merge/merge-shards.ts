/**
 * `evalrun merge`: the shards of one sharded run (`--shard I/N`), as run
 * logs or scorecards, combined into the scorecard a single run of the whole
 * would have written: the same candidates in the same order, and the
 * summary, roll-ups and pass@k computed again over all of them.
 *
 * The merge writes a run log of its own, in a single run's shape (a header
 * without a shard, then the candidates in the whole plan's order), and
 * builds the reporters' RunOutcome from it, so every reporter works on a
 * merge as on a run.
 *
 * Shards are refused when they cannot be parts of one run: a different
 * mode, evalrun version, shard count, input digest or option that changes
 * grading (`concurrency` and the folders' paths do not: shards on different
 * machines may mount the same files elsewhere); the same shard twice; or
 * two shards claiming one candidate. Missing shards, and shards that did
 * not finish, make the merge incomplete: it says which, and marks the
 * scorecard `"complete": false`. Shards graded under different test
 * limits (--timeout-factor measured on each shard's machine) are merged with
 * a warning, on the problem and to the user (merge-limits.ts).
 */
import type { RunOutcome } from '../report/reporter.js';
import type { MergeRecord } from '../report/scorecard.js';
import { outcomeOf } from '../runner/outcome.js';
import { Tally } from '../runner/tally.js';
import { keysOf, RunLog } from '../runlog/run-log.js';
import { digestDifferences } from '../runner/input-digest.js';
import type { ShardLoad } from '../runner/shard.js';
import { MergeRefused, readShard, type ShardCandidate, type ShardInput } from './read-shard.js';
import { DEFAULTS } from '../defaults.js';
import { mergeLimits } from './merge-limits.js';

export { MergeRefused };

export interface MergeOptions {
  /** Run logs or scorecards of the shards, in any order. */
  inputs: readonly string[];
  runId: string;
  /** The merged run log to write (the scorecard goes where the reporters put it). */
  logFile: string;
}

export interface MergeResult {
  outcome: RunOutcome;
  /** Lines for the user: missing and unfinished shards. */
  warnings: string[];
  /** Close the merged log once the reporters are done. */
  close(): void;
}

/** Options that may differ between the shards of one run. */
const MAY_DIFFER = new Set(['concurrency', 'problems', 'solutions', 'shard', 'test_limits']);

export function mergeShards(options: MergeOptions): MergeResult {
  if (options.inputs.length === 0) throw new MergeRefused('no shards given');
  const shards: ShardInput[] = [];
  try {
    for (const input of options.inputs) shards.push(readShard(input));
    shards.sort((a, b) => a.record.index - b.record.index);
    return mergeRead(shards, options);
  } finally {
    for (const shard of shards) shard.close();
  }
}

function mergeRead(shards: ShardInput[], options: MergeOptions): MergeResult {
  checkCompatible(shards);
  const first = shards[0]!;
  const count = first.record.count;
  const loads = first.record.loads;

  const candidates = collect(shards);
  const present = new Set(shards.map((s) => s.record.index));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !present.has(i));
  const warnings: string[] = [];
  if (missing.length > 0) {
    const lost = sumLoads(missing.map((i) => loads[i - 1]!));
    warnings.push(
      `missing ${missing.length === 1 ? 'shard' : 'shards'} ${missing.map((i) => `${i}/${count}`).join(', ')} (${lost.candidates} candidates, ${lost.tests} tests not merged); the scorecard is marked incomplete`,
    );
  }
  const unfinished = shards.filter((s) => s.candidates.length < s.planned);
  for (const s of unfinished) {
    const finish = s.kind === 'log' ? `evalrun --resume ${s.file}` : 'evalrun --resume on its run log';
    warnings.push(
      `shard ${s.record.index}/${count} (${s.file}) finished ${s.candidates.length} of its ${s.planned} candidates; finish it with ${finish}, then merge again`,
    );
  }

  // Each shard's test limits (--timeout-factor); shards that disagree are warned about on the problem, not refused.
  const merged = mergeLimits(shards, first.problems);
  warnings.push(...merged.warnings);
  const problems = merged.problems;

  const runOptions = withoutShard(first.options);
  const startedAt = shards.map((s) => s.startedAt).sort()[0]!;
  const store = new Tally(RunLog.create(options.logFile, { type: 'run', run_id: options.runId, started_at: startedAt, mode: first.mode, options: runOptions }));
  const finished = shards
    .map((s) => s.finishedAt)
    .filter((t): t is string => t !== null)
    .sort();
  const end = { finished_at: finished[finished.length - 1] ?? new Date().toISOString(), complete: missing.length === 0 && unfinished.length === 0 };
  const tags = new Map(first.record.problem_tags);
  try {
    const keys = keysOf(candidates.map((c) => c.candidate.key));
    store.plan(keys);
    // The plan and end lines make the merged log one that `evalrun report` renders like a single run's.
    for (const [id, limits] of merged.limits) store.log.noteLimits(id, limits);
    store.log.notePlan({ keys, problems, tags, skipped_submissions: first.skipped });
    for (const { candidate, shard } of candidates) store.recordResults(candidate.key, shards[shard]!.results(candidate.at));
    store.log.noteEnd(end);
    // On disk before any scorecard is written, as a run's log is.
    store.log.flush();
  } catch (e) {
    store.log.close();
    throw e;
  }

  const merge: MergeRecord = {
    count,
    shards: shards.map((s) => ({ index: s.record.index, file: s.file, complete: s.candidates.length >= s.planned })),
    missing,
  };
  const outcome = outcomeOf(store, {
    header: { mode: first.mode, run_id: options.runId, started_at: startedAt, options: runOptions },
    finishedAt: end.finished_at,
    complete: end.complete,
    problems,
    tagsByProblem: tags,
    skipped: first.skipped,
    passAtK: Array.isArray(runOptions.pass_at_k) ? (runOptions.pass_at_k as number[]) : [...DEFAULTS.passAtK],
  });
  return { outcome: { ...outcome, head: { ...outcome.head, merge } }, warnings, close: () => store.log.close() };
}

/** Every shard's finished candidates, in the whole plan's order; refuses a candidate claimed twice. */
function collect(shards: readonly ShardInput[]): Array<{ candidate: ShardCandidate; shard: number }> {
  const total = sumLoads(shards[0]!.record.loads).candidates;
  const all: Array<{ candidate: ShardCandidate; shard: number }> = [];
  shards.forEach((s, shard) => {
    for (const candidate of s.candidates) {
      if (candidate.rank < 0 || candidate.rank >= total) {
        throw new MergeRefused(`${s.file}: candidate ${candidate.key} is ranked ${candidate.rank}, outside the run's ${total} candidates`);
      }
      all.push({ candidate, shard });
    }
  });
  all.sort((a, b) => a.candidate.rank - b.candidate.rank);
  const holder = new Map<string, number>();
  all.forEach((b, i) => {
    const a = i > 0 ? all[i - 1]! : null;
    const sameKey = holder.get(b.candidate.key);
    const other = a !== null && a.candidate.rank === b.candidate.rank ? a.shard : sameKey;
    if (other !== undefined) {
      throw new MergeRefused(`shards overlap: ${shards[other]!.file} and ${shards[b.shard]!.file} both hold candidate ${b.candidate.key}`);
    }
    holder.set(b.candidate.key, b.shard);
  });
  return all;
}

function checkCompatible(shards: readonly ShardInput[]): void {
  const first = shards[0]!;
  const differs = (what: string, a: unknown, b: unknown, s: ShardInput): never => {
    throw new MergeRefused(`${s.file} is not a shard of the same run as ${first.file}: ${what} differs (${JSON.stringify(b)} against ${JSON.stringify(a)})`);
  };
  const seen = new Map<number, string>([[first.record.index, first.file]]);
  for (const s of shards.slice(1)) {
    if (s.record.count !== first.record.count) differs('the shard count', first.record.count, s.record.count, s);
    if (s.mode !== first.mode) differs('the mode', first.mode, s.mode, s);
    if (s.record.evalrun_version !== first.record.evalrun_version) differs('the evalrun version', first.record.evalrun_version, s.record.evalrun_version, s);
    const inputs = digestDifferences(first.record.inputs, s.record.inputs);
    if (inputs.length > 0) {
      throw new MergeRefused(`${s.file} is not a shard of the same run as ${first.file}: it read other input: ${inputs.join('; ')}`);
    }
    const a = first.options;
    const b = s.options;
    for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (MAY_DIFFER.has(name)) continue;
      if (canonical(a[name]) !== canonical(b[name])) differs(`option ${name}`, a[name], b[name], s);
    }
    const other = seen.get(s.record.index);
    if (other !== undefined) {
      throw new MergeRefused(`shards overlap: ${other} and ${s.file} are both shard ${s.record.index}/${s.record.count}; give each shard once`);
    }
    seen.set(s.record.index, s.file);
  }
}

/** JSON with object keys sorted, so that key order never counts as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}

function withoutShard(options: Record<string, unknown>): Record<string, unknown> {
  const { shard: _shard, ...rest } = options;
  return rest;
}

function sumLoads(loads: readonly ShardLoad[]): ShardLoad {
  return loads.reduce((t, l) => ({ groups: t.groups + l.groups, candidates: t.candidates + l.candidates, tests: t.tests + l.tests }), {
    groups: 0,
    candidates: 0,
    tests: 0,
  });
}
