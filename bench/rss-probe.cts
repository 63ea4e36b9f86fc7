/**
 * Preloaded into every process of a measured run (NODE_OPTIONS=--require ...):
 * when the process exits it appends its own peak resident set size and the
 * CPU time it used (all threads, and the main thread alone) to the file
 * named by BENCH_RSS_FILE. Child processes inherit NODE_OPTIONS, so a
 * contender's sandbox workers report too, which separates the host's peak
 * from the workers' (/usr/bin/time would give only the largest of them).
 *
 * Appending one short line with O_APPEND is atomic on Linux, so processes
 * exiting at the same time do not interleave.
 *
 * It is CommonJS, preloaded with --require: with --import, every process
 * would start Node's ES module loader to load it, and a sandbox worker
 * (which starts without Node's snapshot, and runs CommonJS) would compile
 * that loader from source, which the measurement would then include.
 */
import { appendFileSync, readFileSync } from 'node:fs';

/**
 * CPU time of the main thread alone (Linux): process CPU time also counts
 * V8's garbage-collection and compiler threads and libuv's pool, which run
 * beside the JavaScript thread; the main thread is the one a run waits on.
 */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    // USER_HZ is 100 on every Linux that Node supports.
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

const file = process.env.BENCH_RSS_FILE;
if (file !== undefined && file !== '') {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
    const line = JSON.stringify({ pid: process.pid, ppid: process.ppid, maxRssKb: usage.maxRSS, cpuMs, mainThreadCpuMs: mainThreadCpuMs() });
    try {
      appendFileSync(file, `${line}\n`);
    } catch {
      // A measurement that cannot be written is missing from the table, never a failure of the run.
    }
  });
}
