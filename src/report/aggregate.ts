/**
 * Roll-ups of candidate results by model, by prompt and by problem tag, and
 * pass@k per model.
 *
 * Definitions used by every row:
 * - a candidate PASSES when it has at least one test and passed all of them
 *   (`total > 0 && passed === total`); a candidate with no tests never passes;
 * - `candidates`, `tests` (sum of `total`), `passed` (sum of `passed`);
 * - `problems`: distinct problem ids among the row's candidates;
 * - `problems_solved`: those problems for which at least one of the row's
 *   candidates passes (for a model: any prompt, any sample of that model);
 * - `pass_rate`: passed / tests, 0 when there are no tests (as in Summary).
 *
 * pass@k: candidates are grouped by (problem, prompt, model); each group has
 * n samples of which c pass; a model's values are passAtKTable over its
 * groups (so each prompt of a problem counts as its own task).
 *
 * Rows are sorted by id (code-unit order; a null prompt first), so output is
 * deterministic whatever order the candidates finished in.
 */
import { passAtKTable } from './pass-at-k.js';
import { DEFAULTS } from '../defaults.js';

export interface RowMetrics {
  candidates: number;
  tests: number;
  passed: number;
  problems: number;
  problems_solved: number;
  pass_rate: number;
}

export interface ModelRow extends RowMetrics {
  model_id: string;
}

export interface PromptRow extends RowMetrics {
  /** Null for candidates without a prompt (e.g. a problem's optimal_solution). */
  prompt_id: string | null;
}

export interface TagRow extends RowMetrics {
  tag: string;
}

export interface PassAtKRow {
  model_id: string;
  /** Number of (problem, prompt) tasks the model has samples for. */
  tasks: number;
  /** Fewest and most samples of one task: a k above min_samples gives null. */
  min_samples: number;
  max_samples: number;
  /** `pass@1`, `pass@10`, …: null when some task has fewer than k samples. */
  values: Record<string, number | null>;
}

export interface Aggregates {
  models: ModelRow[];
  prompts: PromptRow[];
  tags: TagRow[];
  pass_at_k: PassAtKRow[];
}

export interface AggregateOptions {
  /** Tags of each problem; problems not in the map have no tags. */
  tagsByProblem?: ReadonlyMap<string, readonly string[]>;
  /** The k values of pass@k; default DEFAULTS.passAtK. */
  ks?: readonly number[];
}

/**
 * What a roll-up reads of a candidate's result (the fields of the
 * scorecard's CandidateResult of the same names), so that the scorecard's
 * types can name the rows without a cycle.
 */
export interface AggregatableResult {
  problem_id: string;
  model_id: string;
  prompt_id: string | null;
  passed: number;
  total: number;
}

export function aggregateResults(candidates: readonly AggregatableResult[], options: AggregateOptions = {}): Aggregates {
  const tagsByProblem = options.tagsByProblem ?? new Map<string, readonly string[]>();
  const ks = options.ks ?? DEFAULTS.passAtK;
  // A problem's tags without repeats, worked out once per problem rather than once per candidate.
  const distinctTags = new Map<string, readonly string[]>();
  const models = new Map<string, ModelTally>();
  const prompts = new Map<string | null, Tally>();
  const tags = new Map<string, Tally>();
  // One pass: a run of a million tests is rolled up without a list per group.
  for (const c of candidates) {
    const passes = candidatePasses(c);
    let model = models.get(c.model_id);
    if (model === undefined) models.set(c.model_id, (model = { ...newTally(), tasks: new Map() }));
    count(model, c, passes);
    countTask(model.tasks, c, passes);
    let prompt = prompts.get(c.prompt_id);
    if (prompt === undefined) prompts.set(c.prompt_id, (prompt = newTally()));
    count(prompt, c, passes);
    let problemTags = distinctTags.get(c.problem_id);
    if (problemTags === undefined) distinctTags.set(c.problem_id, (problemTags = [...new Set(tagsByProblem.get(c.problem_id) ?? [])]));
    for (const name of problemTags) {
      let tag = tags.get(name);
      if (tag === undefined) tags.set(name, (tag = newTally()));
      count(tag, c, passes);
    }
  }
  const byModel = [...models].sort(byKey);
  return {
    models: byModel.map(([model_id, t]) => ({ model_id, ...metrics(t) })),
    prompts: [...prompts].sort(byKey).map(([prompt_id, t]) => ({ prompt_id, ...metrics(t) })),
    tags: [...tags].sort(byKey).map(([tag, t]) => ({ tag, ...metrics(t) })),
    pass_at_k: byModel.map(([model_id, t]) => passAtKRow(model_id, t.tasks, ks)),
  };
}

export function candidatePasses(c: Pick<AggregatableResult, 'passed' | 'total'>): boolean {
  return c.total > 0 && c.passed === c.total;
}

/** A group's running counts: its problems, and those that one of its candidates passes. */
interface Tally {
  candidates: number;
  tests: number;
  passed: number;
  problems: Set<string>;
  solved: Set<string>;
}

/** A model's counts, and its samples per (problem, prompt) task for pass@k. */
interface ModelTally extends Tally {
  /** A map per problem keeps ids containing any character apart. */
  tasks: Map<string, Map<string | null, { n: number; c: number }>>;
}

function newTally(): Tally {
  return { candidates: 0, tests: 0, passed: 0, problems: new Set(), solved: new Set() };
}

function count(t: Tally, c: AggregatableResult, passes: boolean): void {
  t.candidates++;
  t.tests += c.total;
  t.passed += c.passed;
  t.problems.add(c.problem_id);
  if (passes) t.solved.add(c.problem_id);
}

function countTask(tasks: ModelTally['tasks'], c: AggregatableResult, passes: boolean): void {
  let prompts = tasks.get(c.problem_id);
  if (prompts === undefined) tasks.set(c.problem_id, (prompts = new Map<string | null, { n: number; c: number }>()));
  let group = prompts.get(c.prompt_id);
  if (group === undefined) prompts.set(c.prompt_id, (group = { n: 0, c: 0 }));
  group.n++;
  if (passes) group.c++;
}

function metrics(t: Tally): RowMetrics {
  return {
    candidates: t.candidates,
    tests: t.tests,
    passed: t.passed,
    problems: t.problems.size,
    problems_solved: t.solved.size,
    pass_rate: t.tests === 0 ? 0 : t.passed / t.tests,
  };
}

function passAtKRow(model_id: string, tasks: ModelTally['tasks'], ks: readonly number[]): PassAtKRow {
  const groups = [...tasks.values()].flatMap((prompts) => [...prompts.values()]);
  let min = Infinity;
  let max = 0;
  for (const g of groups) {
    min = Math.min(min, g.n);
    max = Math.max(max, g.n);
  }
  return {
    model_id,
    tasks: groups.length,
    min_samples: groups.length === 0 ? 0 : min,
    max_samples: max,
    values: passAtKTable(groups, ks),
  };
}

/** Code-unit order with null first: stable across machines, unlike localeCompare. */
function byKey<K extends string | null>([a]: [K, unknown], [b]: [K, unknown]): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}
