/**
 * The import rules of .dependency-cruiser.cjs hold for src/: no cycles, and
 * each layer imports only what lies below it (docs/ARCHITECTURE.md). A
 * fixture with a cycle shows that the check can fail.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../e2e/run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: Array<string | { name: string }>;
}

async function violations(target: string): Promise<Violation[]> {
  const r = await runCommand(process.execPath, [CRUISE, target, '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { cwd: ROOT });
  expect(r.stderr.replace(/^npm warn.*\n/gm, '')).toBe('');
  const report = JSON.parse(r.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  expect(report.summary.totalCruised).toBeGreaterThan(0);
  return report.summary.violations;
}

describe('the architecture of src/', () => {
  it('has no import cycle and no import against the layers', async () => {
    const found = await violations('src');
    expect(found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  }, 60_000);

  it('reports a cycle when there is one', async () => {
    const found = await violations('test/fixtures/import-cycle');
    expect(found.map((v) => v.rule.name)).toContain('no-circular');
  }, 60_000);
});
