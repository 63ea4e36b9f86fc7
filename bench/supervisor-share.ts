/**
 * The supervisor's share (issue 26, point 1): how much CPU the one process
 * every candidate passes through spends per candidate, against what the
 * sandbox workers spend. Their ratio bounds how many cores a run can keep
 * busy: by Amdahl's law at most 1 + workers / supervisor.
 *
 *   npm run bench:share [-- OPTIONS]
 *   node --no-node-snapshot dist/bench/supervisor-share.js [OPTIONS]   (after npm run build)
 *
 * Four workloads, each graded by the real CLI (bin/evalrun.js, as an
 * executable, one run at a time) at two sizes, N and 4N candidates:
 *
 *   js-passk   JavaScript pass@k: problems x 20 samples x 5 tests
 *   py-passk   Python pass@k: MBPP-like problems x 10 samples x 3 tests
 *   js-self    JavaScript self-check: problems x 5 tests (bench/generate.ts)
 *   py-self    Python self-check: problems x 3 tests
 *
 * Who counts as what: the workers are the processes that host isolates,
 * the CLI's children started by src/sandbox-host/worker-launch.ts, known by
 * the file name of the script on their command line (the worker bundle, or
 * tsc's worker-process.js wherever a build puts it); the supervisor is
 * everything else of the run: the CLI process and any other process under it.
 *
 * How CPU is read, exactly where it can be: the CLI is started by a small
 * python3 wrapper that waits for its exit without reaping it
 * (waitid(WNOWAIT)), so the CLI's /proc/<pid>/stat can still be read as a
 * zombie: utime + stime are the CLI's own final total, and cutime + cstime
 * the final total of every child it reaped. The wrapper is also a child
 * subreaper, so a process that outlives the CLI is reaped by it, and its
 * getrusage(RUSAGE_CHILDREN) is then the CPU of the whole tree. While the
 * run goes, this process reads every descendant's /proc stat and command
 * line every few tens of milliseconds; that only tells workers from other
 * helpers (none is expected), whose sampled CPU then moves to the
 * supervisor's side, and checks the exact totals.
 *
 * Cost per candidate is the slope between the run of N and the run of 4N
 * (start-up cancels); the intercept is the fixed start cost. The sizes
 * alternate (which one goes first turns every round) for R rounds and the
 * medians of the per-round figures are reported. Every run's scorecard must
 * hold the verdicts the generator computed in advance, or the measurement
 * is reported as failed.
 *
 * With --baseline DIR, every run is made twice, once by this build and once
 * by the evalrun checkout in DIR (built: bin/evalrun.js and dist/bundle/),
 * on the same generated sets; which build goes first turns with the round
 * and the size. Each workload then also reports the baseline's figures and
 * two ratios of this build to the baseline, each at most 1.05: the workers'
 * CPU per candidate, and the median wall time of the 4N run.
 *
 * Each run also reports the CLI's peak resident memory (its VmHWM at the
 * last sample, so at most one sampling period short of its exit), for
 * point 4's "the supervisor's memory stays flat as the run grows": no
 * target, a figure to read N against 4N.
 *
 * Options:
 *   --rounds R        rounds (default 3)
 *   --only LIST       workloads, comma-separated (default all four)
 *   --concurrency C   passed to the CLI (default: the machine's cores)
 *   --interval MS     sampling period (default 25)
 *   --quick           small sizes, one round: a smoke run, below the issue's 2,000 candidates
 *   --scale F         F times as many problems in both sizes (default 1)
 *   --json            print the results as one JSON document on stdout (progress goes to stderr)
 *   --keep            keep the generated sets and the scorecards
 *   --baseline DIR    also measure the build in DIR, side by side (see above)
 *
 * Exit code 0 when every run (of both builds) had the expected verdicts and
 * every share and ratio met its target (share at most 2%, ratios at most
 * 1.05), 1 otherwise, 2 when the bench itself failed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { defaultCacheDir } from '../src/engines/python/snapshot-cache.js';
import { BUNDLE_DIR, WORKER_BUNDLES } from '../src/sandbox-host/worker-launch.js';
import { generateProblemSet } from './generate.js';
import { writePassAtKSet, writePythonSelfCheckSet, type ExpectedVerdicts } from './share-sets.js';
import { childPids } from './proc.js';
import { positiveCount } from './flags.js';

const TARGET_SHARE = 0.02;
/** Against --baseline: this build's workers' CPU per candidate, and its wall time, over the baseline's. */
const TARGET_RATIO = 1.05;

type WorkloadName = 'js-passk' | 'py-passk' | 'js-self' | 'py-self';
const WORKLOADS: readonly WorkloadName[] = ['js-passk', 'py-passk', 'js-self', 'py-self'];

interface Workload {
  name: WorkloadName;
  label: string;
  /** Problems in the small set; the large one has four times as many. */
  problems: number;
  samples: number | null;
  tests: number;
}

function workloads(quick: boolean, scale: number): Workload[] {
  const q = (full: number, small: number): number => (quick ? small : full) * scale;
  return [
    { name: 'js-passk', label: 'JavaScript pass@k', problems: q(50, 10), samples: 20, tests: 5 },
    { name: 'py-passk', label: 'Python pass@k', problems: q(50, 20), samples: 10, tests: 3 },
    { name: 'js-self', label: 'JavaScript self-check', problems: q(500, 200), samples: null, tests: 5 },
    { name: 'py-self', label: 'Python self-check', problems: q(500, 200), samples: null, tests: 3 },
  ];
}

interface Options {
  rounds: number;
  only: WorkloadName[];
  concurrency: number;
  intervalMs: number;
  quick: boolean;
  /** Multiplies every workload's problems (both sizes). */
  scale: number;
  json: boolean;
  keep: boolean;
  baseline: string | null;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    rounds: 3,
    only: [...WORKLOADS],
    concurrency: availableParallelism(),
    intervalMs: 25,
    quick: false,
    scale: 1,
    json: false,
    keep: false,
    baseline: null,
  };
  let roundsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    switch (flag) {
      case '--rounds':
        options.rounds = positiveCount(flag, argv[++i]);
        roundsGiven = true;
        break;
      case '--concurrency':
        options.concurrency = positiveCount(flag, argv[++i]);
        break;
      case '--interval':
        options.intervalMs = positiveCount(flag, argv[++i]);
        break;
      case '--only': {
        const names = (argv[++i] ?? '').split(',').filter((n) => n !== '');
        if (names.length === 0 || names.some((n) => !(WORKLOADS as readonly string[]).includes(n))) {
          throw new Error(`--only takes some of ${WORKLOADS.join(',')}`);
        }
        options.only = names as WorkloadName[];
        break;
      }
      case '--quick':
        options.quick = true;
        break;
      case '--scale':
        options.scale = positiveCount(flag, argv[++i]);
        break;
      case '--json':
        options.json = true;
        break;
      case '--keep':
        options.keep = true;
        break;
      case '--baseline': {
        const dir = argv[++i];
        if (dir === undefined || dir === '') throw new Error('--baseline needs the folder of another evalrun checkout');
        options.baseline = resolve(dir);
        break;
      }
      default:
        throw new Error(`unknown option ${flag} (see the comment at the top of bench/supervisor-share.ts)`);
    }
  }
  if (options.quick && !roundsGiven) options.rounds = 1;
  return options;
}

// ---------------------------------------------------------------------------
// One run of the CLI

/**
 * Starts the command with stdout to /dev/null and stderr to a file, prints
 * its pid, waits for its exit without reaping it, reads its final
 * /proc/<pid>/stat, reaps it and every orphan the subreaper adopted, and
 * prints the totals. Python because Node cannot wait without reaping.
 */
const WRAPPER = `
import ctypes, json, os, resource, sys, time
stderr_file, argv = sys.argv[1], sys.argv[2:]
subreaper = False
try:
    subreaper = ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
except Exception:
    pass
actions = [
    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
    (os.POSIX_SPAWN_OPEN, 2, stderr_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
]
# A launcher (a pyenv shim) may have waited for processes of its own before exec'ing this one.
before = resource.getrusage(resource.RUSAGE_CHILDREN)
started = time.perf_counter()
pid = os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=actions)
sys.stdout.write(json.dumps({'pid': pid}) + '\\n')
sys.stdout.flush()
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
wall = time.perf_counter() - started
with open('/proc/%d/stat' % pid) as f:
    stat = f.read()
fields = stat[stat.rindex(')') + 2:].split()
_, status = os.waitpid(pid, 0)
orphans = 0
while True:
    try:
        os.waitpid(-1, 0)
        orphans += 1
    except ChildProcessError:
        break
r = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stdout.write(json.dumps({
    'wall': wall,
    'code': os.waitstatus_to_exitcode(status),
    'utime': int(fields[11]), 'stime': int(fields[12]), 'cutime': int(fields[13]), 'cstime': int(fields[14]),
    'tree': (r.ru_utime + r.ru_stime) - (before.ru_utime + before.ru_stime),
    'orphans': orphans,
    'subreaper': subreaper,
}) + '\\n')
`;

const CLOCK_TICKS = ((): number => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
})();

const ticksToMs = (ticks: number): number => (ticks * 1000) / CLOCK_TICKS;

interface SeenProcess {
  pid: number;
  command: string;
  worker: boolean;
  /** utime + stime at the last reading, in ms. */
  cpuMs: number;
}

interface RunResult {
  candidates: number;
  wallMs: number;
  supervisorMs: number;
  workersMs: number;
  /** The CLI's own CPU, exact. */
  cliMs: number;
  /** Sampled CPU of descendants that are not workers (counted on the supervisor's side). */
  helpersMs: number;
  /** Processes of the run that the CLI did not reap itself (the wrapper reaped them as their subreaper). */
  orphans: number;
  /** Descendants' CPU not in the CLI's cutime + cstime: tick rounding alone (under four ticks) unless there were orphans. */
  residualMs: number;
  /** Workers' CPU as the last samples saw it, against the exact total. */
  workersSampledMs: number;
  workerProcesses: number;
  helperCommands: string[];
  /** The CLI's peak resident memory (VmHWM) at its last sample, in MB: the supervisor's memory as the run grows. */
  cliPeakMb: number;
  samples: number;
  ok: boolean;
  detail: string;
}

function statCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ticksToMs(Number(fields[11]) + Number(fields[12]));
  } catch {
    return null;
  }
}

/** A process's peak resident memory so far (VmHWM), in kB; null once it is gone. */
function peakRssKb(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '')
      .join(' ');
  } catch {
    return null;
  }
}

const WORKER_SCRIPTS = [WORKER_BUNDLES.main, 'worker-process.js'];

/** A worker runs the worker bundle (or tsc's worker-process.js when there is no bundle) as Node's script. */
function isWorkerCommand(command: string): boolean {
  return command.split(' ').some((arg) => WORKER_SCRIPTS.includes(basename(arg)));
}

/**
 * Every descendant of `root`, with its latest command line: a fresh fork
 * shows its parent's until it execs, so a process is a worker once any
 * reading showed the worker's.
 */
function sample(root: number, seen: Map<number, SeenProcess>): void {
  const queue = childPids(root);
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const cpuMs = statCpuMs(pid);
    const command = commandLine(pid);
    if (cpuMs === null || command === null) continue;
    const entry = seen.get(pid);
    if (entry === undefined) seen.set(pid, { pid, command, worker: isWorkerCommand(command), cpuMs });
    else {
      entry.cpuMs = Math.max(entry.cpuMs, cpuMs);
      // A zombie's command line reads empty: keep what the process ran.
      if (command !== '') entry.command = command;
      entry.worker ||= isWorkerCommand(command);
    }
    queue.push(...childPids(pid));
  }
}

interface Scorecard {
  complete?: boolean;
  summary: { candidates: number; tests: number; passed: number };
  candidates: Array<{ passed: number; total: number }>;
}

function checkVerdicts(cardFile: string, expected: ExpectedVerdicts): string {
  if (!existsSync(cardFile)) return 'no scorecard was written';
  const card = JSON.parse(readFileSync(cardFile, 'utf8')) as Scorecard;
  const passedCandidates = card.candidates.filter((c) => c.total > 0 && c.passed === c.total).length;
  const got = { candidates: card.summary.candidates, tests: card.summary.tests, passedTests: card.summary.passed, passedCandidates };
  const wrong = (Object.keys(expected) as Array<keyof ExpectedVerdicts>).filter((k) => got[k] !== expected[k]);
  if (card.complete === false) wrong.push('complete' as keyof ExpectedVerdicts);
  return wrong.length === 0 ? '' : `verdicts differ: ${wrong.map((k) => `${k} ${String(got[k])} (expected ${String(expected[k])})`).join(', ')}`;
}

/** A checkout of evalrun whose CLI is measured: this one, or the one --baseline names. */
interface Build {
  name: 'build' | 'baseline';
  root: string;
}

const CLI = join('bin', 'evalrun.js');

function checkBuilt(build: Build): void {
  for (const file of [CLI, join(BUNDLE_DIR, WORKER_BUNDLES.main)]) {
    if (!existsSync(join(build.root, file))) throw new Error(`${build.root} has no ${file}: build it first (npm run build there)`);
  }
}

/**
 * The Python memory snapshots in a build's cache, with their times: a change
 * means a run made one, paying a cold boot. Checkouts that share node_modules
 * share the cache, and writing a snapshot drops those of other keys, so two
 * builds whose snapshot keys differ would each boot cold after the other.
 */
function snapshotStamp(build: Build): string {
  const dir = join(build.root, relative(packageRoot(), defaultCacheDir()));
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.snapshot'))
      .map((name) => `${name} ${statSync(join(dir, name)).mtimeMs}`)
      .sort()
      .join('\n');
  } catch {
    return '';
  }
}

/** `timed` false: a warm-up, which may make the Python snapshot. */
async function runOnce(
  build: Build,
  args: readonly string[],
  expected: ExpectedVerdicts,
  scratch: string,
  intervalMs: number,
  timed = true,
): Promise<RunResult> {
  const snapshotsBefore = snapshotStamp(build);
  const dir = mkdtempSync(join(scratch, 'run-'));
  const card = join(dir, 'scorecard.json');
  const stderrFile = join(dir, 'stderr.txt');
  const wrapper = spawn(python, ['-c', WRAPPER, stderrFile, join(build.root, CLI), ...args, '--out', card], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let wrapperErr = '';
  const seen = new Map<number, SeenProcess>();
  let samples = 0;
  let cliPeakKb = 0;
  let timer: NodeJS.Timeout | null = null;
  wrapper.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const first = /^\{"pid": (\d+)\}\n/.exec(stdout);
    if (first !== null && timer === null) {
      const cli = Number(first[1]);
      timer = setInterval(() => {
        sample(cli, seen);
        cliPeakKb = Math.max(cliPeakKb, peakRssKb(cli) ?? 0);
        samples++;
      }, intervalMs);
    }
  });
  wrapper.stderr.setEncoding('utf8').on('data', (chunk: string) => (wrapperErr += chunk));
  await new Promise<void>((resolve, reject) => {
    wrapper.on('error', reject);
    wrapper.on('close', () => resolve());
  });
  if (timer !== null) clearInterval(timer);
  const last = stdout.trim().split('\n').pop() ?? '';
  let totals: { wall: number; code: number; utime: number; stime: number; cutime: number; cstime: number; tree: number; orphans: number; subreaper: boolean };
  try {
    totals = JSON.parse(last) as typeof totals;
    if (typeof totals.tree !== 'number') throw new Error('no totals');
  } catch {
    throw new Error(`the CPU wrapper failed: ${wrapperErr.slice(0, 2000)}`);
  }
  const cliMs = ticksToMs(totals.utime + totals.stime);
  const reapedMs = ticksToMs(totals.cutime + totals.cstime);
  const descendantsMs = totals.tree * 1000 - cliMs;
  const processes = [...seen.values()];
  const helpers = processes.filter((p) => !p.worker);
  const helpersMs = helpers.reduce((s, p) => s + p.cpuMs, 0);
  const workersSampledMs = processes.filter((p) => p.worker).reduce((s, p) => s + p.cpuMs, 0);
  let detail = totals.code === 0 ? checkVerdicts(card, expected) : `exit code ${totals.code}: ${readFileSync(stderrFile, 'utf8').trim().slice(-600)}`;
  if (!totals.subreaper && detail === '') detail = 'the wrapper could not become a child subreaper: processes that outlive the CLI would be missed';
  if (timed && detail === '' && snapshotStamp(build) !== snapshotsBefore) {
    detail = `a Python snapshot was written in ${build.root}'s cache during the run, so its CPU holds a cold boot (do two builds with different snapshot keys share node_modules?)`;
  }
  // Workers that the command line test misses would silently count as the supervisor's.
  if (detail === '' && helpers.length === processes.length)
    detail = `no worker process was recognised (commands seen: ${helpers.map((p) => p.command).join(' | ') || 'none'})`;
  const result: RunResult = {
    candidates: expected.candidates,
    wallMs: totals.wall * 1000,
    supervisorMs: cliMs + helpersMs,
    workersMs: descendantsMs - helpersMs,
    cliMs,
    helpersMs,
    orphans: totals.orphans,
    residualMs: descendantsMs - reapedMs,
    workersSampledMs,
    workerProcesses: processes.length - helpers.length,
    helperCommands: helpers.map((p) => p.command),
    cliPeakMb: cliPeakKb / 1024,
    samples,
    ok: detail === '',
    detail,
  };
  // The scorecard of a big run is several MB a time; only --keep keeps them.
  if (!keepFiles) rmSync(dir, { recursive: true, force: true });
  return result;
}

let keepFiles = false;
let python = 'python3';

// ---------------------------------------------------------------------------
// Sets, rounds and figures

interface PreparedWorkload {
  workload: Workload;
  sizes: Array<{ candidates: number; args: string[]; expected: ExpectedVerdicts }>;
}

async function prepare(workload: Workload, scratch: string, concurrency: number): Promise<PreparedWorkload> {
  const sizes: PreparedWorkload['sizes'] = [];
  for (const problems of [workload.problems, workload.problems * 4]) sizes.push(await prepareSize(workload, problems, scratch, concurrency));
  return { workload, sizes };
}

async function prepareSize(workload: Workload, problems: number, scratch: string, concurrency: number): Promise<PreparedWorkload['sizes'][number]> {
  const dir = join(scratch, `${workload.name}-${problems}`);
  const common = ['--concurrency', String(concurrency)];
  switch (workload.name) {
    case 'js-passk':
    case 'py-passk': {
      const expected = writePassAtKSet(dir, workload.name === 'js-passk' ? 'javascript' : 'python', {
        problems,
        samples: workload.samples!,
        tests: workload.tests,
      });
      return { candidates: expected.candidates, args: ['--problems', join(dir, 'problems'), '--solutions', join(dir, 'solutions'), ...common], expected };
    }
    case 'js-self': {
      const tests = await generateProblemSet(dir, { problems, testsPerProblem: workload.tests });
      const expected = { candidates: problems, tests, passedTests: tests, passedCandidates: problems };
      return { candidates: problems, args: ['--problems', dir, ...common], expected };
    }
    case 'py-self': {
      const expected = writePythonSelfCheckSet(dir, { problems, tests: workload.tests });
      return { candidates: problems, args: ['--problems', dir, ...common], expected };
    }
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Figures {
  workload: WorkloadName;
  label: string;
  shape: string;
  candidates: [number, number];
  rounds: number;
  supervisorUsPerCandidate: number;
  workersUsPerCandidate: number;
  share: number;
  ceiling: number;
  supervisorStartMs: number;
  workersStartMs: number;
  wallMs: [number, number];
  cpuMs: { supervisor: [number, number]; workers: [number, number] };
  workerProcesses: number;
  /** The CLI's peak resident memory in the N and 4N runs (median, MB, sampled). */
  supervisorPeakMb: [number, number];
  helpers: string[];
  orphans: number;
  maxResidualMs: number;
  /** How much of the workers' exact CPU the last samples had not seen (median, large run). */
  sampledShortfallMs: number;
  measured: boolean;
  failures: string[];
  pass: boolean;
  /** With --baseline: the same workload graded by the baseline build. */
  baseline?: Comparison;
}

interface Comparison {
  supervisorUsPerCandidate: number;
  workersUsPerCandidate: number;
  /** This build's workers' CPU per candidate over the baseline's. */
  workersRatio: number;
  /** Median wall time of the 4N run. */
  wall4NMs: { build: number; baseline: number };
  /** This build's wall time of the 4N run over the baseline's. */
  wallRatio: number;
  /** The baseline CLI's peak resident memory in the N and 4N runs (median, MB, sampled). */
  supervisorPeakMb: [number, number];
  workersPass: boolean;
  wallPass: boolean;
  /** Whether the baseline's runs held the expected verdicts. */
  measured: boolean;
  failures: string[];
  /** Both ratios met the target and both builds' verdicts were as expected. */
  pass: boolean;
}

function compare(own: Figures, base: Figures): Comparison {
  const workersRatio = own.workersUsPerCandidate / base.workersUsPerCandidate;
  const wallRatio = own.wallMs[1] / base.wallMs[1];
  const workersPass = workersRatio <= TARGET_RATIO;
  const wallPass = wallRatio <= TARGET_RATIO;
  return {
    supervisorUsPerCandidate: base.supervisorUsPerCandidate,
    workersUsPerCandidate: base.workersUsPerCandidate,
    workersRatio,
    wall4NMs: { build: own.wallMs[1], baseline: base.wallMs[1] },
    wallRatio,
    supervisorPeakMb: base.supervisorPeakMb,
    workersPass,
    wallPass,
    measured: base.measured,
    failures: base.failures,
    pass: own.measured && base.measured && workersPass && wallPass,
  };
}

function figures(p: PreparedWorkload, runs: Array<[RunResult, RunResult]>): Figures {
  const [small, big] = p.sizes.map((s) => s.candidates) as [number, number];
  const slope = (pick: (r: RunResult) => number): number[] => runs.map(([a, b]) => (pick(b) - pick(a)) / (big - small));
  const intercept = (pick: (r: RunResult) => number): number[] => runs.map(([a, b]) => pick(a) - small * ((pick(b) - pick(a)) / (big - small)));
  const supervisor = median(slope((r) => r.supervisorMs)) * 1000;
  const workers = median(slope((r) => r.workersMs)) * 1000;
  const failures = runs
    .flat()
    .filter((r) => !r.ok)
    .map((r) => `${r.candidates} candidates: ${r.detail}`);
  const share = supervisor / workers;
  const w = p.workload;
  return {
    workload: w.name,
    label: w.label,
    shape: w.samples === null ? `problems x ${w.tests} tests` : `problems x ${w.samples} samples x ${w.tests} tests`,
    candidates: [small, big],
    rounds: runs.length,
    supervisorUsPerCandidate: supervisor,
    workersUsPerCandidate: workers,
    share,
    ceiling: 1 + workers / supervisor,
    supervisorStartMs: median(intercept((r) => r.supervisorMs)),
    workersStartMs: median(intercept((r) => r.workersMs)),
    wallMs: [median(runs.map(([a]) => a.wallMs)), median(runs.map(([, b]) => b.wallMs))],
    cpuMs: {
      supervisor: [median(runs.map(([a]) => a.supervisorMs)), median(runs.map(([, b]) => b.supervisorMs))],
      workers: [median(runs.map(([a]) => a.workersMs)), median(runs.map(([, b]) => b.workersMs))],
    },
    workerProcesses: Math.max(...runs.flat().map((r) => r.workerProcesses)),
    supervisorPeakMb: [median(runs.map(([a]) => a.cliPeakMb)), median(runs.map(([, b]) => b.cliPeakMb))],
    helpers: [...new Set(runs.flat().flatMap((r) => r.helperCommands))],
    orphans: Math.max(...runs.flat().map((r) => r.orphans)),
    maxResidualMs: Math.max(...runs.flat().map((r) => Math.abs(r.residualMs))),
    sampledShortfallMs: median(runs.map(([, b]) => b.workersMs - b.workersSampledMs)),
    measured: failures.length === 0,
    failures,
    pass: failures.length === 0 && share <= TARGET_SHARE,
  };
}

const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');
const passFail = (pass: boolean): string => (pass ? 'PASS' : 'FAIL');

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

function printTable(all: Figures[], options: Options): void {
  const out = (line = ''): void => void process.stdout.write(`${line}\n`);
  out();
  out(
    `Supervisor's share, medians of ${options.rounds} round(s), --concurrency ${options.concurrency}, ${availableParallelism()} cores, ` +
      `node ${process.version}, CLK_TCK ${CLOCK_TICKS}${options.quick ? ' (--quick: smaller than the issue sets)' : ''}`,
  );
  const rows: string[][] = [
    [
      'workload',
      'N / 4N candidates',
      'supervisor µs/cand',
      'workers µs/cand',
      'share',
      'ceiling (cores)',
      'start: sup / workers (ms)',
      'wall N / 4N (s)',
      'sup. peak RSS N / 4N (MB)',
      'verdicts',
    ],
  ];
  for (const f of all) {
    rows.push([
      f.label,
      `${thousands(f.candidates[0])} / ${thousands(f.candidates[1])}`,
      thousands(f.supervisorUsPerCandidate),
      thousands(f.workersUsPerCandidate),
      `${(f.share * 100).toFixed(1)}%`,
      f.ceiling.toFixed(1),
      `${thousands(f.supervisorStartMs)} / ${thousands(f.workersStartMs)}`,
      `${(f.wallMs[0] / 1000).toFixed(2)} / ${(f.wallMs[1] / 1000).toFixed(2)}`,
      `${f.supervisorPeakMb[0].toFixed(0)} / ${f.supervisorPeakMb[1].toFixed(0)}`,
      f.measured ? 'as expected' : 'WRONG',
    ]);
  }
  out(table(rows));
  if (options.baseline !== null) {
    out();
    out(`Against the baseline ${options.baseline} (same sets, the builds alternating), ratios this build / baseline, target <= ${TARGET_RATIO}`);
    const against: string[][] = [
      [
        'workload',
        'baseline supervisor µs/cand',
        'baseline workers µs/cand',
        'workers ratio',
        'wall 4N: this / baseline (s)',
        'wall ratio',
        'baseline sup. peak RSS N / 4N (MB)',
        'baseline verdicts',
        'result',
      ],
    ];
    for (const f of all) {
      const b = f.baseline!;
      against.push([
        f.label,
        thousands(b.supervisorUsPerCandidate),
        thousands(b.workersUsPerCandidate),
        `${b.workersRatio.toFixed(3)} ${passFail(b.workersPass)}`,
        `${(b.wall4NMs.build / 1000).toFixed(2)} / ${(b.wall4NMs.baseline / 1000).toFixed(2)}`,
        `${b.wallRatio.toFixed(3)} ${passFail(b.wallPass)}`,
        `${b.supervisorPeakMb[0].toFixed(0)} / ${b.supervisorPeakMb[1].toFixed(0)}`,
        b.measured ? 'as expected' : 'WRONG',
        passFail(b.pass),
      ]);
    }
    out(table(against));
  }
  out();
  for (const f of all) {
    out(
      `${f.label} (${f.shape}): share ${(f.share * 100).toFixed(1)}% (target <= ${TARGET_SHARE * 100}%)  ${passFail(f.pass)}${f.measured ? '' : ' (measurement failed)'}`,
    );
    out(
      `  CPU of the N and 4N runs: supervisor ${(f.cpuMs.supervisor[0] / 1000).toFixed(2)} / ${(f.cpuMs.supervisor[1] / 1000).toFixed(2)} s, ` +
        `workers ${(f.cpuMs.workers[0] / 1000).toFixed(2)} / ${(f.cpuMs.workers[1] / 1000).toFixed(2)} s; ${f.workerProcesses} worker processes`,
    );
    if (f.helpers.length > 0) out(`  other processes under the CLI (counted as supervisor, sampled): ${f.helpers.join(' | ')}`);
    out(`  the last samples saw ${f.sampledShortfallMs.toFixed(0)} ms less of the workers' CPU than the exact total (4N run, median)`);
    if (f.orphans > 0 || f.maxResidualMs > 4 * ticksToMs(1)) {
      out(`  processes the CLI did not reap itself: up to ${f.orphans} a run; CPU outside the CLI's cutime + cstime: up to ${f.maxResidualMs.toFixed(0)} ms`);
    }
    for (const failure of f.failures) out(`  FAILED: ${failure}`);
    if (f.baseline !== undefined) {
      const b = f.baseline;
      out(
        `  against the baseline: workers' CPU per candidate x${b.workersRatio.toFixed(3)} ${passFail(b.workersPass)}, ` +
          `wall of the 4N run x${b.wallRatio.toFixed(3)} ${passFail(b.wallPass)} (targets <= ${TARGET_RATIO})`,
      );
      for (const failure of b.failures) out(`  FAILED (baseline): ${failure}`);
    }
  }
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  keepFiles = options.keep;
  const builds: Build[] = [{ name: 'build', root: packageRoot() }];
  if (options.baseline !== null) builds.push({ name: 'baseline', root: options.baseline });
  builds.forEach(checkBuilt);
  if (!existsSync('/proc/self/stat')) throw new Error('this bench reads /proc: it needs Linux');
  // The interpreter itself, not a launcher such as a pyenv shim, which would start processes of its own before each run.
  const found = spawnSync('python3', ['-c', 'import os, sys; os.waitid; os.posix_spawn; os.waitstatus_to_exitcode; print(sys.executable)'], {
    encoding: 'utf8',
  });
  if (found.status !== 0 || found.stdout.trim() === '') throw new Error('python3 (3.9 or later) is needed for the CPU wrapper');
  python = found.stdout.trim();
  const scratch = mkdtempSync(join(tmpdir(), 'evalrun-share-'));
  try {
    progress(`supervisor-share: node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), scratch ${scratch}`);
    const prepared: PreparedWorkload[] = [];
    for (const w of workloads(options.quick, options.scale)) if (options.only.includes(w.name)) prepared.push(await prepare(w, scratch, options.concurrency));
    // Untimed: makes the Python snapshot if a checkout has none yet and warms the page cache.
    const warm = join(scratch, 'warm');
    mkdirSync(warm);
    const warmExpected = writePythonSelfCheckSet(join(warm, 'py'), { problems: 2, tests: 3 });
    for (const build of builds) {
      const warmRun = await runOnce(build, ['--problems', join(warm, 'py')], warmExpected, scratch, options.intervalMs, false);
      if (!warmRun.ok) throw new Error(`the warm-up run of ${build.root} failed: ${warmRun.detail}`);
    }

    // For each workload, each build's [N run, 4N run] of every round, in the order of `builds`.
    const runs = new Map<WorkloadName, Array<Array<[RunResult, RunResult]>>>(prepared.map((p) => [p.workload.name, builds.map(() => [])]));
    for (let round = 0; round < options.rounds; round++) {
      for (const p of prepared) {
        // The large run goes first every other round, so that neither size always follows the other.
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const pairs: RunResult[][] = builds.map(() => []);
        for (const i of order) {
          // Which build leads turns with the size and the round, so that at each size each build goes first every other round.
          const buildOrder = (round + i) % 2 === 0 ? [...builds.keys()] : [...builds.keys()].reverse();
          for (const b of buildOrder) pairs[b]![i] = await runOnce(builds[b]!, p.sizes[i]!.args, p.sizes[i]!.expected, scratch, options.intervalMs);
        }
        const describe = (r: RunResult): string =>
          `${r.candidates} cand ${(r.wallMs / 1000).toFixed(2)} s, supervisor ${(r.supervisorMs / 1000).toFixed(2)} s, workers ${(r.workersMs / 1000).toFixed(2)} s${r.ok ? '' : ' (FAILED)'}`;
        pairs.forEach((pair, b) => {
          const [small, big] = pair as [RunResult, RunResult];
          runs.get(p.workload.name)![b]!.push([small, big]);
          const who = builds.length > 1 ? ` (${builds[b]!.name})` : '';
          progress(`round ${round + 1}/${options.rounds} ${p.workload.name}${who}: ${describe(small)}; ${describe(big)}`);
          for (const r of [small, big]) if (!r.ok) progress(`  failed: ${r.detail}`);
        });
      }
    }
    const all = prepared.map((p) => {
      const [own, base] = runs.get(p.workload.name)!.map((r) => figures(p, r)) as [Figures, Figures | undefined];
      return base === undefined ? own : { ...own, baseline: compare(own, base) };
    });
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify(
          {
            node: process.version,
            cores: availableParallelism(),
            cpu: cpus()[0]?.model ?? null,
            concurrency: options.concurrency,
            rounds: options.rounds,
            quick: options.quick,
            clockTicks: CLOCK_TICKS,
            baseline: options.baseline,
            target: options.baseline === null ? { share: TARGET_SHARE } : { share: TARGET_SHARE, workersRatio: TARGET_RATIO, wallRatio: TARGET_RATIO },
            workloads: all,
          },
          null,
          2,
        )}\n`,
      );
    } else printTable(all, options);
    return all.every((f) => f.pass && (f.baseline?.pass ?? true)) ? 0 : 1;
  } finally {
    if (options.keep) progress(`kept: ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`bench/supervisor-share: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  },
);
