/**
 * Submissions kept as columns of numbers rather than as objects: a part of
 * a solution file's, as it arrives from the worker that read it (a column
 * per field, which the message reader turns into typed arrays whole), and
 * kept as it is by the run's plan. A run of pass@k reads hundreds of
 * thousands of submissions, and as objects (a submission, its text's place,
 * its digest and source strings) they were most of the supervisor's memory
 * while it planned, and stayed in the garbage collector's old generation,
 * copied and marked again and again, for the whole run. Here a submission is
 * a row of indexes into a table of strings, held once each, and the numbers
 * of its text's place; an object is made only when something asks for one
 * (`submission`).
 */
import { Interned } from '../interned.js';
import { grown } from '../typed-arrays.js';
import type { SolutionLanguage } from './language.js';
import { rangeSource, type Submission, type SubmittedText } from './submission.js';
import { isDigest } from './solution-bytes.js';

/** The columns of submissions as a message brings them, one number per submission in each (see SubmissionColumns' fields). */
export interface SubmissionColumnData {
  problems: Int32Array;
  models: Int32Array;
  prompts: Int32Array;
  samples: Int32Array;
  languages: Int32Array;
  lines: Int32Array;
  starts: Float64Array;
  ends: Float64Array;
  digests: Float64Array;
}

export class SubmissionColumns {
  /** How many submissions. */
  length = 0;
  // Each an index into `strings`, -1 for null.
  private problems: Int32Array;
  private models: Int32Array;
  private prompts: Int32Array;
  private samples: Int32Array;
  private languages: Int32Array;
  /** A range's file (an index into `strings`); a text given inline: its place in `inlineTexts`. */
  private texts: Int32Array;
  /** A range's line, from 1; 0 for a text given inline. */
  private lines: Int32Array;
  private starts: Float64Array;
  private ends: Float64Array;
  /** A range's digest (`digestOf`); 0 for a text given inline. */
  private digests: Float64Array;
  /** Each text given inline, and its submission's source (a file of its own: never the same twice). */
  private inlineTexts: string[] = [];
  private inlineSources: string[] = [];
  /** The file a message's ranges lie in, by index into `strings` (-1: none is a range, or these columns grow). */
  private file = -1;
  /** The table of strings, when it grows as submissions come (null: it came whole, with them). */
  private table: Interned<string> | null;
  private strings: readonly string[];

  /** Columns that grow as submissions are added (`add`), with a table of strings that grows with them. */
  constructor(capacity = 64) {
    this.table = new Interned<string>();
    this.strings = this.table.values;
    const size = Math.max(1, capacity);
    this.problems = new Int32Array(size);
    this.models = new Int32Array(size);
    this.prompts = new Int32Array(size);
    this.samples = new Int32Array(size);
    this.languages = new Int32Array(size);
    this.texts = new Int32Array(size);
    this.lines = new Int32Array(size);
    this.starts = new Float64Array(size);
    this.ends = new Float64Array(size);
    this.digests = new Float64Array(size);
  }

  /**
   * Columns as a message brought them, checked by its reader: strings by
   * index into `strings`, the ranges all of `file` (an index into them),
   * and the texts given inline, [source, text], in the order of the
   * submissions whose line is 0.
   */
  static of(strings: readonly string[], file: number, data: SubmissionColumnData, inline: ReadonlyArray<readonly [string, string]>): SubmissionColumns {
    const c = new SubmissionColumns(1);
    c.strings = strings;
    c.table = null;
    ({ problems: c.problems, models: c.models, prompts: c.prompts, samples: c.samples, languages: c.languages } = data);
    ({ lines: c.lines, starts: c.starts, ends: c.ends, digests: c.digests } = data);
    c.file = file;
    c.texts = new Int32Array(data.lines.length);
    let slot = 0;
    for (let i = 0; i < c.texts.length; i++) c.texts[i] = data.lines[i] === 0 ? slot++ : file;
    c.length = c.texts.length;
    c.inlineTexts = inline.map((t) => t[1]);
    c.inlineSources = inline.map((t) => t[0]);
    return c;
  }

  /** Adds a submission given as an object. */
  add(s: Submission): void {
    const text = s.text;
    if (text.kind === 'range' && !(text.line >= 1)) throw new Error(`a submission's range is at line ${text.line}`);
    const problem = this.place(s.problemId);
    const model = this.place(s.modelId);
    const prompt = this.optionalPlace(s.promptId);
    const sample = this.optionalPlace(s.sampleId);
    const language = this.optionalPlace(s.declaredLanguage);
    if (text.kind === 'inline') this.addInline(problem, model, prompt, sample, language, s.source, text.raw);
    else if (!this.addRange(problem, model, prompt, sample, language, this.place(text.file), text.start, text.end, text.digest, text.line))
      throw new Error(`a submission's digest is ${JSON.stringify(text.digest)}, not a whole number from 0 below 2^53`);
  }

  /**
   * Adds a submission whose text is a range of a solution file; ids by
   * index into the table (-1: null), `line` from 1 (checked by the caller).
   * False, and nothing added, when `digest` is not one `digestOf` could make.
   */
  private addRange(
    problem: number,
    model: number,
    prompt: number,
    sample: number,
    language: number,
    file: number,
    start: number,
    end: number,
    digest: number,
    line: number,
  ): boolean {
    if (!isDigest(digest)) return false;
    const at = this.next(problem, model, prompt, sample, language);
    this.texts[at] = file;
    this.lines[at] = line;
    this.starts[at] = start;
    this.ends[at] = end;
    this.digests[at] = digest;
    return true;
  }

  /** Adds a submission whose text is given with it. */
  private addInline(problem: number, model: number, prompt: number, sample: number, language: number, source: string, raw: string): void {
    const at = this.next(problem, model, prompt, sample, language);
    this.texts[at] = this.inlineTexts.length;
    this.inlineTexts.push(raw);
    this.inlineSources.push(source);
    this.lines[at] = 0;
  }

  /** Gives back the room kept for submissions not added: the columns are final. */
  trim(): void {
    if (this.problems.length === this.length) return;
    const n = this.length;
    this.problems = this.problems.slice(0, n);
    this.models = this.models.slice(0, n);
    this.prompts = this.prompts.slice(0, n);
    this.samples = this.samples.slice(0, n);
    this.languages = this.languages.slice(0, n);
    this.texts = this.texts.slice(0, n);
    this.lines = this.lines.slice(0, n);
    this.starts = this.starts.slice(0, n);
    this.ends = this.ends.slice(0, n);
    this.digests = this.digests.slice(0, n);
  }

  /** The file the ranges of a message's columns lie in (`of`); null when none is a range. */
  rangeFile(): string | null {
    return this.file >= 0 ? this.strings[this.file]! : null;
  }

  problemId(i: number): string {
    return this.strings[this.problems[i]!]!;
  }

  modelId(i: number): string {
    return this.strings[this.models[i]!]!;
  }

  promptId(i: number): string | null {
    return this.optional(this.prompts[i]!);
  }

  sampleId(i: number): string | null {
    return this.optional(this.samples[i]!);
  }

  declaredLanguage(i: number): SolutionLanguage | null {
    return this.optional(this.languages[i]!) as SolutionLanguage | null;
  }

  /** Its text's file and line, for one that is a range of a solution file; null for a text given inline. */
  range(i: number): { file: string; line: number } | null {
    const line = this.lines[i]!;
    return line === 0 ? null : { file: this.strings[this.texts[i]!]!, line };
  }

  /** A text given inline: its submission's source (a range's is `rangeSource` of its file and line). */
  inlineSource(i: number): string | null {
    return this.lines[i] === 0 ? this.inlineSources[this.texts[i]!]! : null;
  }

  source(i: number): string {
    return this.inlineSource(i) ?? rangeSource(this.range(i)!);
  }

  text(i: number): SubmittedText {
    const line = this.lines[i]!;
    if (line === 0) return { kind: 'inline', raw: this.inlineTexts[this.texts[i]!]! };
    return { kind: 'range', file: this.strings[this.texts[i]!]!, start: this.starts[i]!, end: this.ends[i]!, digest: this.digests[i]!, line };
  }

  /** Submission `i` as an object of its own (with `sampleId` as its sample id, when given). */
  submission(i: number, sampleId = this.sampleId(i)): Submission {
    return {
      problemId: this.problemId(i),
      modelId: this.modelId(i),
      promptId: this.promptId(i),
      sampleId,
      source: this.source(i),
      text: this.text(i),
      declaredLanguage: this.declaredLanguage(i),
    };
  }

  private next(problem: number, model: number, prompt: number, sample: number, language: number): number {
    const at = this.length;
    if (at === this.problems.length) this.grow();
    this.problems[at] = problem;
    this.models[at] = model;
    this.prompts[at] = prompt;
    this.samples[at] = sample;
    this.languages[at] = language;
    this.starts[at] = -1;
    this.ends[at] = -1;
    this.length = at + 1;
    return at;
  }

  private grow(): void {
    const size = this.problems.length * 2;
    this.problems = grown(this.problems, size);
    this.models = grown(this.models, size);
    this.prompts = grown(this.prompts, size);
    this.samples = grown(this.samples, size);
    this.languages = grown(this.languages, size);
    this.texts = grown(this.texts, size);
    this.lines = grown(this.lines, size);
    this.starts = grown(this.starts, size);
    this.ends = grown(this.ends, size);
    this.digests = grown(this.digests, size);
  }

  private optional(index: number): string | null {
    return index === -1 ? null : this.strings[index]!;
  }

  private place(text: string): number {
    if (this.table === null) throw new Error("a message's columns take no strings but the message's own");
    return this.table.of(text);
  }

  private optionalPlace(text: string | null): number {
    return text === null ? -1 : this.place(text);
  }
}
