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
import { Interned } from '../interned.js';
import { grown } from '../typed-arrays.js';

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

/**
 * The roll-ups made as the candidates are added, in input order, one at a
 * time: a run's end adds each row as it reads it, beside its other counts,
 * and keeps no row. Each candidate finds its group (problem, model, prompt)
 * with one map lookup; the rows by model, prompt and tag are rolled up
 * from the groups, of which there are far fewer. The groups are columns of
 * numbers rather than an object each: a self-check has a group per
 * candidate, and what lives until the scorecards are written is copied by
 * the garbage collector as it ages, work the supervisor does per candidate.
 */
export class Aggregator {
  /** Each problem's first group, in the order problems first come. */
  private readonly firstGroup = new Map<string, number>();
  /** Models and prompts by index, as the groups refer to them. */
  private readonly modelIds = new Interned<string>();
  private readonly promptIds = new Interned<string | null>();
  private groups = 0;
  private model = new Int32Array(64);
  private prompt = new Int32Array(64);
  /** Where the group's first candidate comes among them all. */
  private first = new Float64Array(64);
  /** The problem's next group, or -1. */
  private next = new Int32Array(64);
  /** `n` candidates of which `c` pass, their tests and passed tests. */
  private n = new Float64Array(64);
  private c = new Float64Array(64);
  private tests = new Float64Array(64);
  private passed = new Float64Array(64);
  private added = 0;

  add(candidate: AggregatableResult): void {
    const index = this.added++;
    const model = this.modelIds.of(candidate.model_id);
    const prompt = this.promptIds.of(candidate.prompt_id);
    const first = this.firstGroup.get(candidate.problem_id);
    let g: number;
    if (first === undefined) this.firstGroup.set(candidate.problem_id, (g = this.newGroup(model, prompt, index)));
    else g = this.groupIn(first, model, prompt, index);
    this.n[g] = this.n[g]! + 1;
    if (candidatePasses(candidate)) this.c[g] = this.c[g]! + 1;
    this.tests[g] = this.tests[g]! + candidate.total;
    this.passed[g] = this.passed[g]! + candidate.passed;
  }

  /** The group of this model and prompt among a problem's groups from `g`, made when there is none. */
  private groupIn(g: number, model: number, prompt: number, index: number): number {
    for (;;) {
      if (this.model[g] === model && this.prompt[g] === prompt) return g;
      const next = this.next[g]!;
      if (next === NO_GROUP) {
        // Made before it is linked: making it may replace the columns.
        const made = this.newGroup(model, prompt, index);
        this.next[g] = made;
        return made;
      }
      g = next;
    }
  }

  /** Whether some candidate of this problem was added. */
  has(problemId: string): boolean {
    return this.firstGroup.has(problemId);
  }

  result(options: AggregateOptions = {}): Aggregates {
    const tagsByProblem = options.tagsByProblem ?? new Map<string, readonly string[]>();
    const ks = options.ks ?? DEFAULTS.passAtK;
    const models = new Map<number, ModelTally>();
    const prompts = new Map<number, Tally>();
    const tags = new Map<string, Tally>();
    for (const [problemId, first] of this.firstGroup) {
      for (let g = first; g !== NO_GROUP; g = this.next[g]!) {
        let model = models.get(this.model[g]!);
        if (model === undefined) models.set(this.model[g]!, (model = { ...newTally(), tasks: [], since: [], from: 0 }));
        // A model's tasks go by where its first candidate of each problem comes: the order pass@k sums them in.
        if (model.lastProblem !== problemId) model.from = this.first[g]!;
        this.count(model, problemId, g);
        model.tasks.push(g);
        model.since.push(model.from);
        let prompt = prompts.get(this.prompt[g]!);
        if (prompt === undefined) prompts.set(this.prompt[g]!, (prompt = newTally()));
        this.count(prompt, problemId, g);
      }
      const tagged = tagsByProblem.get(problemId);
      if (tagged === undefined || tagged.length === 0) continue;
      for (const name of distinct(tagged)) {
        let tag = tags.get(name);
        if (tag === undefined) tags.set(name, (tag = newTally()));
        for (let g = first; g !== NO_GROUP; g = this.next[g]!) this.count(tag, problemId, g);
      }
    }
    const byModel = [...models].map(([m, t]) => [this.modelIds.at(m), t] as [string, ModelTally]).sort(byKey);
    return {
      models: byModel.map(([model_id, t]) => ({ model_id, ...metrics(t) })),
      prompts: [...prompts]
        .map(([p, t]) => [this.promptIds.at(p), t] as [string | null, Tally])
        .sort(byKey)
        .map(([prompt_id, t]) => ({ prompt_id, ...metrics(t) })),
      tags: [...tags].sort(byKey).map(([tag, t]) => ({ tag, ...metrics(t) })),
      pass_at_k: byModel.map(([model_id, t]) => passAtKRow(model_id, this.inModelOrder(t), ks)),
    };
  }

  /** A model's tasks ordered by where its first candidate of their problem comes, then of their own (a stable sort keeps the second). */
  private inModelOrder(t: ModelTally): Task[] {
    let tasks = t.tasks;
    if (t.since.some((s, i) => i > 0 && s < t.since[i - 1]!)) {
      const order = tasks.map((_, i) => i).sort((a, b) => t.since[a]! - t.since[b]!);
      tasks = order.map((i) => t.tasks[i]!);
    }
    return tasks.map((g) => ({ n: this.n[g]!, c: this.c[g]! }));
  }

  /**
   * Counts group `g` of `problemId` in a row. A problem's groups are
   * counted one after another, so its problem is counted once when it
   * differs from the last one counted.
   */
  private count(t: Tally, problemId: string, g: number): void {
    t.candidates += this.n[g]!;
    t.tests += this.tests[g]!;
    t.passed += this.passed[g]!;
    if (t.lastProblem !== problemId) {
      t.lastProblem = problemId;
      t.lastSolved = false;
      t.problems++;
    }
    if (this.c[g]! > 0 && !t.lastSolved) {
      t.lastSolved = true;
      t.solved++;
    }
  }

  private newGroup(model: number, prompt: number, first: number): number {
    const g = this.groups++;
    if (g === this.model.length) {
      const size = g * 2;
      this.model = grown(this.model, size);
      this.prompt = grown(this.prompt, size);
      this.first = grown(this.first, size);
      this.next = grown(this.next, size);
      this.n = grown(this.n, size);
      this.c = grown(this.c, size);
      this.tests = grown(this.tests, size);
      this.passed = grown(this.passed, size);
    }
    this.model[g] = model;
    this.prompt[g] = prompt;
    this.first[g] = first;
    this.next[g] = NO_GROUP;
    return g;
  }
}

const NO_GROUP = -1;

export function candidatePasses(c: Pick<AggregatableResult, 'passed' | 'total'>): boolean {
  return c.total > 0 && c.passed === c.total;
}

/** A pass@k task: the candidates of one problem, model and prompt, `c` of its `n` passing. */
interface Task {
  n: number;
  c: number;
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

/** A model's counts, and its pass@k tasks (groups) with where its first candidate of each one's problem comes. */
interface ModelTally extends Tally {
  tasks: number[];
  since: number[];
  /** Where its first candidate of the problem being counted comes. */
  from: number;
}

function newTally(): Tally {
  return { candidates: 0, tests: 0, passed: 0, problems: 0, solved: 0, lastProblem: null, lastSolved: false };
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

function passAtKRow(model_id: string, groups: readonly Task[], ks: readonly number[]): PassAtKRow {
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

/**
 * A problem's tags, each once, in the order they first come: the list itself
 * when no tag repeats (a problem has a few, told apart here without a set of
 * its own; in a self-check every candidate is a problem).
 */
function distinct(tags: readonly string[]): Iterable<string> {
  if (tags.length > 8) return new Set(tags);
  for (let i = 1; i < tags.length; i++) if (tags.lastIndexOf(tags[i]!, i - 1) >= 0) return new Set(tags);
  return tags;
}

/** Code-unit order with null first: stable across machines, unlike localeCompare. */
function byKey<K extends string | null>([a]: [K, unknown], [b]: [K, unknown]): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}
