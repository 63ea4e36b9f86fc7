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
 * problem's optimal_solution on its correctness suite. The submissions are
 * kept as columns (`SubmissionColumns`: each string held once, a range's
 * place as numbers), their problems by index.
 */
export class SubmissionPlan implements CandidateList {
  private readonly submissions = new SubmissionColumns();
  private readonly problems: ProblemSummary[] = [];
  private readonly problemPlaces = new Map<ProblemSummary, number>();
  private problemOf = new Int32Array(64);
  /** Each solution file's name escaped twice (quotedKeyOf), made once for all of its lines. */
  private readonly escapedFiles = new Map<string, string>();
  private references: Candidate[] = [];

  constructor(private readonly extract: boolean) {}

  get length(): number {
    return this.submissions.length + this.references.length;
  }

  add(problem: ProblemSummary, submission: Submission): void {
    this.noteProblem(problem);
    this.submissions.add(submission);
  }

  /** Adds submission `i` of `from` (a solution file's, `file`), with `sampleId` as its sample id. */
  addFrom(problem: ProblemSummary, from: SubmissionColumns, i: number, sampleId: string | null, file: string): void {
    this.noteProblem(problem);
    this.submissions.copy(from, i, sampleId, file);
  }

  /** Plans the references of `problems` after every submission. */
  addReferences(problems: readonly ProblemSummary[]): void {
    this.references = referencePlans(problems);
  }

  /** Every submission is planned: the room kept for more is given back. */
  finish(): void {
    this.submissions.trim();
    this.problemOf = this.problemOf.slice(0, this.submissions.length);
  }

  /** The problems that have a submission planned, in the order they first come. */
  submittedProblems(): Set<string> {
    return new Set(this.problems.map((p) => p.id));
  }

  at(rank: number): Candidate {
    if (rank >= this.submissions.length) return this.reference(rank);
    return submissionPlan(this.problemAt(rank), this.submissions.submission(rank), this.extract);
  }

  problemId(rank: number): string {
    return rank < this.submissions.length ? this.problemAt(rank).id : this.reference(rank).problemId;
  }

  modelId(rank: number): string {
    return rank < this.submissions.length ? this.submissions.modelId(rank) : this.reference(rank).modelId;
  }

  file(rank: number): string {
    return rank < this.submissions.length ? this.problemAt(rank).file : this.reference(rank).file;
  }

  tests(rank: number): number {
    return rank < this.submissions.length ? this.problemAt(rank).tests : this.reference(rank).tests;
  }

  /** Made from its quoted key: only a resumed run or a shard asks for it. */
  key(rank: number): string {
    return unquoteKey(this.quotedKey(rank));
  }

  quotedKey(rank: number): QuotedKey {
    const s = this.submissions;
    if (rank >= s.length) return quotedKey(this.reference(rank));
    const ids = { problemId: this.problemAt(rank).id, modelId: s.modelId(rank), promptId: s.promptId(rank), sampleId: s.sampleId(rank) };
    const range = s.range(rank);
    if (range === null) return quotedKeyOf(ids, escapedTwice(s.inlineSource(rank)!));
    // Quoted keys are made each time they are written (the plan line, each log line): a range's file is escaped once for all its lines.
    let escaped = this.escapedFiles.get(range.file);
    if (escaped === undefined) this.escapedFiles.set(range.file, (escaped = escapedTwice(range.file)));
    return quotedKeyOf(ids, rangeSource({ file: escaped, line: range.line }));
  }

  private problemAt(rank: number): ProblemSummary {
    return this.problems[this.problemOf[rank]!]!;
  }

  private noteProblem(problem: ProblemSummary): void {
    let place = this.problemPlaces.get(problem);
    if (place === undefined) {
      place = this.problems.length;
      this.problems.push(problem);
      this.problemPlaces.set(problem, place);
    }
    const at = this.submissions.length;
    if (at === this.problemOf.length) this.problemOf = grown(this.problemOf, at * 2);
    this.problemOf[at] = place;
  }

  private reference(rank: number): Candidate {
    const reference = this.references[rank - this.submissions.length];
    if (reference === undefined) throw new RangeError(`no candidate ${rank} in a plan of ${this.length}`);
    return reference;
  }
}
