import type { CandidateResult, ProblemReport, Summary } from './scorecard.js';

export function summarize(candidates: readonly CandidateResult[], problems: readonly ProblemReport[]): Summary {
  const summary: Summary = {
    problems: problems.length,
    candidates: candidates.length,
    tests: 0,
    passed: 0,
    failed: 0,
    errored: 0,
    timed_out: 0,
    memory_exceeded: 0,
    invalid_problems: problems.filter((p) => !p.valid).length,
    pass_rate: 0,
  };
  for (const candidate of candidates) {
    for (const test of candidate.tests) {
      summary.tests++;
      switch (test.status) {
        case 'pass':
          summary.passed++;
          break;
        case 'fail':
          summary.failed++;
          break;
        case 'error':
          summary.errored++;
          break;
        case 'timeout':
          summary.timed_out++;
          break;
        case 'memory':
          summary.memory_exceeded++;
          break;
      }
    }
  }
  summary.pass_rate = summary.tests === 0 ? 0 : summary.passed / summary.tests;
  return summary;
}
