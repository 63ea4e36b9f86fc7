/**
 * Preloaded into every process of a measured run (NODE_OPTIONS=--import=...):
 * when the process exits it appends its own peak resident set size and the
 * CPU time it used to the file named by BENCH_RSS_FILE. Child processes inherit NODE_OPTIONS, so a
 * contender's sandbox workers report too, which separates the host's peak
 * from the workers' (/usr/bin/time would give only the largest of them).
 *
 * Appending one short line with O_APPEND is atomic on Linux, so processes
 * exiting at the same time do not interleave.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file !== undefined && file !== '') {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
    const line = JSON.stringify({ pid: process.pid, ppid: process.ppid, maxRssKb: usage.maxRSS, cpuMs });
    try {
      appendFileSync(file, `${line}\n`);
    } catch {
      // A measurement that cannot be written is missing from the table, never a failure of the run.
    }
  });
}
