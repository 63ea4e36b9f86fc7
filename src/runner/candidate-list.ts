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
import type { SolutionLanguage } from '../solutions/language.js';
import { rangeSource, type Submission, type SubmittedText } from '../solutions/submission.js';

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
 * problem's optimal_solution on its correctness suite. A submission's
 * strings that repeat (model, prompt, sample, language) are held once each.
 */
export class SubmissionPlan implements CandidateList {
  private readonly problems: ProblemSummary[] = [];
  private readonly modelIds: string[] = [];
  private readonly promptIds: Array<string | null> = [];
  private readonly sampleIds: Array<string | null> = [];
  /** Null for a submission whose text is a range: its source is the range's (`rangeSource`), which would name its file again for every line. */
  private readonly sources: Array<string | null> = [];
  private readonly languages: Array<SolutionLanguage | null> = [];
  /** A text given inline: the text; one to read again from a solution file: that file. */
  private readonly texts: string[] = [];
  /** For a text to read again: its bytes [start, end), their digest and its line; -1, "" and -1 for an inline one. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly digests: string[] = [];
  private readonly lines: number[] = [];
  private readonly shared = new Map<string, string>();
  /** Each solution file's name escaped twice (quotedKeyOf), made once for all of its lines. */
  private readonly escapedFiles = new Map<string, string>();
  private references: Candidate[] = [];

  constructor(private readonly extract: boolean) {}

  get length(): number {
    return this.problems.length + this.references.length;
  }

  add(problem: ProblemSummary, submission: Submission): void {
    this.problems.push(problem);
    this.modelIds.push(this.share(submission.modelId));
    this.promptIds.push(this.shareNullable(submission.promptId));
    this.sampleIds.push(this.shareNullable(submission.sampleId));
    this.languages.push(this.shareNullable(submission.declaredLanguage));
    const text = submission.text;
    if (text.kind === 'inline') {
      this.sources.push(submission.source);
      this.texts.push(text.raw);
      this.starts.push(-1);
      this.ends.push(-1);
      this.digests.push('');
      this.lines.push(-1);
    } else {
      this.sources.push(null);
      this.texts.push(text.file);
      this.starts.push(text.start);
      this.ends.push(text.end);
      this.digests.push(text.digest);
      this.lines.push(text.line);
    }
  }

  /** Plans the references of `problems` after every submission. */
  addReferences(problems: readonly ProblemSummary[]): void {
    this.references = referencePlans(problems);
  }

  /** The problems that have a submission planned, in the order they first come. */
  submittedProblems(): Set<string> {
    return new Set(this.problems.map((p) => p.id));
  }

  at(rank: number): Candidate {
    const problem = this.problems[rank];
    if (problem === undefined) return this.reference(rank);
    const start = this.starts[rank]!;
    const text: SubmittedText =
      start === -1
        ? { kind: 'inline', raw: this.texts[rank]! }
        : { kind: 'range', file: this.texts[rank]!, start, end: this.ends[rank]!, digest: this.digests[rank]!, line: this.lines[rank]! };
    const submission: Submission = {
      problemId: problem.id,
      modelId: this.modelIds[rank]!,
      promptId: this.promptIds[rank]!,
      sampleId: this.sampleIds[rank]!,
      source: this.source(rank),
      text,
      declaredLanguage: this.languages[rank]!,
    };
    return submissionPlan(problem, submission, this.extract);
  }

  problemId(rank: number): string {
    return this.problems[rank]?.id ?? this.reference(rank).problemId;
  }

  modelId(rank: number): string {
    return this.problems[rank] === undefined ? this.reference(rank).modelId : this.modelIds[rank]!;
  }

  file(rank: number): string {
    return this.problems[rank]?.file ?? this.reference(rank).file;
  }

  tests(rank: number): number {
    return this.problems[rank]?.tests ?? this.reference(rank).tests;
  }

  /** Made from its quoted key: only a resumed run or a shard asks for it. */
  key(rank: number): string {
    return unquoteKey(this.quotedKey(rank));
  }

  quotedKey(rank: number): QuotedKey {
    const problem = this.problems[rank];
    if (problem === undefined) return quotedKey(this.reference(rank));
    const ids = { problemId: problem.id, modelId: this.modelIds[rank]!, promptId: this.promptIds[rank]!, sampleId: this.sampleIds[rank]! };
    const source = this.sources[rank]!;
    if (source !== null) return quotedKeyOf(ids, escapedTwice(source));
    // Quoted keys are made each time they are written (the plan line, each log line): a range's file is escaped once for all its lines.
    const file = this.texts[rank]!;
    let escaped = this.escapedFiles.get(file);
    if (escaped === undefined) this.escapedFiles.set(file, (escaped = escapedTwice(file)));
    return quotedKeyOf(ids, rangeSource({ file: escaped, line: this.lines[rank]! }));
  }

  private source(rank: number): string {
    return this.sources[rank] ?? rangeSource({ file: this.texts[rank]!, line: this.lines[rank]! });
  }

  private reference(rank: number): Candidate {
    const reference = this.references[rank - this.problems.length];
    if (reference === undefined) throw new RangeError(`no candidate ${rank} in a plan of ${this.length}`);
    return reference;
  }

  private share<T extends string>(text: T): T {
    const held = this.shared.get(text) as T | undefined;
    if (held !== undefined) return held;
    // Only short strings repeat from submission to submission (ids, languages): a long one is kept as it is.
    if (text.length <= SHARED_LENGTH && this.shared.size < SHARED_STRINGS) this.shared.set(text, text);
    return text;
  }

  private shareNullable<T extends string>(text: T | null): T | null {
    return text === null ? null : this.share(text);
  }
}

const SHARED_LENGTH = 64;
const SHARED_STRINGS = 4096;
