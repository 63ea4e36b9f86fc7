import type { Value } from '../values/type-node.js';
import { candidatePasses } from './aggregate.js';
import type { RunOutcome } from './reporter.js';
import type { CandidateResult, CandidateStatus, TestStatus } from './scorecard.js';

/**
 * What changed between two runs over the same problems: candidates and
 * tests whose verdict changed, and each model's pass rate and pass@k before
 * and after. Candidates are matched by problem, model, prompt and sample
 * (not by file path, so a moved solutions folder still matches), tests by
 * suite and index.
 */
export interface RunDiff {
  before: RunLabel;
  after: RunLabel;
  counts: Record<ChangeKind, number> & { unchanged: number };
  models: ModelChange[];
  /** New failures first, then other changes, fixes, candidates only in the second run, only in the first. */
  changes: CandidateChange[];
}

export interface RunLabel {
  run_id: string;
  mode: 'self-check' | 'grade';
  complete: boolean;
  candidates: number;
  pass_rate: number;
}

/**
 * `new-failure`: a test (or the candidate as a whole) passed before and does not now;
 * `fixed`: only the other way; `changed`: the verdict changed otherwise (a
 * failure became a timeout); `added`/`removed`: in one run only.
 */
export type ChangeKind = 'new-failure' | 'changed' | 'fixed' | 'added' | 'removed';
const KIND_ORDER: readonly ChangeKind[] = ['new-failure', 'changed', 'fixed', 'added', 'removed'];

export interface CandidateChange {
  kind: ChangeKind;
  problem_id: string;
  model_id: string;
  prompt_id: string | null;
  sample_id: string | null;
  /** The candidate's language, which says how its values are written. */
  language: string;
  before: CandidateVerdict | null;
  after: CandidateVerdict | null;
  /** Tests whose status differs; values are the second run's (the first's for a removed candidate). */
  tests: TestChange[];
}

export interface CandidateVerdict {
  status: CandidateStatus;
  passed: number;
  total: number;
}

export interface TestChange {
  suite: string;
  index: number;
  before: TestStatus | null;
  after: TestStatus | null;
  input: Record<string, unknown> | null;
  expected: Value | null;
  actual: Value | null;
  error: string | null;
}

export interface ModelChange {
  model_id: string;
  pass_rate: Delta;
  candidates: { before: number | null; after: number | null };
  /** `pass@1`, … as the runs computed them; null where a run could not (too few samples) or lacks the model. */
  pass_at_k: Record<string, Delta>;
}

export interface Delta {
  before: number | null;
  after: number | null;
  change: number | null;
}

interface Remembered {
  verdict: CandidateVerdict;
  passes: boolean;
  /** Status per test id; the first run's results are not kept otherwise. */
  tests: Map<string, TestStatus>;
  order: number;
  seen: boolean;
}

export function diffRuns(a: RunOutcome, b: RunOutcome): RunDiff {
  // The first run is held as statuses only; its values are read again for removed candidates.
  const earlier = new Map<string, Remembered>();
  const counter = new Map<string, number>();
  let order = 0;
  for (const r of a.results()) {
    const key = identity(r, counter);
    earlier.set(key, {
      verdict: verdictOf(r),
      passes: candidatePasses(r),
      tests: new Map(r.tests.map((t) => [`${t.suite}#${t.index}`, t.status])),
      order: order++,
      seen: false,
    });
  }
  const changes: Array<CandidateChange & { order: number }> = [];
  let unchanged = 0;
  counter.clear();
  order = 0;
  for (const r of b.results()) {
    const key = identity(r, counter);
    const before = earlier.get(key);
    const at = order++;
    if (before === undefined) {
      changes.push({ ...who(r), kind: 'added', before: null, after: verdictOf(r), tests: [], order: at });
      continue;
    }
    before.seen = true;
    const tests: TestChange[] = [];
    let regressed = before.passes && !candidatePasses(r);
    let improved = !before.passes && candidatePasses(r);
    const ids = new Set<string>();
    for (const t of r.tests) {
      const id = `${t.suite}#${t.index}`;
      ids.add(id);
      const was = before.tests.get(id) ?? null;
      if (was === t.status) continue;
      if (was === 'pass') regressed = true;
      if (t.status === 'pass') improved = true;
      tests.push({ suite: t.suite, index: t.index, before: was, after: t.status, input: t.input, expected: t.expected, actual: t.actual, error: t.error });
    }
    for (const [id, was] of before.tests) {
      if (ids.has(id)) continue;
      const [suite, index] = splitTestId(id);
      tests.push({ suite, index, before: was, after: null, input: null, expected: null, actual: null, error: null });
    }
    const statusChanged = before.verdict.status !== r.status;
    if (tests.length === 0 && !statusChanged) {
      unchanged++;
      continue;
    }
    const kind: ChangeKind = regressed ? 'new-failure' : improved ? 'fixed' : 'changed';
    changes.push({ ...who(r), kind, before: before.verdict, after: verdictOf(r), tests, order: at });
  }
  if ([...earlier.values()].some((e) => !e.seen)) {
    counter.clear();
    for (const r of a.results()) {
      const remembered = earlier.get(identity(r, counter));
      if (remembered === undefined || remembered.seen) continue;
      changes.push({ ...who(r), kind: 'removed', before: remembered.verdict, after: null, tests: [], order: order + remembered.order });
    }
  }
  changes.sort((x, y) => KIND_ORDER.indexOf(x.kind) - KIND_ORDER.indexOf(y.kind) || x.order - y.order);
  const counts = { 'new-failure': 0, changed: 0, fixed: 0, added: 0, removed: 0, unchanged };
  for (const c of changes) counts[c.kind]++;
  return {
    before: label(a),
    after: label(b),
    counts,
    models: modelChanges(a, b),
    changes: changes.map(({ order: _order, ...change }) => change),
  };
}

function label(o: RunOutcome): RunLabel {
  const h = o.head;
  return { run_id: h.run_id, mode: h.mode, complete: h.complete, candidates: h.summary.candidates, pass_rate: h.summary.pass_rate };
}

function modelChanges(a: RunOutcome, b: RunOutcome): ModelChange[] {
  const ids = [...new Set([...a.head.models, ...b.head.models].map((m) => m.model_id))].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  return ids.map((model_id) => {
    const ma = a.head.models.find((m) => m.model_id === model_id);
    const mb = b.head.models.find((m) => m.model_id === model_id);
    const ka = a.head.pass_at_k.find((p) => p.model_id === model_id)?.values ?? {};
    const kb = b.head.pass_at_k.find((p) => p.model_id === model_id)?.values ?? {};
    const ks = [...new Set([...Object.keys(ka), ...Object.keys(kb)])].sort((x, y) => Number(x.slice(5)) - Number(y.slice(5)));
    return {
      model_id,
      pass_rate: delta(ma?.pass_rate ?? null, mb?.pass_rate ?? null),
      candidates: { before: ma?.candidates ?? null, after: mb?.candidates ?? null },
      pass_at_k: Object.fromEntries(ks.map((k) => [k, delta(ka[k] ?? null, kb[k] ?? null)])),
    };
  });
}

function delta(before: number | null, after: number | null): Delta {
  return { before, after, change: before === null || after === null ? null : after - before };
}

function verdictOf(r: CandidateResult): CandidateVerdict {
  return { status: r.status, passed: r.passed, total: r.total };
}

function who(r: CandidateResult): Pick<CandidateChange, 'problem_id' | 'model_id' | 'prompt_id' | 'sample_id' | 'language'> {
  return { problem_id: r.problem_id, model_id: r.model_id, prompt_id: r.prompt_id, sample_id: r.sample_id, language: r.language };
}

/** Problem, model, prompt and sample; a repeat of the same four gets a count, so none is lost. */
function identity(r: CandidateResult, counter: Map<string, number>): string {
  const base = JSON.stringify([r.problem_id, r.model_id, r.prompt_id, r.sample_id]);
  const n = counter.get(base) ?? 0;
  counter.set(base, n + 1);
  return n === 0 ? base : `${base}#${n}`;
}

function splitTestId(id: string): [string, number] {
  const at = id.lastIndexOf('#');
  return [id.slice(0, at), Number(id.slice(at + 1))];
}
