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
  const tagsOf = (c: AggregatableResult): readonly string[] => {
    let tags = distinctTags.get(c.problem_id);
    if (tags === undefined) {
      tags = [...new Set(tagsByProblem.get(c.problem_id) ?? [])];
      distinctTags.set(c.problem_id, tags);
    }
    return tags;
  };
  const byModel = [...groupBy(candidates, (c) => [c.model_id])].sort(byKey);
  return {
    models: byModel.map(([model_id, rows]) => ({ model_id, ...metrics(rows) })),
    prompts: [...groupBy(candidates, (c) => [c.prompt_id])].sort(byKey).map(([prompt_id, rows]) => ({ prompt_id, ...metrics(rows) })),
    tags: [...groupBy(candidates, tagsOf)].sort(byKey).map(([tag, rows]) => ({ tag, ...metrics(rows) })),
    pass_at_k: byModel.map(([model_id, rows]) => passAtKRow(model_id, rows, ks)),
  };
}

export function candidatePasses(c: Pick<AggregatableResult, 'passed' | 'total'>): boolean {
  return c.total > 0 && c.passed === c.total;
}

function metrics(rows: readonly AggregatableResult[]): RowMetrics {
  const problems = new Set<string>();
  const solved = new Set<string>();
  let tests = 0;
  let passed = 0;
  for (const c of rows) {
    problems.add(c.problem_id);
    if (candidatePasses(c)) solved.add(c.problem_id);
    tests += c.total;
    passed += c.passed;
  }
  return {
    candidates: rows.length,
    tests,
    passed,
    problems: problems.size,
    problems_solved: solved.size,
    pass_rate: tests === 0 ? 0 : passed / tests,
  };
}

function passAtKRow(model_id: string, rows: readonly AggregatableResult[], ks: readonly number[]): PassAtKRow {
  // A task is a (problem, prompt) pair: a map per problem keeps ids containing any character apart.
  const tasks = new Map<string, Map<string | null, { n: number; c: number }>>();
  for (const sample of rows) {
    let prompts = tasks.get(sample.problem_id);
    if (prompts === undefined) tasks.set(sample.problem_id, (prompts = new Map<string | null, { n: number; c: number }>()));
    let group = prompts.get(sample.prompt_id);
    if (group === undefined) prompts.set(sample.prompt_id, (group = { n: 0, c: 0 }));
    group.n++;
    if (candidatePasses(sample)) group.c++;
  }
  const groups = [...tasks.values()].flatMap((prompts) => [...prompts.values()]);
  const sizes = groups.map((g) => g.n);
  return {
    model_id,
    tasks: groups.length,
    min_samples: sizes.length === 0 ? 0 : sizes.reduce((a, b) => Math.min(a, b)),
    max_samples: sizes.length === 0 ? 0 : sizes.reduce((a, b) => Math.max(a, b)),
    values: passAtKTable(groups, ks),
  };
}

/** Groups items under each of the keys `keysOf` gives them (a candidate can carry several tags). */
function groupBy<T, K>(items: readonly T[], keysOf: (item: T) => Iterable<K>): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    for (const key of keysOf(item)) {
      const list = groups.get(key);
      if (list === undefined) groups.set(key, [item]);
      else list.push(item);
    }
  }
  return groups;
}

/** Code-unit order with null first: stable across machines, unlike localeCompare. */
function byKey<K extends string | null>([a]: [K, unknown], [b]: [K, unknown]): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}
