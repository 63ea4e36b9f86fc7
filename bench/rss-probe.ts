/**
 * Preloaded into every process of a measured run (NODE_OPTIONS=--import=...):
 * when the process exits it appends its own peak resident set size to the
 * file named by BENCH_RSS_FILE. Child processes inherit NODE_OPTIONS, so a
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
    const line = JSON.stringify({ pid: process.pid, ppid: process.ppid, maxRssKb: process.resourceUsage().maxRSS });
    try {
      appendFileSync(file, `${line}\n`);
    } catch {
      // A measurement that cannot be written is missing from the table, never a failure of the run.
    }
  });
}
