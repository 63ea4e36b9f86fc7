/**
 * The test limits of a merged run (--timeout-factor): each shard records the
 * limits it graded each problem under (its log's limits lines, or its
 * scorecard's `problems[].test_limits`). Shards that measured them each on
 * their own machine may disagree; the merge then keeps the limits of the
 * first shard that graded candidates of the problem and records a warning
 * on the problem (and tells the user), since its candidates were graded
 * under different limits. `--test-limits` gives every shard one set.
 */
import type { ProblemReport, TestLimitsReport } from '../report/scorecard.js';
import type { ShardInput } from './read-shard.js';

export interface MergedLimits {
  problems: ProblemReport[];
  /** Each problem's limits, for the merged log's limits lines. */
  limits: Map<string, TestLimitsReport>;
  warnings: string[];
}

/** `problems` with each problem's limits, and a warning on each whose shards disagree. Shards in index order. */
export function mergeLimits(shards: readonly ShardInput[], problems: readonly ProblemReport[]): MergedLimits {
  const count = shards[0]?.record.count ?? 0;
  const limits = new Map<string, TestLimitsReport>();
  const disagreements = new Map<string, string>();
  const ids = new Set(shards.flatMap((s) => [...s.limits.keys()]));
  for (const id of ids) {
    // Only shards that graded candidates of the problem count; a shard also records the problems it measured for the others.
    const graders = shards.filter((s) => s.limits.has(id) && s.candidates.some((c) => problemOfKey(c.key) === id));
    const holders = graders.length > 0 ? graders : shards.filter((s) => s.limits.has(id));
    const kept = holders[0]!.limits.get(id)!;
    limits.set(id, kept);
    const others = holders.filter((s) => same(s.limits.get(id)!) !== same(kept));
    if (others.length > 0 && graders.length > 0) {
      const each = graders.map((s) => `shard ${s.record.index}/${count}: ${describe(s.limits.get(id)!)}`).join('; ');
      disagreements.set(
        id,
        `the shards graded this problem under different test limits (${each}); the first is shown. Measure them once and give every shard --test-limits`,
      );
    }
  }
  const merged = problems.map((p) => {
    const id = p.problem_id;
    if (id === null || !limits.has(id)) return p;
    const warning = disagreements.get(id);
    return { ...p, warnings: warning === undefined ? p.warnings : [...p.warnings, warning], test_limits: limits.get(id)! };
  });
  return { problems: merged, limits, warnings: [...disagreements].map(([id, w]) => `problem ${id}: ${w}`) };
}

/** The problem id of a candidate key (candidateKey: a JSON array whose first item is the problem id). */
function problemOfKey(key: string): string | null {
  try {
    const parsed = JSON.parse(key) as unknown;
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : null;
  } catch {
    return null;
  }
}

/** The limits as compared: where a shard read them from does not count. */
function same(limits: TestLimitsReport): string {
  return JSON.stringify([limits.from, limits.language ?? null, limits.tests_ms ?? null, limits.timeout_ms ?? null]);
}

function describe(limits: TestLimitsReport): string {
  return limits.from === 'optimal_solution' ? `[${(limits.tests_ms ?? []).join(', ')}] ms` : `--timeout ${limits.timeout_ms ?? '?'} ms`;
}
