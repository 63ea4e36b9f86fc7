import { readdirSync, readFileSync } from 'node:fs';

/** The pids of a process's children, from /proc (Linux): empty once it has exited. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    // A child is listed under the thread that started it, not always the main one.
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // The process exited between two reads.
  }
  return out;
}
