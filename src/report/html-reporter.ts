import type { RunOutcome } from './reporter.js';
import type { RunDiff } from './run-diff.js';

export function renderHtml(outcome: RunOutcome, write: (text: string) => void, options: { baseline: RunDiff | null }): void {
  write(`<!doctype html><title>${outcome.head.run_id}</title>${options.baseline === null ? '' : 'x'}`);
}
