/**
 * evalrun as a library: `import { evaluate, createGrader, loadProblems } from 'evalrun'`.
 * `evaluate` runs what the CLI runs; `createGrader` keeps problems and warm
 * workers for many small calls (what `evalrun serve` answers requests with).
 * The process that calls `evaluate` hosts no isolate itself (candidates run
 * in sandbox worker processes), so it needs no special Node flags.
 */
export { DEFAULTS } from './defaults.js';
export { evaluate, type EvaluateOptions } from './evaluate.js';
export { createGrader, Grader, InvalidProblem, ProblemText, type ProblemDocument } from './service/grader.js';
export {
  GradeCancelled,
  GradeRefused,
  GraderClosed,
  QueueFull,
  type CallEfficiency,
  type CandidateInput,
  type GradeCall,
  type GradeCallOptions,
  type GradedCandidate,
  type ProblemListing,
  type RefusalReason,
} from './service/grade-call.js';
export type { FloatTolerance, GraderObserver, GraderOptions, GradingOptions } from './service/grader-options.js';
export { loadProblemFile, loadProblems, ProblemDirectoryError, type LoadOptions } from './problems/load.js';
export type { InvalidProblemFile, LoadedProblems, PreparedProblem, PreparedSuite, PreparedTest } from './problems/prepared.js';
export type { Problem } from './problems/schema.js';
export type {
  CandidateMeasure,
  CandidateResult,
  CandidateStatus,
  ProblemReport,
  Scorecard,
  ScorecardHead,
  Summary,
  TestMeasureRecord,
  TestResult,
  TestStatus,
} from './report/scorecard.js';
export type { CandidateEfficiency, EfficiencyReport, ModelEfficiency, ScoreMean, TagEfficiency } from './report/efficiency.js';
export { GRADERS, type EfficiencyGrader, type Grader as GraderName } from './grading/graders.js';
export { VERSION } from './version.js';
