/**
 * evalrun as a library: `import { evaluate, loadProblems } from 'evalrun'`.
 * The process that calls `evaluate` hosts no isolate itself (candidates run
 * in sandbox worker processes), so it needs no special Node flags.
 */
export { DEFAULTS } from './defaults.js';
export { evaluate, type EvaluateOptions } from './evaluate.js';
export { loadProblemFile, loadProblems, ProblemDirectoryError, type LoadOptions } from './problems/load.js';
export type { InvalidProblemFile, LoadedProblems, PreparedProblem, PreparedSuite, PreparedTest } from './problems/prepared.js';
export type { Problem } from './problems/schema.js';
export type {
  CandidateResult,
  CandidateStatus,
  ProblemReport,
  Scorecard,
  ScorecardHead,
  Summary,
  TestResult,
  TestStatus,
} from './report/scorecard.js';
export { VERSION } from './version.js';
