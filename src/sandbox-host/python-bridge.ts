import type { CandidateJob, CandidateOutcome } from './protocol.js';

/** Python candidates; replaced by the Pyodide engine when it lands. */
export async function runPython(_job: CandidateJob): Promise<CandidateOutcome> {
  return { kind: 'load-error', message: 'unsupported language: python' };
}
