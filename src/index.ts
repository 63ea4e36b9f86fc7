/**
 * evalrun as a library: `import { evaluate, createGrader, loadProblems } from 'evalrun'`.
 * `evaluate` runs what the CLI runs; `createGrader` keeps problems and warm
 * workers for many small calls (what `evalrun serve` answers requests with).
 * The process that calls `evaluate` hosts no isolate itself (candidates run
 * in sandbox worker processes), so it needs no special Node flags.
 */
export { DEFAULTS } from './defaults.js';
export { evaluate, type EvaluateOptions } from './evaluate.js';
export {
  createGrader,
  Grader,
  GradeCancelled,
  GradeRefused,
  GraderClosed,
  InvalidProblem,
  ProblemText,
  QueueFull,
  type CandidateInput,
  type FloatTolerance,
  type GradeCall,
  type GradeCallOptions,
  type GradedCandidate,
  type GraderObserver,
  type GraderOptions,
  type GradingOptions,
  type ProblemDocument,
  type ProblemListing,
  type RefusalReason,
} from './service/grader.js';
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
