/**
 * The grading service's speed (issue 27, point 4), side by side in one run:
 *
 *   npm run bench:serve [-- OPTIONS]
 *   node --no-node-snapshot dist/bench/serve.js [OPTIONS]   (after npm run build)
 *
 * One set of small MBPP-like Python problems (3 tests each) with samples
 * from one model, a quarter of them wrong and a few that do not parse
 * (bench/share-sets.ts), each sample's text made distinct by a comment, so
 * that nothing could answer a repeated text from a cache. Three contenders
 * grade the same candidates:
 *
 * - the CLI, as a user runs it (bin/evalrun.js on a solutions folder). Its
 *   steady-state rate is the slope between a run of a quarter of the set
 *   and a run of all of it, so its start-up (workers, Python's boot) is not
 *   counted against it;
 * - `evalrun serve` on the same problems, warm: 32 clients, each sending
 *   batches of 8 samples of one problem until the set is done; and one
 *   client sending one candidate at a time for the latency figures;
 * - a peer built as SandboxFusion's `run_code` works (bench/sandbox-peer.py):
 *   a fresh `python3 -I` per candidate, under the same 32 clients.
 *
 * Rounds alternate which contender goes first; medians are reported. Every
 * run's verdicts are checked against the counts the generator computed in
 * advance. The peer's start cost per process is printed beside the ratio, so
 * that a reader can carry the comparison to a machine where it differs.
 *
 * Options:
 *   --rounds R         rounds (default 3)
 *   --problems P       problems in the full set (default 100; the CLI's small run takes P/4)
 *   --samples S        samples per problem (default 10)
 *   --requests N       latency requests per round, one candidate each (default 1000)
 *   --clients C        concurrent clients for throughput (default 32)
 *   --batch B          candidates per throughput request (default 8)
 *   --concurrency K    workers, for the CLI and the server alike (default: the machine's cores)
 *   --peer-problems Q  problems the peer grades each round (default P/4: it is slow)
 *   --python PATH      the peer's interpreter (default python3)
 *   --quick            a smoke run: small sizes, one round
 *   --json             print the results as one JSON document on stdout
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { freePort, startService, stopService } from './service-process.js';
import { writePassAtKSet, type ExpectedVerdicts } from './share-sets.js';

interface Options {
  rounds: number;
  problems: number;
  samples: number;
  requests: number;
  clients: number;
  batch: number;
  concurrency: number;
  peerProblems: number | null;
  python: string;
  json: boolean;
}

/** Targets of the issue: latency p50 and p99 of one small candidate, and the service's share of the CLI's rate. */
const TARGET_P50_MS = 15;
const TARGET_P99_MS = 50;
const TARGET_RATE_SHARE = 0.9;

const ROOT = packageRoot();
const BIN = join(ROOT, 'bin', 'evalrun.js');
const PEER = join(ROOT, 'bench', 'sandbox-peer.py');
/** A server logs for as long as the bench runs: its output's tail is enough to say why it failed. */
const SERVICE_OPTIONS = { deadlineMs: 180_000, outputTail: 4000 };
const STOP_GRACE_MS = 30_000;

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    rounds: 3,
    problems: 100,
    samples: 10,
    requests: 1000,
    clients: 32,
    batch: 8,
    concurrency: availableParallelism(),
    peerProblems: null,
    python: 'python3',
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const count = (): number => {
      const value = Number(argv[++i]);
      if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${flag} needs a positive whole number`);
      return value;
    };
    switch (flag) {
      case '--rounds':
        options.rounds = count();
        break;
      case '--problems':
        options.problems = count();
        break;
      case '--samples':
        options.samples = count();
        break;
      case '--requests':
        options.requests = count();
        break;
      case '--clients':
        options.clients = count();
        break;
      case '--batch':
        options.batch = count();
        break;
      case '--concurrency':
        options.concurrency = count();
        break;
      case '--peer-problems':
        options.peerProblems = count();
        break;
      case '--python':
        options.python = argv[++i] ?? 'python3';
        break;
      case '--quick':
        Object.assign(options, { rounds: 1, problems: 20, samples: 5, requests: 200 });
        break;
      case '--json':
        options.json = true;
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------
// The set
// ---------------------------------------------------------------------------

interface Sample {
  problemId: string;
  code: string;
}

interface BenchSet {
  dir: string;
  samples: Sample[];
  expected: ExpectedVerdicts;
}

/**
 * A pass@k set whose samples are all distinct texts: each gets a comment
 * naming it (`variant` sets them apart from another set's too). The CLI
 * reads the same texts from the solutions folder.
 */
function writeSet(dir: string, problems: number, samples: number, variant: string): BenchSet {
  const expected = writePassAtKSet(dir, 'python', { problems, samples, tests: 3 });
  const file = join(dir, 'solutions', 'model.jsonl');
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const out: Sample[] = lines.map((line, i) => {
    const entry = JSON.parse(line) as { problem_id: string; completion: string };
    return { problemId: entry.problem_id, code: `${plainCode(entry.completion)}\n# ${variant} sample ${i}\n` };
  });
  writeFileSync(file, `${out.map((s) => JSON.stringify({ problem_id: s.problemId, prompt_id: 'base', completion: s.code })).join('\n')}\n`);
  return { dir, samples: out, expected };
}

/** The code inside the generator's Markdown fence (the service is sent code, as a training loop that extracted it would). */
function plainCode(completion: string): string {
  const start = completion.indexOf('```python\n');
  if (start < 0) return completion;
  const body = completion.slice(start + '```python\n'.length);
  const end = body.lastIndexOf('\n```');
  return end < 0 ? body : body.slice(0, end);
}

// ---------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------

/** Wall time of one CLI run over a set, after checking its verdicts. */
function runCli(set: BenchSet, concurrency: number, scratch: string): Promise<number> {
  const out = join(scratch, `cli-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const args = [
    BIN,
    '--problems',
    join(set.dir, 'problems'),
    '--solutions',
    join(set.dir, 'solutions'),
    '--concurrency',
    String(concurrency),
    '--out',
    out,
    '--reporter',
    'json',
  ];
  const started = performance.now();
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, args, { cwd: scratch, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('exit', (code) => {
      const wall = performance.now() - started;
      if (code !== 0 && code !== 1) return reject(new Error(`the CLI exited ${code}: ${stderr}`));
      const card = JSON.parse(readFileSync(out, 'utf8')) as { summary: { candidates: number; tests: number; passed: number } };
      const s = card.summary;
      if (s.candidates !== set.expected.candidates || s.tests !== set.expected.tests || s.passed !== set.expected.passedTests) {
        return reject(new Error(`the CLI's verdicts differ from the generator's: ${JSON.stringify(s)} vs ${JSON.stringify(set.expected)}`));
      }
      rmSync(out, { force: true });
      rmSync(out.replace(/\.json$/, '.jsonl'), { force: true });
      resolveRun(wall);
    });
  });
}

// ---------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------

interface GradeReply {
  results: Array<{ status: string; passed: number; total: number }>;
}

async function grade(url: string, problemId: string, codes: readonly string[]): Promise<GradeReply> {
  for (;;) {
    const r = await fetch(`${url}/v1/grade`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ problem_id: problemId, candidates: codes.map((code, i) => ({ id: String(i), code, language: 'python' })) }),
    });
    if (r.status === 503) {
      await new Promise((done) => setTimeout(done, 1000 * Number(r.headers.get('retry-after') ?? '1')));
      continue;
    }
    if (r.status !== 200) throw new Error(`${url}/v1/grade answered ${r.status}: ${await r.text()}`);
    return (await r.json()) as GradeReply;
  }
}

/** Requests of up to `batch` samples of one problem each, in the set's order. */
function requestsOf(samples: readonly Sample[], batch: number): Array<{ problemId: string; codes: string[] }> {
  const requests: Array<{ problemId: string; codes: string[] }> = [];
  for (const sample of samples) {
    const last = requests[requests.length - 1];
    if (last !== undefined && last.problemId === sample.problemId && last.codes.length < batch) last.codes.push(sample.code);
    else requests.push({ problemId: sample.problemId, codes: [sample.code] });
  }
  return requests;
}

/** Candidates per second with `clients` clients sharing the requests; the tests passed are checked against the set's (unless null: a warm-up). */
async function throughput(url: string, samples: readonly Sample[], expectedPassed: number | null, clients: number, batch: number): Promise<number> {
  const requests = requestsOf(samples, batch);
  let next = 0;
  let passed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const reply = await grade(url, request.problemId, request.codes);
        for (const result of reply.results) passed += result.passed;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (expectedPassed !== null && passed !== expectedPassed) throw new Error(`${url}: ${passed} tests passed where the generator says ${expectedPassed}`);
  return samples.length / seconds;
}

/** Milliseconds of each of `count` requests of one candidate, one after another. */
async function latencies(url: string, samples: readonly Sample[], count: number, round: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const sample = samples[i % samples.length]!;
    // Distinct from every text sent before, in this round and the others.
    const code = `${sample.code}# latency round ${round} request ${i}\n`;
    const started = performance.now();
    await grade(url, sample.problemId, [code]);
    times.push(performance.now() - started);
  }
  return times;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

interface RoundFigures {
  cliRate: number;
  serveRate: number;
  peerRate: number;
  p50: number;
  p99: number;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const say = (line: string): void => void (options.json ? process.stderr : process.stdout).write(`${line}\n`);
  const scratch = mkdtempSync(join(tmpdir(), 'evalrun-serve-bench-'));
  try {
    const quarter = Math.max(1, Math.floor(options.problems / 4));
    const small = writeSet(join(scratch, 'small'), quarter, options.samples, 'cli');
    const full = writeSet(join(scratch, 'full'), options.problems, options.samples, 'cli');
    const served = writeSet(join(scratch, 'served'), options.problems, options.samples, 'served');
    const peerProblems = Math.min(options.problems, options.peerProblems ?? quarter);
    const peerSet = writeSet(join(scratch, 'peer'), peerProblems, options.samples, 'peer');
    say(`serve bench: node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), --concurrency ${options.concurrency}`);
    say(
      `  ${full.samples.length} Python candidates (${options.problems} problems x ${options.samples} samples x 3 tests); peer grades ${peerSet.samples.length}`,
    );

    // The CLI makes the Python snapshot on its first run: not part of any measurement.
    await runCli(small, options.concurrency, scratch);

    const port = await freePort();
    const server = await startService(
      process.execPath,
      [BIN, 'serve', '--problems', join(full.dir, 'problems'), '--port', String(port), '--concurrency', String(options.concurrency)],
      `http://127.0.0.1:${port}`,
      SERVICE_OPTIONS,
    );
    const peerPort = await freePort();
    const peer = await startService(
      options.python,
      [PEER, '--problems', join(full.dir, 'problems'), '--port', String(peerPort), '--concurrency', String(options.concurrency), '--python', options.python],
      `http://127.0.0.1:${peerPort}`,
      SERVICE_OPTIONS,
    );
    const rounds: RoundFigures[] = [];
    try {
      // Warm both paths once (first requests compile the server's routes and the problems' plans).
      await throughput(server.url, served.samples.slice(0, options.clients * options.batch), null, options.clients, options.batch);
      for (let round = 1; round <= options.rounds; round++) {
        const figures: Partial<RoundFigures> = {};
        const steps: Array<[string, () => Promise<void>]> = [
          [
            'cli',
            async () => {
              const smallWall = await runCli(small, options.concurrency, scratch);
              const fullWall = await runCli(full, options.concurrency, scratch);
              figures.cliRate = (full.samples.length - small.samples.length) / ((fullWall - smallWall) / 1000);
            },
          ],
          [
            'serve',
            async () => {
              figures.serveRate = await throughput(server.url, served.samples, served.expected.passedTests, options.clients, options.batch);
              const times = await latencies(server.url, served.samples, options.requests, round);
              figures.p50 = quantile(times, 0.5);
              figures.p99 = quantile(times, 0.99);
            },
          ],
          [
            'peer',
            async () => {
              figures.peerRate = await throughput(peer.url, peerSet.samples, peerSet.expected.passedTests, options.clients, options.batch);
            },
          ],
        ];
        // Each round starts with another contender.
        const order = steps.map((_, i) => steps[(i + round - 1) % steps.length]!);
        for (const [, step] of order) await step();
        rounds.push(figures as RoundFigures);
        const f = figures as RoundFigures;
        say(
          `round ${round}/${options.rounds}: CLI ${f.cliRate.toFixed(0)} cand/s, serve ${f.serveRate.toFixed(0)} cand/s, peer ${f.peerRate.toFixed(1)} cand/s; latency p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms`,
        );
      }
      const startCost = (await (await fetch(`${peer.url}/start-cost?n=20`)).json()) as { median_ms?: number; mean_ms?: number; python?: string };
      const result = {
        cores: cpus().length,
        concurrency: options.concurrency,
        candidates: full.samples.length,
        cli_rate: median(rounds.map((r) => r.cliRate)),
        serve_rate: median(rounds.map((r) => r.serveRate)),
        peer_rate: median(rounds.map((r) => r.peerRate)),
        latency_p50_ms: median(rounds.map((r) => r.p50)),
        latency_p99_ms: median(rounds.map((r) => r.p99)),
        peer_start_ms: startCost.median_ms ?? startCost.mean_ms ?? null,
        peer_python: startCost.python ?? options.python,
      };
      const share = result.serve_rate / result.cli_rate;
      const checks = [
        [`latency p50 ${result.latency_p50_ms.toFixed(1)} ms (target <= ${TARGET_P50_MS})`, result.latency_p50_ms <= TARGET_P50_MS],
        [`latency p99 ${result.latency_p99_ms.toFixed(1)} ms (target <= ${TARGET_P99_MS})`, result.latency_p99_ms <= TARGET_P99_MS],
        [`serve / CLI throughput ${share.toFixed(3)} (target >= ${TARGET_RATE_SHARE})`, share >= TARGET_RATE_SHARE],
      ] as const;
      say('');
      say(`medians of ${rounds.length} round(s), ${result.cores} cores, --concurrency ${result.concurrency}`);
      say(`  CLI steady state      ${result.cli_rate.toFixed(0)} candidates/s`);
      say(`  evalrun serve         ${result.serve_rate.toFixed(0)} candidates/s (${options.clients} clients, batches of ${options.batch})`);
      say(`  peer (process each)   ${result.peer_rate.toFixed(1)} candidates/s; serve / peer ${(result.serve_rate / result.peer_rate).toFixed(1)}x`);
      say(`  peer's start cost     ${result.peer_start_ms === null ? '?' : result.peer_start_ms.toFixed(1)} ms per python -I process (${result.peer_python})`);
      for (const [line, ok] of checks) say(`  ${line}  ${ok ? 'PASS' : 'FAIL'}`);
      if (options.json) process.stdout.write(`${JSON.stringify({ ...result, serve_over_cli: share, passed: checks.every(([, ok]) => ok) })}\n`);
      process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
    } finally {
      await stopService(server, STOP_GRACE_MS);
      await stopService(peer, STOP_GRACE_MS);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`serve bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 2;
});
