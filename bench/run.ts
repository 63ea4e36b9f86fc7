/**
 * The evalrun benchmark (issue 5): what sandboxing costs.
 *
 *   npm run bench [-- OPTIONS]
 *   node --no-node-snapshot dist/bench/run.js [OPTIONS]      (after npm run build)
 *
 * It generates a synthetic problem set (bench/generate.ts) in a temporary
 * folder and measures three contenders on it, each as a complete run in a
 * child process so that every one pays its own start-up:
 *
 *   evalrun  the real CLI, run as a user runs it: bin/evalrun.js --problems DIR --out FILE
 *   floor    the same loading, preparing and comparison with each
 *            optimal_solution called in-process, no sandbox (bench/floor.ts)
 *   peer     a fresh `node` process per problem running all its tests,
 *            as many at once as there are cores (bench/peer.ts)
 *
 * Contenders alternate (evalrun floor peer evalrun floor peer ...) for
 * several rounds and medians are reported: wall time, tests per second, the
 * host process's peak RSS and the largest sandbox worker's peak RSS (each
 * process reports its own through bench/rss-probe.cts), then the ratios
 * evalrun/floor (target <= 2.0) and peer/evalrun (target >= 20) with PASS or
 * FAIL. Every run must pass every test (exit code 0), or it is reported as
 * failed: a contender that skipped work would look fast.
 *
 * Options:
 *   --problems N         problems in the main set (default 400)
 *   --tests T            tests per problem (default 50)
 *   --rounds R           rounds of alternation (default 5)
 *   --only LIST          contenders to run, comma-separated (default evalrun,floor,peer)
 *   --quick              100 problems, 3 rounds: a smoke test, not the targets
 *   --scale              also measure scaling, evalrun only:
 *                          10x the problems (4,000 x 50 by default) against the main
 *                          set, alternated for --scale-rounds rounds (default 3),
 *                          target: at most 10.5x the time;
 *                          one run of --million tests (default 1,000,000, as
 *                          problems of T tests), target: host peak RSS < 500 MB
 *   --scale-only         the scaling measurements without the three-way comparison
 *   --scale-rounds R     rounds of the 10x comparison (default 3)
 *   --million N          tests in the big-memory run (default 1000000)
 *   --keep               keep the generated problem sets and print where they are
 *
 * Generated sets and results go to the system temporary folder and are
 * removed afterwards (unless --keep); nothing is written into the checkout.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BUNDLE_OPTIONS, NODE_CJS_BUNDLE_OPTIONS } from '../scripts/bundle-options.js';
import { BUNDLE_DIR, WORKER_BUNDLES } from '../src/sandbox-host/worker-launch.js';
import { generateProblemSet } from './generate.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** dist/bench -> repository root. */
const ROOT = resolve(HERE, '..', '..');
const PROBE = join(HERE, 'rss-probe.cjs');

type ContenderName = 'evalrun' | 'floor' | 'peer';
const CONTENDERS: readonly ContenderName[] = ['evalrun', 'floor', 'peer'];

interface Options {
  problems: number;
  tests: number;
  rounds: number;
  only: ContenderName[];
  scale: boolean;
  compare: boolean;
  scaleRounds: number;
  million: number;
  keep: boolean;
}

interface Measurement {
  wallMs: number;
  /** CPU time (user + system) of the whole process tree, when /usr/bin/time is there to measure it. */
  treeCpuMs: number | null;
  /** CPU time of the contender's own process. */
  hostCpuMs: number | null;
  /** CPU time of that process's main thread: the thread a run waits on. */
  hostMainCpuMs: number | null;
  hostRssKb: number | null;
  workerRssKb: number | null;
  workers: number;
  ok: boolean;
  detail: string;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    problems: 400,
    tests: 50,
    rounds: 5,
    only: [...CONTENDERS],
    scale: false,
    compare: true,
    scaleRounds: 3,
    million: 1_000_000,
    keep: false,
  };
  const number = (name: string, value: string | undefined): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} needs a positive whole number, got ${String(value)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    switch (arg) {
      case '--problems':
        options.problems = number('problems', argv[++i]);
        break;
      case '--tests':
        options.tests = number('tests', argv[++i]);
        break;
      case '--rounds':
        options.rounds = number('rounds', argv[++i]);
        break;
      case '--scale-rounds':
        options.scaleRounds = number('scale-rounds', argv[++i]);
        break;
      case '--million':
        options.million = number('million', argv[++i]);
        break;
      case '--only': {
        const names = (argv[++i] ?? '').split(',').filter((n) => n !== '');
        const unknown = names.filter((n) => !(CONTENDERS as readonly string[]).includes(n));
        if (names.length === 0 || unknown.length > 0) throw new Error(`--only takes some of ${CONTENDERS.join(',')}`);
        options.only = names as ContenderName[];
        break;
      }
      case '--quick':
        options.problems = 100;
        options.rounds = 3;
        break;
      case '--scale':
        options.scale = true;
        break;
      case '--scale-only':
        options.scale = true;
        options.compare = false;
        break;
      case '--keep':
        options.keep = true;
        break;
      default:
        throw new Error(`unknown option ${String(arg)} (see the comment at the top of bench/run.ts)`);
    }
  }
  return options;
}

/**
 * Where the floor and the peer run from. evalrun runs as it ships, from the
 * bundle `npm run build` makes; the floor is bundled and started the same
 * way, and the peer as one ES module, before measuring, so that no
 * contender pays for loading a module graph file by file and the ratios
 * measure only what differs.
 */
let bundled: { floor: string; peer: string } | null = null;

async function bundleContenders(): Promise<void> {
  const { build } = await import('esbuild');
  // Inside the checkout's dist/, so that packages left outside the bundle resolve.
  const outdir = join(ROOT, 'dist', 'bench-bundle');
  await rm(outdir, { recursive: true, force: true });
  await build({ entryPoints: { peer: join(HERE, 'peer.js') }, outdir, outExtension: { '.js': '.mjs' }, ...NODE_BUNDLE_OPTIONS });
  // The floor is bundled as the CLI is: one CommonJS file.
  await build({ entryPoints: { floor: join(HERE, 'floor.js') }, outdir, ...NODE_CJS_BUNDLE_OPTIONS });
  bundled = { floor: join(outdir, 'floor.cjs'), peer: join(outdir, 'peer.mjs') };
}

/** How a contender is started. */
interface Command {
  /** `node` (this process's executable), or the program itself when it runs as an executable. */
  program: string;
  args: string[];
}

function commandFor(name: ContenderName, problemsDir: string, outFile: string): Command {
  const cores = String(availableParallelism());
  switch (name) {
    case 'evalrun':
      // As a user runs it: the bin as an executable.
      return { program: join(ROOT, 'bin', 'evalrun.js'), args: ['--problems', problemsDir, '--out', outFile, '--concurrency', cores] };
    case 'floor':
      return {
        program: process.execPath,
        args: [bundled?.floor ?? join(HERE, 'floor.js'), '--problems', problemsDir, '--out', outFile],
      };
    case 'peer':
      return {
        program: process.execPath,
        args: [bundled?.peer ?? join(HERE, 'peer.js'), '--problems', problemsDir, '--out', outFile, '--concurrency', cores],
      };
  }
}

/**
 * One complete run of a contender: wall time from spawn to exit, and the
 * peak RSS each of its processes reported. The run's cwd is a scratch folder
 * so that anything a contender writes by default stays out of the checkout.
 */
/**
 * GNU time reports the CPU time of every process of the tree it waited
 * for, which includes a peer's per-problem processes; CPU time is also far
 * less disturbed than wall time by other work on a shared machine.
 */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

async function measure(command: Command, scratch: string): Promise<Measurement> {
  const rssFile = join(scratch, `rss-${process.hrtime.bigint()}.jsonl`);
  const timeFile = join(scratch, `time-${process.hrtime.bigint()}.txt`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(PROBE)}`.trim(),
    BENCH_RSS_FILE: rssFile,
  };
  const started = performance.now();
  const [program, ...programArgs] =
    GNU_TIME === null ? [command.program, ...command.args] : [GNU_TIME, '-o', timeFile, '-f', '%U %S', command.program, ...command.args];
  const child = spawn(program, programArgs, { cwd: scratch, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  const wallMs = performance.now() - started;
  let treeCpuMs: number | null = null;
  if (existsSync(timeFile)) {
    // The last line: GNU time puts a note about a failed command before it.
    const fields = (await readFile(timeFile, 'utf8')).trim().split('\n').pop()?.split(' ').map(Number) ?? [];
    if (fields.length === 2 && fields.every(Number.isFinite)) treeCpuMs = (fields[0]! + fields[1]!) * 1000;
    await rm(timeFile, { force: true });
  }
  // The contender's own process is the child, or the child of GNU time.
  const isHost = (record: { pid: number; ppid: number }): boolean => (GNU_TIME === null ? record.pid === child.pid : record.ppid === child.pid);
  let hostRssKb: number | null = null;
  let hostCpuMs: number | null = null;
  let hostMainCpuMs: number | null = null;
  let workerRssKb: number | null = null;
  let workers = 0;
  if (existsSync(rssFile)) {
    for (const line of (await readFile(rssFile, 'utf8')).split('\n')) {
      if (line === '') continue;
      const record = JSON.parse(line) as { pid: number; ppid: number; maxRssKb: number; cpuMs: number; mainThreadCpuMs: number | null };
      if (isHost(record)) {
        hostRssKb = record.maxRssKb;
        hostCpuMs = record.cpuMs;
        hostMainCpuMs = record.mainThreadCpuMs;
      } else {
        workers++;
        workerRssKb = Math.max(workerRssKb ?? 0, record.maxRssKb);
      }
    }
    await rm(rssFile, { force: true });
  }
  const ok = code === 0;
  return {
    wallMs,
    treeCpuMs,
    hostCpuMs,
    hostMainCpuMs,
    hostRssKb,
    workerRssKb,
    workers,
    ok,
    detail: ok ? '' : `exit code ${String(code)}: ${stderr.trim().slice(-600)}`,
  };
}

/** A run in a folder of its own, removed afterwards: contenders may write more than the file they are given. */
async function measureRun(name: ContenderName, problemsDir: string, scratch: string): Promise<Measurement> {
  const dir = await mkdtemp(join(scratch, `${name}-`));
  try {
    return await measure(commandFor(name, problemsDir, join(dir, 'results.json')), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function medianOrNull(values: ReadonlyArray<number | null>): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : median(present);
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);
const cpu = (ms: number | null): string => (ms === null ? '-' : (ms / 1000).toFixed(2));
const mb = (kb: number | null): string => (kb === null ? '-' : (kb / 1024).toFixed(0));
const verdict = (pass: boolean): string => (pass ? 'PASS' : 'FAIL');

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

function log(line = ''): void {
  process.stdout.write(`${line}\n`);
}

async function generate(scratch: string, name: string, problems: number, tests: number): Promise<string> {
  const dir = join(scratch, name);
  const t0 = performance.now();
  await generateProblemSet(dir, { problems, testsPerProblem: tests });
  log(`generated ${problems} problems x ${tests} tests in ${seconds(performance.now() - t0)} s: ${dir}`);
  return dir;
}

async function mainComparison(options: Options, scratch: string, problemsDir: string): Promise<Map<ContenderName, Measurement[]>> {
  const runs = new Map<ContenderName, Measurement[]>(options.only.map((n) => [n, []]));
  for (let round = 1; round <= options.rounds; round++) {
    const line: string[] = [];
    for (const name of options.only) {
      const m = await measureRun(name, problemsDir, scratch);
      runs.get(name)!.push(m);
      line.push(`${name} ${seconds(m.wallMs)} s${m.ok ? '' : ' (FAILED)'}`);
      if (!m.ok) log(`  ${name} failed: ${m.detail}`);
    }
    log(`round ${round}/${options.rounds}: ${line.join(', ')}`);
  }
  return runs;
}

function report(options: Options, runs: Map<ContenderName, Measurement[]>): void {
  const tests = options.problems * options.tests;
  const rows: string[][] = [
    [
      'contender',
      'wall (s)',
      'min-max (s)',
      'tests/s',
      'CPU all (s)',
      'CPU host (s)',
      'host main thread (s)',
      'host peak RSS (MB)',
      'worker peak RSS (MB)',
      'all passed',
    ],
  ];
  for (const [name, ms] of runs) {
    const wall = median(ms.map((m) => m.wallMs));
    const all = ms.map((m) => m.wallMs);
    rows.push([
      name,
      seconds(wall),
      `${seconds(Math.min(...all))}-${seconds(Math.max(...all))}`,
      Math.round(tests / (wall / 1000)).toLocaleString('en-US'),
      cpu(medianOrNull(ms.map((m) => m.treeCpuMs))),
      cpu(medianOrNull(ms.map((m) => m.hostCpuMs))),
      cpu(medianOrNull(ms.map((m) => m.hostMainCpuMs))),
      mb(medianOrNull(ms.map((m) => m.hostRssKb))),
      ms.some((m) => m.workers > 0) ? `${mb(medianOrNull(ms.map((m) => m.workerRssKb)))} (x${Math.max(...ms.map((m) => m.workers))})` : '-',
      ms.every((m) => m.ok) ? 'yes' : 'NO',
    ]);
  }
  log();
  log(`${options.problems} problems x ${options.tests} tests = ${tests.toLocaleString('en-US')} tests, medians of ${options.rounds} rounds`);
  log(table(rows));
  log();
  const allOk = (name: ContenderName): boolean => runs.get(name)?.every((m) => m.ok) ?? false;
  const ratioLine = (label: string, slow: ContenderName, fast: ContenderName, target: (r: number) => boolean, goal: string): void => {
    const a = runs.get(slow);
    const b = runs.get(fast);
    if (a === undefined || b === undefined) return;
    const ratio = median(a.map((m) => m.wallMs)) / median(b.map((m) => m.wallMs));
    // Runs next to each other in time saw the same load from the rest of the machine.
    const perRound = median(a.map((m, i) => m.wallMs / b[i]!.wallMs));
    const cpuA = medianOrNull(a.map((m) => m.treeCpuMs));
    const cpuB = medianOrNull(b.map((m) => m.treeCpuMs));
    const byCpu = cpuA !== null && cpuB !== null ? `, by CPU time ${(cpuA / cpuB).toFixed(2)}` : '';
    log(
      `${label} = ${ratio.toFixed(2)}   (target ${goal})  ${verdict(target(ratio) && allOk(slow) && allOk(fast))}` +
        `   [median of per-round ratios ${perRound.toFixed(2)}${byCpu}]`,
    );
  };
  ratioLine('evalrun / floor', 'evalrun', 'floor', (r) => r <= 2.0, '<= 2.0');
  ratioLine('peer / evalrun ', 'peer', 'evalrun', (r) => r >= 20, '>= 20');
}

async function scaling(options: Options, scratch: string, smallDir: string): Promise<void> {
  const bigProblems = options.problems * 10;
  log();
  log(`Scaling: ${bigProblems} x ${options.tests} against ${options.problems} x ${options.tests} (evalrun only, alternated)`);
  const bigDir = await generate(scratch, 'set-10x', bigProblems, options.tests);
  const small: number[] = [];
  const big: number[] = [];
  let ok = true;
  for (let round = 1; round <= options.scaleRounds; round++) {
    const a = await measureRun('evalrun', smallDir, scratch);
    const b = await measureRun('evalrun', bigDir, scratch);
    ok &&= a.ok && b.ok;
    if (!b.ok) log(`  ${bigProblems} x ${options.tests} failed: ${b.detail}`);
    small.push(a.wallMs);
    big.push(b.wallMs);
    log(
      `round ${round}/${options.scaleRounds}: ${options.problems} x ${options.tests} ${seconds(a.wallMs)} s, ${bigProblems} x ${options.tests} ${seconds(b.wallMs)} s (host RSS ${mb(b.hostRssKb)} MB)`,
    );
  }
  if (!options.keep) await rm(bigDir, { recursive: true, force: true });
  const ratio = median(big) / median(small);
  log(
    `time(${bigProblems} x ${options.tests}) / time(${options.problems} x ${options.tests}) = ${ratio.toFixed(2)}   (target <= 10.5)  ${verdict(ratio <= 10.5 && ok)}`,
  );

  const problems = Math.ceil(options.million / options.tests);
  const total = problems * options.tests;
  log();
  log(`Memory: one run of ${total.toLocaleString('en-US')} tests (${problems} x ${options.tests}), evalrun only`);
  const hugeDir = await generate(scratch, 'set-million', problems, options.tests);
  const m = await measureRun('evalrun', hugeDir, scratch);
  if (!options.keep) await rm(hugeDir, { recursive: true, force: true });
  if (!m.ok) log(`  the run failed: ${m.detail}`);
  log(
    `wall ${seconds(m.wallMs)} s, ${Math.round(total / (m.wallMs / 1000)).toLocaleString('en-US')} tests/s, ` +
      `host peak RSS ${mb(m.hostRssKb)} MB, worker peak RSS ${mb(m.workerRssKb)} MB (${m.workers} workers)`,
  );
  const rssOk = m.hostRssKb !== null && m.hostRssKb < 500 * 1024;
  log(`host peak RSS on ${total.toLocaleString('en-US')} tests = ${mb(m.hostRssKb)} MB   (target < 500 MB)  ${verdict(rssOk && m.ok)}`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(join(ROOT, BUNDLE_DIR, WORKER_BUNDLES.main))) {
    throw new Error('build first: npm run build');
  }
  log(`evalrun benchmark: node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'})`);
  const scratch = await mkdtemp(join(tmpdir(), 'evalrun-bench-'));
  try {
    const problemsDir = await generate(scratch, 'set', options.problems, options.tests);
    await bundleContenders();
    if (options.compare) report(options, await mainComparison(options, scratch, problemsDir));
    if (options.scale) await scaling(options, scratch, problemsDir);
  } finally {
    if (options.keep) log(`kept: ${scratch}`);
    else await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
