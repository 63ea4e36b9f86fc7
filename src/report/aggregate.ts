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

/** `candidates` in input order: an array, or rows made one at a time and let go (a run's, from its row store). */
export function aggregateResults(candidates: Iterable<AggregatableResult>, options: AggregateOptions = {}): Aggregates {
  const tagsByProblem = options.tagsByProblem ?? new Map<string, readonly string[]>();
  const ks = options.ks ?? DEFAULTS.passAtK;
  // One pass over the candidates finds each one's group (problem, model,
  // prompt) with one map lookup; the rows by model, prompt and tag are then
  // rolled up from the groups, of which there are far fewer.
  const problems = new Map<string, ProblemGroups>();
  let index = -1;
  for (const c of candidates) {
    index++;
    let problem = problems.get(c.problem_id);
    if (problem === undefined) problems.set(c.problem_id, (problem = { groups: [] }));
    let group: Group | undefined;
    for (const g of problem.groups) {
      if (g.model === c.model_id && g.prompt === c.prompt_id) {
        group = g;
        break;
      }
    }
    if (group === undefined) problem.groups.push((group = { model: c.model_id, prompt: c.prompt_id, first: index, n: 0, c: 0, tests: 0, passed: 0 }));
    group.n++;
    if (candidatePasses(c)) group.c++;
    group.tests += c.total;
    group.passed += c.passed;
  }
  const models = new Map<string, ModelTally>();
  const prompts = new Map<string | null, Tally>();
  const tags = new Map<string, Tally>();
  for (const [problemId, { groups }] of problems) {
    for (const g of groups) {
      let model = models.get(g.model);
      if (model === undefined) models.set(g.model, (model = { ...newTally(), tasks: [], since: 0 }));
      // A model's tasks go by where its first candidate of each problem comes: the order pass@k sums them in.
      if (model.lastProblem !== problemId) model.since = g.first;
      count(model, problemId, g);
      model.tasks.push({ group: g, since: model.since });
      let prompt = prompts.get(g.prompt);
      if (prompt === undefined) prompts.set(g.prompt, (prompt = newTally()));
      count(prompt, problemId, g);
    }
    for (const name of new Set(tagsByProblem.get(problemId) ?? [])) {
      let tag = tags.get(name);
      if (tag === undefined) tags.set(name, (tag = newTally()));
      for (const g of groups) count(tag, problemId, g);
    }
  }
  const byModel = [...models].sort(byKey);
  return {
    models: byModel.map(([model_id, t]) => ({ model_id, ...metrics(t) })),
    prompts: [...prompts].sort(byKey).map(([prompt_id, t]) => ({ prompt_id, ...metrics(t) })),
    tags: [...tags].sort(byKey).map(([tag, t]) => ({ tag, ...metrics(t) })),
    pass_at_k: byModel.map(([model_id, t]) => passAtKRow(model_id, inModelOrder(t.tasks), ks)),
  };
}

/** A model's tasks ordered by where its first candidate of their problem comes, then of their own (a stable sort keeps the second). */
function inModelOrder(tasks: Array<{ group: Group; since: number }>): Group[] {
  if (tasks.some((t, i) => i > 0 && t.since < tasks[i - 1]!.since)) tasks.sort((a, b) => a.since - b.since);
  return tasks.map((t) => t.group);
}

export function candidatePasses(c: Pick<AggregatableResult, 'passed' | 'total'>): boolean {
  return c.total > 0 && c.passed === c.total;
}

/** The candidates of one problem, model and prompt: a pass@k task; `c` of its `n` pass. */
interface Group {
  model: string;
  prompt: string | null;
  /** Where its first candidate comes among them all. */
  first: number;
  n: number;
  c: number;
  tests: number;
  passed: number;
}

/** A problem's groups, in the order their first candidates come. */
interface ProblemGroups {
  groups: Group[];
}

/**
 * A row's running counts. A problem's groups are counted one after another,
 * so its problem is counted once when it differs from the last one counted.
 */
interface Tally {
  candidates: number;
  tests: number;
  passed: number;
  problems: number;
  solved: number;
  lastProblem: string | null;
  lastSolved: boolean;
}

/** A model's counts, and its pass@k tasks with where its first candidate of their problem comes. */
interface ModelTally extends Tally {
  tasks: Array<{ group: Group; since: number }>;
  since: number;
}

function newTally(): Tally {
  return { candidates: 0, tests: 0, passed: 0, problems: 0, solved: 0, lastProblem: null, lastSolved: false };
}

function count(t: Tally, problemId: string, g: Group): void {
  t.candidates += g.n;
  t.tests += g.tests;
  t.passed += g.passed;
  if (t.lastProblem !== problemId) {
    t.lastProblem = problemId;
    t.lastSolved = false;
    t.problems++;
  }
  if (g.c > 0 && !t.lastSolved) {
    t.lastSolved = true;
    t.solved++;
  }
}

function metrics(t: Tally): RowMetrics {
  return {
    candidates: t.candidates,
    tests: t.tests,
    passed: t.passed,
    problems: t.problems,
    problems_solved: t.solved,
    pass_rate: t.tests === 0 ? 0 : t.passed / t.tests,
  };
}

function passAtKRow(model_id: string, groups: readonly Group[], ks: readonly number[]): PassAtKRow {
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
