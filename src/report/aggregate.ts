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
 * n samples of which c pass; a model's values are passAtKTableOf over its
 * groups (so each prompt of a problem counts as its own task), leaving out
 * the groups with no tests (a problem without any: nothing to grade).
 *
 * Rows are sorted by id (code-unit order; a null prompt first), so output is
 * deterministic whatever order the candidates finished in.
 */
import { passAtKTableOf } from './pass-at-k.js';
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
 * from the groups, of which there are far fewer. The groups, and the
 * tallies they are rolled up into, are columns of numbers rather than an
 * object each: a self-check has a group per candidate, and both what lives
 * until the scorecards are written (which the garbage collector copies as
 * it ages) and each step of these passes are work the supervisor does per
 * candidate.
 */
export class Aggregator {
  /** Each problem's first group, by problem id; and the problems in the order they first come, with their first groups. */
  private readonly firstGroup = new Map<string, number>();
  private readonly problemIds: string[] = [];
  private problemFirst = new Int32Array(64);
  /** Models and prompts by index, as the groups refer to them. */
  private readonly modelIds = new Interned<string>();
  private readonly promptIds = new Interned<string | null>();
  /**
   * The last problem, model and prompt added, and their first group and
   * indexes: a run's candidates come in runs of one problem, model and
   * prompt, which then cost no lookup.
   */
  private lastProblem: string | null = null;
  private lastProblemFirst = NO_GROUP;
  private lastModel: string | null = null;
  private lastModelIndex = -1;
  private lastPrompt: string | null = null;
  private lastPromptIndex = -1;
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
    this.addCounts(candidate.problem_id, candidate.model_id, candidate.prompt_id, candidate.passed, candidate.total);
  }

  /** The same, given the fields rather than an object that holds them. */
  addCounts(problemId: string, modelId: string, promptId: string | null, passed: number, total: number): void {
    this.addRun(problemId, modelId, promptId, 1, passes(passed, total) ? 1 : 0, total, passed);
  }

  /**
   * `n` candidates of one problem, model and prompt that come one after
   * another, `c` of them passing, with their tests and passed tests: the
   * same as adding each of them, for a run of a pass@k plan's samples.
   */
  addRun(problemId: string, modelId: string, promptId: string | null, n: number, c: number, tests: number, passed: number): void {
    const index = this.added;
    this.added += n;
    const model = modelId === this.lastModel ? this.lastModelIndex : this.modelIndex(modelId);
    const prompt = promptId === this.lastPrompt && this.lastPromptIndex >= 0 ? this.lastPromptIndex : this.promptIndex(promptId);
    const g = problemId === this.lastProblem ? this.groupIn(this.lastProblemFirst, model, prompt, index) : this.groupOf(problemId, model, prompt, index);
    this.n[g] = this.n[g]! + n;
    this.c[g] = this.c[g]! + c;
    this.tests[g] = this.tests[g]! + tests;
    this.passed[g] = this.passed[g]! + passed;
  }

  private modelIndex(id: string): number {
    this.lastModel = id;
    return (this.lastModelIndex = this.modelIds.of(id));
  }

  private promptIndex(id: string | null): number {
    this.lastPrompt = id;
    return (this.lastPromptIndex = this.promptIds.of(id));
  }

  /** The group of this problem, model and prompt, found by the problem's id. */
  private groupOf(problemId: string, model: number, prompt: number, index: number): number {
    const first = this.firstGroup.get(problemId);
    const g = first === undefined ? this.newProblem(problemId, model, prompt, index) : this.groupIn(first, model, prompt, index);
    this.lastProblem = problemId;
    this.lastProblemFirst = first ?? g;
    return g;
  }

  private newProblem(problemId: string, model: number, prompt: number, index: number): number {
    const g = this.newGroup(model, prompt, index);
    const p = this.problemIds.length;
    this.problemIds.push(problemId);
    if (p === this.problemFirst.length) this.problemFirst = grown(this.problemFirst, p * 2);
    this.problemFirst[p] = g;
    this.firstGroup.set(problemId, g);
    return g;
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
    const models = new Tallies(this.modelIds.values.length);
    const prompts = new Tallies(this.promptIds.values.length);
    const tags = new Tallies(0);
    const tagIndexes = new Map<string, number>();
    // A model's pass@k tasks, and where its first candidate of each one's problem comes: the order pass@k sums them in.
    const tasks: number[][] = this.modelIds.values.map(() => []);
    const since: number[][] = this.modelIds.values.map(() => []);
    const from = new Float64Array(this.modelIds.values.length);
    for (let p = 0; p < this.problemIds.length; p++) {
      const first = this.problemFirst[p]!;
      for (let g = first; g !== NO_GROUP; g = this.next[g]!) {
        const m = this.model[g]!;
        if (models.count(m, p, this.n[g]!, this.tests[g]!, this.passed[g]!, this.c[g]!)) from[m] = this.first[g]!;
        // A task with no tests cannot be graded, so it counts neither for nor against a model's pass@k.
        if (this.tests[g]! > 0) {
          tasks[m]!.push(g);
          since[m]!.push(from[m]!);
        }
        prompts.count(this.prompt[g]!, p, this.n[g]!, this.tests[g]!, this.passed[g]!, this.c[g]!);
      }
      const tagged = tagsByProblem.get(this.problemIds[p]!);
      if (tagged === undefined || tagged.length === 0) continue;
      for (const name of distinct(tagged)) {
        let t = tagIndexes.get(name);
        if (t === undefined) tagIndexes.set(name, (t = tags.add()));
        for (let g = first; g !== NO_GROUP; g = this.next[g]!) tags.count(t, p, this.n[g]!, this.tests[g]!, this.passed[g]!, this.c[g]!);
      }
    }
    const byModel = this.modelIds.values.map((id, m) => [id, m] as [string, number]).sort(byKey);
    return {
      models: byModel.map(([model_id, m]) => ({ model_id, ...models.metrics(m) })),
      prompts: this.promptIds.values
        .map((id, p) => [id, p] as [string | null, number])
        .sort(byKey)
        .map(([prompt_id, p]) => ({ prompt_id, ...prompts.metrics(p) })),
      tags: [...tagIndexes].sort(byKey).map(([tag, t]) => ({ tag, ...tags.metrics(t) })),
      pass_at_k: byModel.map(([model_id, m]) => passAtKRow(model_id, inModelOrder(tasks[m]!, since[m]!), this.n, this.c, ks)),
    };
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
  return passes(c.passed, c.total);
}

/** The same rule, given the counts. */
export function passes(passed: number, total: number): boolean {
  return total > 0 && passed === total;
}

/** A model's tasks (groups) ordered by where its first candidate of their problem comes, then of their own (a stable sort keeps the second). */
function inModelOrder(tasks: number[], since: number[]): number[] {
  for (let i = 1; i < since.length; i++) {
    if (since[i]! < since[i - 1]!) {
      const order = tasks.map((_, j) => j).sort((a, b) => since[a]! - since[b]!);
      return order.map((j) => tasks[j]!);
    }
  }
  return tasks;
}

/**
 * Rows' running counts, one slot per model, prompt or tag, as columns. A
 * problem's groups are counted one after another, so its problem is
 * counted once when it differs from the last one counted.
 */
class Tallies {
  private size: number;
  private candidates: Float64Array;
  private tests: Float64Array;
  private passed: Float64Array;
  private problems: Float64Array;
  private solved: Float64Array;
  /** The last problem counted (its place in the order problems first came), or -1; and whether it was solved. */
  private lastProblem: Int32Array;
  private lastSolved: Uint8Array;

  constructor(slots: number) {
    const capacity = Math.max(slots, 8);
    this.candidates = new Float64Array(capacity);
    this.tests = new Float64Array(capacity);
    this.passed = new Float64Array(capacity);
    this.problems = new Float64Array(capacity);
    this.solved = new Float64Array(capacity);
    this.lastProblem = new Int32Array(capacity).fill(-1);
    this.lastSolved = new Uint8Array(capacity);
    this.size = slots;
  }

  /** A new slot; its index. */
  add(): number {
    const slot = this.size++;
    if (slot === this.candidates.length) {
      const capacity = slot * 2;
      this.candidates = grown(this.candidates, capacity);
      this.tests = grown(this.tests, capacity);
      this.passed = grown(this.passed, capacity);
      this.problems = grown(this.problems, capacity);
      this.solved = grown(this.solved, capacity);
      this.lastProblem = grown(this.lastProblem, capacity).fill(-1, slot);
      this.lastSolved = grown(this.lastSolved, capacity);
    }
    return slot;
  }

  /** Counts a group of problem `problem` (`n` candidates, `c` of them passing) in `slot`; whether it is the slot's first group of that problem. */
  count(slot: number, problem: number, n: number, tests: number, passed: number, c: number): boolean {
    this.candidates[slot] = this.candidates[slot]! + n;
    this.tests[slot] = this.tests[slot]! + tests;
    this.passed[slot] = this.passed[slot]! + passed;
    const first = this.lastProblem[slot] !== problem;
    if (first) {
      this.lastProblem[slot] = problem;
      this.lastSolved[slot] = 0;
      this.problems[slot] = this.problems[slot]! + 1;
    }
    if (c > 0 && this.lastSolved[slot] === 0) {
      this.lastSolved[slot] = 1;
      this.solved[slot] = this.solved[slot]! + 1;
    }
    return first;
  }

  metrics(slot: number): RowMetrics {
    const tests = this.tests[slot]!;
    const passed = this.passed[slot]!;
    return {
      candidates: this.candidates[slot]!,
      tests,
      passed,
      problems: this.problems[slot]!,
      problems_solved: this.solved[slot]!,
      pass_rate: tests === 0 ? 0 : passed / tests,
    };
  }
}

/** A model's pass@k over its tasks: the groups `tasks`, in that order, each `n[g]` candidates of which `c[g]` pass. */
function passAtKRow(model_id: string, tasks: readonly number[], n: Float64Array, c: Float64Array, ks: readonly number[]): PassAtKRow {
  let min = Infinity;
  let max = 0;
  for (const g of tasks) {
    min = Math.min(min, n[g]!);
    max = Math.max(max, n[g]!);
  }
  return {
    model_id,
    tasks: tasks.length,
    min_samples: tasks.length === 0 ? 0 : min,
    max_samples: max,
    values: passAtKTableOf(tasks, n, c, ks),
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
