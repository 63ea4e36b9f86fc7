/**
 * A run's planned candidates, by rank. The plan lives as long as its run,
 * and every object that lives that long is copied and then marked again and
 * again by the garbage collector, work the supervisor does per candidate;
 * so the plan of a run of submissions keeps each candidate's parts in
 * columns, and a candidate becomes an object only when its batch is sent.
 */
import { escapedTwice, quotedKey, quotedKeyOf, unquoteKey, type QuotedKey } from '../runlog/candidate-key.js';
import { referencePlans, SELF_CHECK_MODEL, selfCheckPlan, selfCheckSource, submissionPlan, type Candidate, type ProblemSummary } from '../grading/candidate.js';
import type { PlannedKeys } from '../runlog/run-log.js';
import { SubmissionColumns } from '../solutions/submission-columns.js';
import { rangeSource, type Submission } from '../solutions/submission.js';
import { grown } from '../typed-arrays.js';

export interface CandidateList extends PlannedKeys {
  /** The candidate of this rank, as a new object. */
  at(rank: number): Candidate;
  problemId(rank: number): string;
  modelId(rank: number): string;
  /** Its problem's file. */
  file(rank: number): string;
  tests(rank: number): number;
}

/** The ranks `ranks` of `list`, in that order, as a list of their own. */
export function subList(list: CandidateList, ranks: readonly number[]): CandidateList {
  return {
    length: ranks.length,
    at: (i) => list.at(ranks[i]!),
    problemId: (i) => list.problemId(ranks[i]!),
    modelId: (i) => list.modelId(ranks[i]!),
    file: (i) => list.file(ranks[i]!),
    tests: (i) => list.tests(ranks[i]!),
    key: (i) => list.key(ranks[i]!),
    quotedKey: (i) => list.quotedKey(ranks[i]!),
  };
}

/** The key of a problem's self-check as the run log writes it (quoteKey(candidateKey(selfCheckPlan(p)))), without planning the candidate. */
export function quotedSelfCheckKey(p: Pick<ProblemSummary, 'id' | 'file'>): QuotedKey {
  // The file's name, escaped, then the source's suffix, which JSON never escapes.
  return quotedKeyOf({ problemId: p.id, modelId: SELF_CHECK_MODEL, promptId: null, sampleId: null }, selfCheckSource(escapedTwice(p.file)));
}

/** A self-check: each problem's optimal_solution. */
export function selfCheckList(problems: readonly ProblemSummary[]): CandidateList {
  return {
    length: problems.length,
    at: (rank) => selfCheckPlan(problems[rank]!),
    problemId: (rank) => problems[rank]!.id,
    modelId: () => SELF_CHECK_MODEL,
    file: (rank) => problems[rank]!.file,
    tests: (rank) => problems[rank]!.tests,
    key: (rank) => unquoteKey(quotedSelfCheckKey(problems[rank]!)),
    quotedKey: (rank) => quotedSelfCheckKey(problems[rank]!),
  };
}

/**
 * The plan of a run of submissions: each submission graded against its
 * problem, then (in a run that scores efficiency) the references, each
 * problem's optimal_solution on its correctness suite. The submissions stay
 * in the columns they arrived in (`SubmissionColumns`, a part of a solution
 * file's each); the plan keeps, per candidate, which part and row it is,
 * its sample's number where the plan numbered it, and its problem.
 */
export class SubmissionPlan implements CandidateList {
  private readonly parts: SubmissionColumns[] = [];
  /** The part submissions given as objects go to (`add`). */
  private own: SubmissionColumns | null = null;
  private readonly problems: ProblemSummary[] = [];
  private readonly problemPlaces = new Map<ProblemSummary, number>();
  private count = 0;
  private partOf = new Int32Array(64);
  private rowOf = new Int32Array(64);
  /** The number the plan gave the candidate's sample (`0`, `1`, ...); -1 for the sample id it came with. */
  private sampleOf = new Int32Array(64);
  private problemOf = new Int32Array(64);
  /** Each solution file's name escaped twice (quotedKeyOf), made once for all of its lines. */
  private readonly escapedFiles = new Map<string, string>();
  private references: Candidate[] = [];

  constructor(private readonly extract: boolean) {}

  get length(): number {
    return this.count + this.references.length;
  }

  add(problem: ProblemSummary, submission: Submission): void {
    this.own ??= new SubmissionColumns();
    this.own.add(submission);
    this.addFrom(problem, this.own, this.own.length - 1, -1);
  }

  /** Adds row `row` of `part`, its sample numbered `sample` (-1: the sample id it came with). */
  addFrom(problem: ProblemSummary, part: SubmissionColumns, row: number, sample: number): void {
    let place = this.parts.length - 1;
    if (this.parts[place] !== part) place = this.parts.indexOf(part);
    if (place < 0) place = this.parts.push(part) - 1;
    this.push(problem, place, row, sample);
  }

  /** Plans the references of `problems` after every submission. */
  addReferences(problems: readonly ProblemSummary[]): void {
    this.references = referencePlans(problems);
  }

  /** Makes room for `submissions` submissions in all, when the planner knows how many may come: the columns are then made once. */
  expect(submissions: number): void {
    if (submissions > this.partOf.length) this.resize(submissions);
  }

  /** Every submission is planned: the room kept for more is given back. */
  finish(): void {
    const n = this.count;
    this.own?.trim();
    if (n === this.partOf.length) return;
    this.partOf = this.partOf.slice(0, n);
    this.rowOf = this.rowOf.slice(0, n);
    this.sampleOf = this.sampleOf.slice(0, n);
    this.problemOf = this.problemOf.slice(0, n);
  }

  /** The problems that have a submission planned, in the order they first come. */
  submittedProblems(): Set<string> {
    return new Set(this.problems.map((p) => p.id));
  }

  at(rank: number): Candidate {
    if (rank >= this.count) return this.reference(rank);
    return submissionPlan(this.problemAt(rank), this.partAt(rank).submission(this.rowOf[rank]!, this.sampleId(rank)), this.extract);
  }

  problemId(rank: number): string {
    return rank < this.count ? this.problemAt(rank).id : this.reference(rank).problemId;
  }

  modelId(rank: number): string {
    return rank < this.count ? this.partAt(rank).modelId(this.rowOf[rank]!) : this.reference(rank).modelId;
  }

  file(rank: number): string {
    return rank < this.count ? this.problemAt(rank).file : this.reference(rank).file;
  }

  tests(rank: number): number {
    return rank < this.count ? this.problemAt(rank).tests : this.reference(rank).tests;
  }

  /** Made from its quoted key: only a resumed run or a shard asks for it. */
  key(rank: number): string {
    return unquoteKey(this.quotedKey(rank));
  }

  quotedKey(rank: number): QuotedKey {
    if (rank >= this.count) return quotedKey(this.reference(rank));
    const part = this.partAt(rank);
    const row = this.rowOf[rank]!;
    const ids = { problemId: this.problemAt(rank).id, modelId: part.modelId(row), promptId: part.promptId(row), sampleId: this.sampleId(rank) };
    const range = part.range(row);
    if (range === null) return quotedKeyOf(ids, escapedTwice(part.inlineSource(row)!));
    // Quoted keys are made each time they are written (the plan line, each log line): a range's file is escaped once for all its lines.
    let escaped = this.escapedFiles.get(range.file);
    if (escaped === undefined) this.escapedFiles.set(range.file, (escaped = escapedTwice(range.file)));
    return quotedKeyOf(ids, rangeSource({ file: escaped, line: range.line }));
  }

  private sampleId(rank: number): string | null {
    const sample = this.sampleOf[rank]!;
    return sample >= 0 ? String(sample) : this.partAt(rank).sampleId(this.rowOf[rank]!);
  }

  private partAt(rank: number): SubmissionColumns {
    return this.parts[this.partOf[rank]!]!;
  }

  private problemAt(rank: number): ProblemSummary {
    return this.problems[this.problemOf[rank]!]!;
  }

  private push(problem: ProblemSummary, part: number, row: number, sample: number): void {
    let place = this.problemPlaces.get(problem);
    if (place === undefined) {
      place = this.problems.length;
      this.problems.push(problem);
      this.problemPlaces.set(problem, place);
    }
    const at = this.count;
    if (at === this.partOf.length) this.resize(at * 2);
    this.partOf[at] = part;
    this.rowOf[at] = row;
    this.sampleOf[at] = sample;
    this.problemOf[at] = place;
    this.count = at + 1;
  }

  private resize(capacity: number): void {
    this.partOf = grown(this.partOf, capacity);
    this.rowOf = grown(this.rowOf, capacity);
    this.sampleOf = grown(this.sampleOf, capacity);
    this.problemOf = grown(this.problemOf, capacity);
  }

  private reference(rank: number): Candidate {
    const reference = this.references[rank - this.count];
    if (reference === undefined) throw new RangeError(`no candidate ${rank} in a plan of ${this.length}`);
    return reference;
  }
}
