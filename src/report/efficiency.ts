/**
 * The efficiency scores of --grade performance and memory, worked out at
 * the end of a run from its rows alone (each row's measured totals come from
 * its result record, rows.ts), so that a run, `--resume`, `evalrun report`,
 * shards and `merge` give the same scores.
 *
 * A candidate is scored against the optimal solution of its problem, graded
 * on the same suite in the same run, when both passed every test and were
 * measured and they are in the same language:
 * `performance = min(1, optimal cost / candidate cost)` and
 * `memory = min(1, optimal memory / candidate memory)`, each side's total over
 * the tests (measure.ts: cost counts the loading too; memory sums the tests'
 * peaks). A candidate with a zero total scores 1 (nothing beats no work,
 * zero on both sides included); an optimal solution scores 1 against itself.
 * A candidate that passed but could not be measured, where its problem's
 * optimal solution in its language was, scores 0, with the reason. Otherwise
 * the score is n/a (null) with the reason. Per model and per tag:
 * the mean over the scored candidates, and how many there were.
 */
import type { EfficiencyGrader } from '../grading/graders.js';
import { candidatePasses } from './aggregate.js';

/** Why a candidate has no efficiency score. */
export const NO_SCORE = {
  notPassed: 'not all tests passed',
  noOptimal: 'no optimal solution',
  /** A shard's own scorecard: the problem's optimal solution, if it has one, may be graded in another shard. */
  noOptimalInShard: 'no optimal solution graded in this shard (merge the shards to score it)',
  optimalFailed: 'the optimal solution did not pass every test',
  notMeasured: 'not measured',
  /** Not a missing score: the score is 0 (scoreOne). */
  zeroUnmeasured: 'scored 0, passed but not measured',
} as const;

/** One candidate's scores (in the order of the scorecard's `candidates`: `index`). */
export interface CandidateEfficiency {
  index: number;
  problem_id: string;
  model_id: string;
  /** Scores of the graders asked, null when n/a; absent for a grader not asked. */
  performance?: number | null;
  memory?: number | null;
  /**
   * Why the scores are n/a (null scores), or why they are 0 without figures
   * (`NO_SCORE.zeroUnmeasured`); null when scored from figures.
   */
  reason: string | null;
  /** The candidate's measured totals (null when not measured) and its reference's (null when it has none). */
  cost: number | null;
  memory_bytes: number | null;
  optimal_cost: number | null;
  optimal_memory_bytes: number | null;
}

/** A mean over the scored candidates of a group; null when none was scored. */
export interface ScoreMean {
  mean: number | null;
  scored: number;
}

interface GroupEfficiency {
  /** Candidates in the group, scored or not. */
  candidates: number;
  performance?: ScoreMean;
  memory?: ScoreMean;
}

export interface ModelEfficiency extends GroupEfficiency {
  model_id: string;
}

export interface TagEfficiency extends GroupEfficiency {
  tag: string;
}

/** The scorecard's `efficiency` section. */
export interface EfficiencyReport {
  graders: EfficiencyGrader[];
  models: ModelEfficiency[];
  tags: TagEfficiency[];
  candidates: CandidateEfficiency[];
}

/**
 * A measured run's totals of one candidate result, or why there are none
 * (a row's `efficiency`, rows.ts); `suite`: the suite its tests came from;
 * `reference`: the result is a problem's own optimal_solution, which the
 * others of its suite are scored against.
 */
export interface RowEfficiency {
  suite: string;
  reference: boolean;
  cost: number | null;
  memory: number | null;
  error: string | null;
}

/** What scoring reads of a candidate row (the fields of rows.ts's CandidateRow of the same names). */
export interface ScoredRow {
  problem_id: string;
  model_id: string;
  language: string;
  passed: number;
  total: number;
  efficiency?: RowEfficiency;
}

export function scoreEfficiency(
  rows: readonly ScoredRow[],
  graders: readonly EfficiencyGrader[],
  tagsByProblem: ReadonlyMap<string, readonly string[]> = new Map(),
  { shard = false }: { shard?: boolean } = {},
): EfficiencyReport {
  const references = new Map<string, ScoredRow>();
  for (const row of rows) {
    const key = referenceKey(row);
    if (row.efficiency?.reference === true && key !== null && !references.has(key)) references.set(key, row);
  }
  const noOptimal = shard ? NO_SCORE.noOptimalInShard : NO_SCORE.noOptimal;
  const candidates = rows.map((row, index) => scoreOne(row, index, references, graders, noOptimal));
  const models = new Map<string, Means>();
  const tags = new Map<string, Means>();
  candidates.forEach((scored) => {
    add(models, scored.model_id, scored);
    for (const tag of new Set(tagsByProblem.get(scored.problem_id) ?? [])) add(tags, tag, scored);
  });
  return {
    graders: [...graders],
    models: [...models].sort(byKey).map(([model_id, m]) => ({ model_id, ...means(m, graders) })),
    tags: [...tags].sort(byKey).map(([tag, m]) => ({ tag, ...means(m, graders) })),
    candidates,
  };
}

/** `min(1, optimal / candidate)`; a candidate that did no work (or used no memory) scores 1. */
export function efficiencyRatio(optimal: number, candidate: number): number {
  if (candidate <= 0) return 1;
  return Math.min(1, optimal / candidate);
}

function referenceKey(row: ScoredRow): string | null {
  return row.efficiency === undefined ? null : JSON.stringify([row.problem_id, row.efficiency.suite]);
}

function scoreOne(
  row: ScoredRow,
  index: number,
  references: ReadonlyMap<string, ScoredRow>,
  graders: readonly EfficiencyGrader[],
  noOptimal: string,
): CandidateEfficiency {
  const own = row.efficiency;
  const cost = own?.cost ?? null;
  const memory = own?.memory ?? null;
  const key = referenceKey(row);
  const reference = key === null ? undefined : references.get(key);
  const result = (reason: string | null, scores: { performance: number; memory: number } | null): CandidateEfficiency => {
    const scored: Pick<CandidateEfficiency, 'index' | 'problem_id' | 'model_id' | EfficiencyGrader> = {
      index,
      problem_id: row.problem_id,
      model_id: row.model_id,
    };
    for (const g of graders) scored[g] = scores === null ? null : scores[g];
    return {
      ...scored,
      reason,
      cost,
      memory_bytes: memory,
      optimal_cost: reference?.efficiency?.cost ?? null,
      optimal_memory_bytes: reference?.efficiency?.memory ?? null,
    };
  };
  if (!candidatePasses(row)) return result(NO_SCORE.notPassed, null);
  const optimal = referenceFigures(row, reference, noOptimal);
  if (cost === null || memory === null) {
    const why = own?.error ?? 'no figures in its record';
    // With the optimal solution measured in the same language, what kept this candidate from being measured is its own
    // code (a file written, the meter's names taken, code made at run time). Left out of the means, such code would raise
    // its model's score by escaping the measure; it counts as the worst score instead.
    return optimal.ok ? result(`${NO_SCORE.zeroUnmeasured}: ${why}`, { performance: 0, memory: 0 }) : result(`${NO_SCORE.notMeasured}: ${why}`, null);
  }
  if (!optimal.ok) return result(optimal.reason, null);
  return result(null, { performance: efficiencyRatio(optimal.cost, cost), memory: efficiencyRatio(optimal.memory, memory) });
}

/** The optimal solution's figures a candidate is scored against, or why there are none. */
function referenceFigures(
  row: ScoredRow,
  reference: ScoredRow | undefined,
  noOptimal: string,
): { ok: true; cost: number; memory: number } | { ok: false; reason: string } {
  if (reference === undefined) return { ok: false, reason: noOptimal };
  if (reference.language !== row.language) return { ok: false, reason: `the optimal solution is in another language (${reference.language})` };
  if (!candidatePasses(reference)) return { ok: false, reason: NO_SCORE.optimalFailed };
  const figures = reference.efficiency;
  if (figures?.cost == null || figures.memory === null) {
    return { ok: false, reason: `the optimal solution was ${NO_SCORE.notMeasured}: ${figures?.error ?? 'no figures in its record'}` };
  }
  return { ok: true, cost: figures.cost, memory: figures.memory };
}

/**
 * Each reason a candidate has, with how many have it, most first (then in
 * code-unit order), and whether it explains a score of 0 rather than a
 * missing one: what the table and Markdown list under the scores.
 */
export function reasonCounts(efficiency: EfficiencyReport): Array<{ reason: string; count: number; zero: boolean }> {
  const counts = new Map<string, { reason: string; count: number; zero: boolean }>();
  for (const c of efficiency.candidates) {
    if (c.reason === null) continue;
    const seen = counts.get(c.reason);
    if (seen !== undefined) seen.count++;
    else counts.set(c.reason, { reason: c.reason, count: 1, zero: !isUnscored(c, efficiency.graders) });
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
}

/** Whether a candidate's scores are missing (n/a), rather than given. */
export function isUnscored(scored: CandidateEfficiency, graders: readonly EfficiencyGrader[]): boolean {
  return graders.some((g) => scored[g] === null);
}

interface Means {
  candidates: number;
  sums: Record<EfficiencyGrader, number>;
  scored: Record<EfficiencyGrader, number>;
}

function add(groups: Map<string, Means>, key: string, scored: CandidateEfficiency): void {
  let m = groups.get(key);
  if (m === undefined) groups.set(key, (m = { candidates: 0, sums: { performance: 0, memory: 0 }, scored: { performance: 0, memory: 0 } }));
  m.candidates++;
  for (const g of ['performance', 'memory'] as const) {
    const score = scored[g];
    if (typeof score !== 'number') continue;
    m.sums[g] += score;
    m.scored[g]++;
  }
}

function means(m: Means, graders: readonly EfficiencyGrader[]): GroupEfficiency {
  const group: GroupEfficiency = { candidates: m.candidates };
  for (const g of graders) group[g] = { mean: m.scored[g] === 0 ? null : m.sums[g] / m.scored[g], scored: m.scored[g] };
  return group;
}

/** Code-unit order: stable across machines, unlike localeCompare. */
function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
