import type { SolutionLanguage } from './language.js';

export interface Submission {
  problemId: string;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  /** file, or file:line for JSONL */
  source: string;
  /** The text exactly as submitted, or where to read it again. */
  text: SubmittedText;
  /** language from the file extension or an explicit field, when known */
  declaredLanguage: SolutionLanguage | null;
}

/** What grading needs of a submission besides who it is: its text, and the language its file or field declared. */
export type SubmittedCode = Pick<Submission, 'text' | 'declaredLanguage'>;

/**
 * A submission's text: given with it (the grading service, and a submission
 * that is a file of its own), or the bytes of a JSON Lines file that hold
 * it, read again by the worker that grades it. A run's plan then holds no
 * such candidate's text, and the text never passes through the supervisor,
 * whose work per candidate bounds the cores a run can use. `digest` is of
 * those bytes when the file was first read: a file changed since is
 * reported, not graded.
 */
export type SubmittedText = { kind: 'inline'; raw: string } | SolutionTextRange;

export interface SolutionTextRange {
  kind: 'range';
  file: string;
  /** Bytes [start, end) of the file: a JSON Lines line, a solution object whose code field is the text. */
  start: number;
  end: number;
  /** Of the bytes when the file was first read (solution-bytes.ts `digestOf`). */
  digest: number;
  /**
   * The file's line these bytes are, from 1. A submission whose text is a
   * range has the source `rangeSource(range)`: the plan and the messages
   * keep only the line.
   */
  line: number;
}

/**
 * The source of the submission a JSON Lines line holds, `file:line`: what
 * the plan and the messages keep of such a submission's source instead of
 * the string, which names its file again for every line.
 */
export function rangeSource(range: Pick<SolutionTextRange, 'file' | 'line'>): string {
  return `${range.file}:${range.line}`;
}

export interface SkippedSubmission {
  source: string;
  reason: string;
}

export interface DiscoveredSubmissions {
  submissions: Submission[];
  skipped: SkippedSubmission[];
  /** Every regular file the walk found, in walk order: where it is, and its path inside `dir` with `/` separators. */
  files: Array<{ path: string; relative: string }>;
}

/** What reading one solution file gave: a submission, or a reason to skip, per solution in it. */
export type SolutionFileOutcome = { kind: 'submission'; submission: Submission } | { kind: 'skipped'; skipped: SkippedSubmission };

/** A file found in the solutions folder: where it is, and its path parts inside that folder. */
export interface SolutionFile {
  source: string;
  parts: string[];
}

/** What reading a solution file needs to know besides the file. */
export interface SolutionDiscoveryContext {
  known: ReadonlySet<string>;
  /** The prompt ids of each problem whose prompts are known: a submission must name one of them, or none. */
  prompts?: ReadonlyMap<string, readonly string[]>;
  /** Model name for files directly in the solutions folder. */
  rootName: string;
}

/** The walk of a solutions folder, before any file is read. */
export interface FoundSolutionFiles {
  /** Every regular file, in walk order. */
  files: SolutionFile[];
  /** Entries that could not be walked (unreadable folders, broken links, files of other types, folders reached again). */
  skipped: SkippedSubmission[];
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    // Node's own messages already start with the code ("ENOENT: no such file or directory, ...").
    return code !== undefined && !err.message.startsWith(`${code}:`) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
