import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { plannedWorkers } from '../../src/cli/main.js';

describe('plannedWorkers: how many sandbox workers to start before the arguments are parsed', () => {
  it('starts one per core for a plain run', () => {
    expect(plannedWorkers(['--problems', 'problems'])).toBe(availableParallelism());
    expect(plannedWorkers(['--problems=problems', '--solutions', 'dir'])).toBe(availableParallelism());
  });

  it('follows --concurrency in both spellings, up to one per core (the pool starts the rest when work waits for them)', () => {
    expect(plannedWorkers(['--problems', 'p', '--concurrency', '3'])).toBe(Math.min(3, availableParallelism()));
    expect(plannedWorkers(['--concurrency=1', '--problems', 'p'])).toBe(1);
    expect(plannedWorkers(['--problems', 'p', '--concurrency', '500'])).toBe(availableParallelism());
  });

  it('starts none when there will be no run, or the count is not a plain number', () => {
    expect(plannedWorkers([])).toBe(0);
    expect(plannedWorkers(['--solutions', 'dir'])).toBe(0);
    expect(plannedWorkers(['--problems', 'p', '--help'])).toBe(0);
    expect(plannedWorkers(['--problems', 'p', '--print-schema'])).toBe(0);
    expect(plannedWorkers(['--resume', 'results/x.jsonl', '--problems', 'p'])).toBe(0);
    expect(plannedWorkers(['--problems', 'p', '--concurrency', 'lots'])).toBe(0);
    expect(plannedWorkers(['--problems', 'p', '--concurrency', '0'])).toBe(0);
    expect(plannedWorkers(['--problems', 'p', '--concurrency'])).toBe(0);
  });
});
