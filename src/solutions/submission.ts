import type { SolutionLanguage } from './language.js';

export interface Submission {
  problemId: string;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  /** file, or file:line for JSONL */
  source: string;
  /** text exactly as submitted */
  raw: string;
  /** language from the file extension or an explicit field, when known */
  declaredLanguage: SolutionLanguage | null;
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
    return code !== undefined ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
