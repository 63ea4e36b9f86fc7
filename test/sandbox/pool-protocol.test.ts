/**
 * The pool checks what a worker sends where it arrives (workers/pool.ts,
 * workers/messages.ts): a stand-in worker that speaks the protocol is
 * heard, and one that answers more items than its batch holds is killed
 * like a crashed one, its batch failing with what it sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/grading/candidate.js';
import { NO_FILTERS } from '../../src/grading/filters.js';
import type { Batch, BatchOptions, GradedMessage, WorkItem } from '../../src/workers/messages.js';
import { BatchFault, WorkerPool } from '../../src/workers/pool.js';

/**
 * A worker that says it is ready, then answers each batch with one graded
 * message of `answers` candidates from item 0, whatever the batch holds.
 */
function standIn(answers: number): string {
  const script = join(mkdtempSync(join(tmpdir(), 'evalrun-stand-in-')), 'worker.cjs');
  writeFileSync(
    script,
    `const fs = require('fs');
const answers = ${answers};
fs.writeSync(3, JSON.stringify({ type: 'ready' }) + '\\n');
let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf('\\n'); end >= 0; end = pending.indexOf('\\n')) {
    const message = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (message.type !== 'batch') continue;
    // One passed row per candidate: problem "p", model "m", language "javascript", 1 of 1 test.
    const row = [0, 1, -1, -1, 2, -1, -1, 0, 1, 1, 0, 0, 0, 0, 0, 0];
    const record = '{"n":1}';
    const payload = record.repeat(answers);
    const line = JSON.stringify({
      type: 'graded',
      batch: message.id,
      item: 0,
      strings: ['p', 'm', 'javascript'],
      rows: Array.from({ length: answers }, () => row).flat(),
      rowEnds: Array.from({ length: answers }, (_, i) => i + 1),
      recordBytes: Array.from({ length: answers }, () => record.length),
      payloadBytes: payload.length,
    });
    fs.writeSync(3, line + '\\n' + payload);
  }
});
process.stdin.on('end', () => process.exit(0));
`,
  );
  return script;
}

const candidate: Candidate = {
  problemId: 'p',
  file: '/nowhere/p.json',
  modelId: 'm',
  promptId: null,
  sampleId: null,
  source: 's.js',
  tests: 1,
  submission: null,
  extract: false,
};

const OPTIONS: BatchOptions = {
  grade: { limits: { timeoutMs: 1000, memoryMb: 64, seed: 1 }, tolerance: { relative: 0, absolute: 0 }, languages: ['javascript'] },
  extractCode: false,
  filters: NO_FILTERS,
};

function batchOf(items: number): Batch {
  return { options: OPTIONS, items: Array.from({ length: items }, (): WorkItem => ({ kind: 'grade', candidate })) };
}

describe('the pool and what a worker sends', () => {
  let pool: WorkerPool | null = null;
  afterEach(async () => {
    await pool?.close();
    pool = null;
  });

  it('hears a graded message that answers the batch, and moves on by the items it answers', async () => {
    pool = new WorkerPool({ size: 1, workerScript: standIn(3) });
    const heard: GradedMessage[] = [];
    await pool.run({ batch: batchOf(3), ceilingMs: () => 10_000, onMessage: (m) => m.type === 'graded' && heard.push(m) });
    expect(heard.map((m) => [m.item, m.count])).toEqual([[0, 3]]);
  });

  it('kills a worker that answers more items than its batch holds, failing only that batch', async () => {
    pool = new WorkerPool({ size: 1, workerScript: standIn(2) });
    let heard = 0;
    const failed = await pool.run({ batch: batchOf(1), ceilingMs: () => 10_000, onMessage: () => void heard++ }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(heard).toBe(0);
    expect(failed).toBeInstanceOf(BatchFault);
    expect((failed as BatchFault).answered).toBe(0);
    expect((failed as BatchFault).message).toMatch(/after it sent answers to items 0 to 1 of a batch of 1/);
  });
});
