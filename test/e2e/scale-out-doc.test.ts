/**
 * The SLURM array script of docs/SCALE-OUT.md, taken from the document and
 * run with bash as `sbatch` would run its tasks (the variables SLURM sets,
 * set by hand), then the document's merge line: the merged scorecard is the
 * single run's. A task run again (requeued) finishes its shard with
 * --resume instead of starting it over.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCli, runCommand } from './run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'SCALE-OUT.md'), 'utf8');
const EVALRUN = `${process.execPath} ${join(ROOT, 'bin', 'evalrun.js')}`;

function comparable(card: Scorecard): unknown {
  return JSON.parse(
    JSON.stringify(card, (key, value: unknown) =>
      ['duration_ms', 'started_at', 'finished_at', 'run_id', 'concurrency', 'merge'].includes(key) ? undefined : value,
    ),
  );
}

describe('docs/SCALE-OUT.md, SLURM array', () => {
  it('runs each array task as a shard, resumes a requeued one, and merges into the single run', async () => {
    const script = /```bash\n(#!\/bin\/bash\n#SBATCH[\s\S]*?)```/.exec(DOC)?.[1];
    expect(script, 'the SLURM script block').toBeDefined();
    const merge = /--wrap '([^']+)'/.exec(DOC)?.[1];
    expect(merge).toBe('evalrun merge results/shard-*.jsonl --out results/merged.json');

    const dir = mkdtempSync(join(tmpdir(), 'evalrun-slurm-'));
    cpSync(join(ROOT, 'test/fixtures/grade/problems'), join(dir, 'problems'), { recursive: true });
    cpSync(join(ROOT, 'test/fixtures/grade/solutions'), join(dir, 'solutions'), { recursive: true });
    writeFileSync(join(dir, 'evalrun-array.sbatch'), script!);
    const task = (id: number) =>
      runCommand('bash', ['evalrun-array.sbatch'], {
        cwd: dir,
        env: {
          EVALRUN,
          JOB_COMPLETION_INDEX: '',
          SLURM_ARRAY_TASK_ID: String(id),
          SLURM_ARRAY_TASK_MIN: '0',
          SLURM_ARRAY_TASK_MAX: '1',
          SLURM_ARRAY_TASK_COUNT: '2',
          SLURM_ARRAY_TASK_STEP: '1',
          SLURM_CPUS_PER_TASK: '1',
        },
      });
    for (const id of [0, 1]) {
      const r = await task(id);
      expect(r.code, r.stderr).toBe(0);
    }
    const again = await task(0);
    expect(again.code, again.stderr).toBe(0);

    const merged = await runCommand('bash', ['-c', merge!.replace(/^evalrun /, `${EVALRUN} `)], { cwd: dir });
    expect(merged.code, merged.stderr).toBe(0);
    const single = await runCli(['--problems', 'problems', '--solutions', 'solutions', '--pass-at', '1,10,100', '--out', 'single.json'], { cwd: dir });
    expect(single.code, single.stderr).toBe(0);
    const card = JSON.parse(readFileSync(join(dir, 'results', 'merged.json'), 'utf8')) as Scorecard;
    expect(card.complete).toBe(true);
    expect(card.merge?.shards.map((s) => s.index)).toEqual([1, 2]);
    expect(comparable(card)).toEqual(comparable(JSON.parse(readFileSync(join(dir, 'single.json'), 'utf8')) as Scorecard));
  });
});
