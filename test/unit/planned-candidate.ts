import type { Candidate } from '../../src/grading/candidate.js';

/** A planned submission of model `m` for the unit tests of what is sent and bounded per item; `overrides` sets the fields a test is about. */
export function plannedCandidate(overrides: Partial<Candidate> = {}): Candidate {
  return {
    problemId: 'p',
    file: 'p.json',
    modelId: 'm',
    promptId: null,
    sampleId: null,
    source: 's',
    tests: 1,
    submission: null,
    extract: false,
    ...overrides,
  };
}
