/**
 * What the HTML reporter writes into the page for its script: the shapes of
 * the two data blocks. Shared by the reporter (html-reporter.ts, in Node)
 * and the page's script (this folder, in the browser), so that the two are
 * checked against each other; nothing here may need either environment.
 */

export type PageCandidateStatus = 'passed' | 'failed' | 'load-error' | 'unsupported' | 'no-tests';
export type PageTestStatus = 'pass' | 'fail' | 'error' | 'timeout' | 'memory' | 'skipped';

/** One candidate's row in the table (the `rows` block, a JSON array of these); the error is cut short. */
export type PageRow = [
  problem: string,
  model: string,
  prompt: string | null,
  sample: string | null,
  language: string,
  status: PageCandidateStatus,
  passed: number,
  total: number,
  ms: number,
  error: string | null,
  /** Only with --grade performance or memory: the scores (null when n/a, or not asked) and why they are n/a. */
  performance?: number | null,
  memory?: number | null,
  efficiencyNa?: string | null,
];

/** The `data-col` of the candidate table's efficiency columns, which the reporter writes only when they were asked. */
export const EFFICIENCY_COLUMNS = { performance: 8, memory: 9 } as const;

/**
 * One test of an opened candidate. Its values are JSON for a JavaScript
 * candidate, and already written as Python's repr writes them (strings)
 * for a Python one (`PageDetails.repr`).
 */
export type PageTest = [
  suite: string,
  index: number,
  status: PageTestStatus,
  input: unknown,
  expected: unknown,
  actual: unknown,
  error: string | null,
  ms: number | null,
];

/** What the page shows when a candidate is opened: one JSON line per candidate in the `details` block, in row order. */
export interface PageDetails {
  source: string;
  entry: string | null;
  error: string | null;
  code: string;
  /** The code as submitted, when it differs from the code that ran. */
  raw: string | null;
  repr: boolean;
  /** Only with --grade performance or memory: the measured figures in one line, or why there are none. */
  measure?: string;
  tests: PageTest[];
}
