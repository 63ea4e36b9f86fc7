/**
 * Submissions kept as columns of numbers rather than as objects: a solution
 * file's as they arrive from the worker that read it, and a run's plan. A
 * run of pass@k reads hundreds of thousands of submissions, and as objects
 * (a submission, its text's place, its digest and source strings) they were
 * most of the supervisor's memory while it planned, and stayed in the
 * garbage collector's old generation, copied and marked again and again,
 * for the whole run. Here a submission is a row of indexes into one table of
 * strings, held once each, and the numbers of its text's place; an object is
 * made only when something asks for one (`submission`).
 */
import { grown } from '../typed-arrays.js';
import type { SolutionLanguage } from './language.js';
import { rangeSource, type Submission, type SubmittedText } from './submission.js';

/** A digest as `digestOf` writes it: 64 bits as 16 lowercase hex digits. */
const DIGEST = /^[0-9a-f]{16}$/;

/** Whether `digest` is written as `digestOf` writes one. */
export function isDigest(digest: string): boolean {
  return DIGEST.test(digest);
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
  /** A range's digest, its high and low 32 bits. */
  private digestHigh: Uint32Array;
  private digestLow: Uint32Array;
  /** Each text given inline, and its submission's source (a file of its own: never the same twice). */
  private readonly inlineTexts: string[] = [];
  private readonly inlineSources: string[] = [];
  /** Where each string is in `strings`, when this table grows as submissions come (null: it came whole, with them). */
  private readonly places: Map<string, number> | null;
  private readonly strings: string[];
  /** The last columns copied from, and where their strings are in these: -1 for one not yet looked up. */
  private copiedFrom: SubmissionColumns | null = null;
  private copiedPlaces = new Int32Array(0);

  /**
   * Columns whose strings are `strings`, as a message's table of them came
   * (each submission then added by indexes into it, `addRange`/`addInline`),
   * or, without, a table that grows as submissions are added (`add`, `copy`).
   */
  constructor(strings?: readonly string[], capacity = 64) {
    this.strings = strings === undefined ? [] : [...strings];
    this.places = strings === undefined ? new Map() : null;
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
    this.digestHigh = new Uint32Array(size);
    this.digestLow = new Uint32Array(size);
  }

  /** How many strings the table holds: a message's indexes must be below it. */
  get stringCount(): number {
    return this.strings.length;
  }

  /** Adds a submission given as an object. */
  add(s: Submission): void {
    const ids = [this.place(s.problemId), this.place(s.modelId), this.optionalPlace(s.promptId), this.optionalPlace(s.sampleId)] as const;
    const language = this.optionalPlace(s.declaredLanguage);
    const text = s.text;
    if (text.kind === 'inline') this.addInline(...ids, language, s.source, text.raw);
    else this.addRange(...ids, language, this.place(text.file), text.start, text.end, text.digest, text.line);
  }

  /** Adds a submission whose text is a range of a solution file; ids by index into the table (-1: null). */
  addRange(
    problem: number,
    model: number,
    prompt: number,
    sample: number,
    language: number,
    file: number,
    start: number,
    end: number,
    digest: string,
    line: number,
  ): void {
    if (!isDigest(digest)) throw new Error(`a submission's digest is ${JSON.stringify(digest)}, not 16 hex digits`);
    if (!(line >= 1)) throw new Error(`a submission's range is at line ${line}`);
    const at = this.next(problem, model, prompt, sample, language);
    this.texts[at] = file;
    this.lines[at] = line;
    this.starts[at] = start;
    this.ends[at] = end;
    this.digestHigh[at] = parseInt(digest.slice(0, 8), 16);
    this.digestLow[at] = parseInt(digest.slice(8), 16);
  }

  /** Adds a submission whose text is given with it. */
  addInline(problem: number, model: number, prompt: number, sample: number, language: number, source: string, raw: string): void {
    const at = this.next(problem, model, prompt, sample, language);
    this.texts[at] = this.inlineTexts.length;
    this.inlineTexts.push(raw);
    this.inlineSources.push(source);
    this.lines[at] = 0;
  }

  /**
   * Adds submission `i` of `from`, with sample id `sampleId` and, for a
   * range, `file` as its file (the one the run listed, so that each file's
   * name is held once however many lines it has).
   */
  copy(from: SubmissionColumns, i: number, sampleId: string | null, file: string): void {
    if (from !== this.copiedFrom) {
      this.copiedFrom = from;
      this.copiedPlaces = new Int32Array(from.strings.length).fill(-1);
    }
    const map = (index: number): number => {
      if (index < 0) return -1;
      const known = this.copiedPlaces[index]!;
      return known >= 0 ? known : (this.copiedPlaces[index] = this.place(from.strings[index]!));
    };
    const ids = [map(from.problems[i]!), map(from.models[i]!), map(from.prompts[i]!), this.optionalPlace(sampleId), map(from.languages[i]!)] as const;
    if (from.lines[i] === 0) {
      const slot = from.texts[i]!;
      this.addInline(...ids, from.inlineSources[slot]!, from.inlineTexts[slot]!);
      return;
    }
    const at = this.next(...ids);
    this.texts[at] = this.place(file);
    this.lines[at] = from.lines[i]!;
    this.starts[at] = from.starts[i]!;
    this.ends[at] = from.ends[i]!;
    this.digestHigh[at] = from.digestHigh[i]!;
    this.digestLow[at] = from.digestLow[i]!;
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
    this.digestHigh = this.digestHigh.slice(0, n);
    this.digestLow = this.digestLow.slice(0, n);
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
    const digest = hex8(this.digestHigh[i]!) + hex8(this.digestLow[i]!);
    return { kind: 'range', file: this.strings[this.texts[i]!]!, start: this.starts[i]!, end: this.ends[i]!, digest, line };
  }

  /** Submission `i` as an object of its own. */
  submission(i: number): Submission {
    return {
      problemId: this.problemId(i),
      modelId: this.modelId(i),
      promptId: this.promptId(i),
      sampleId: this.sampleId(i),
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
    this.digestHigh = grown(this.digestHigh, size);
    this.digestLow = grown(this.digestLow, size);
  }

  private optional(index: number): string | null {
    return index === -1 ? null : this.strings[index]!;
  }

  private place(text: string): number {
    if (this.places === null) throw new Error("a message's columns take no strings but the message's own");
    let at = this.places.get(text);
    if (at === undefined) {
      at = this.strings.length;
      this.strings.push(text);
      this.places.set(text, at);
    }
    return at;
  }

  private optionalPlace(text: string | null): number {
    return text === null ? -1 : this.place(text);
  }
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}
