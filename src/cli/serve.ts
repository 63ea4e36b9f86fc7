/**
 * `evalrun serve --problems DIR [--host 127.0.0.1] [--port 8080]
 * [--concurrency N] ...`: the grading service (docs/SERVE.md). Loads and
 * checks the problems once, starts the sandbox workers and has them warm
 * up, and answers HTTP until SIGTERM or SIGINT: then it refuses new calls
 * (503) while it still listens, so that probes and clients hear that it is
 * stopping rather than find nothing there, lets the calls admitted finish
 * within one candidate's ceiling, stops listening and exits 0.
 *
 * On a loopback address it needs no token. On any other address it refuses
 * to start without one, read from EVALRUN_TOKEN or `--token-file` (never a
 * flag's value, which `ps` shows to every user of the machine).
 *
 * Exit codes: 0 stopped by a signal; 2 a usage error, problems that cannot
 * be loaded, or no token where one is needed; 1 the address cannot be used.
 */
import { readFileSync } from 'node:fs';
import type yargsFactory from 'yargs';
import { defaultConcurrency, DEFAULTS, LIMIT_BOUNDS } from '../defaults.js';
import { languageNames } from '../engines/find-language.js';
import { ProblemDirectoryError } from '../problems/find-files.js';
import { createGrader, type Grader } from '../service/grader.js';
import { buildService, DEFAULT_BODY_LIMIT_MB, isLoopback } from '../service/http.js';
import { ServiceMetrics } from '../service/metrics.js';
import { boundedInteger, parseTolerance } from './args.js';
import { EXIT } from './exit-codes.js';
import { UsageError } from './parse.js';
import { subcommandParser } from './subcommand.js';

const USAGE = `Usage: evalrun serve --problems DIR [--host 127.0.0.1] [--port 8080] [--concurrency N]

Grades candidates sent over HTTP against the problems in DIR (or sent with
the request), on sandbox workers kept warm between requests:

  POST /v1/grade     {"problem_id": ID | "problem": {...}, "candidates": [{"id", "code", "language", "prompt_id"}], "options": {...}}
  GET  /v1/problems  the problems loaded
  GET  /healthz      200 once the workers are warm
  GET  /metrics      Prometheus metrics

Off loopback a token is required, from EVALRUN_TOKEN or --token-file; requests
then send "Authorization: Bearer <token>". docs/SERVE.md has the details.`;

/** How long replies have to be written once every call has its answer, when stopping. */
const CONNECTIONS_GRACE_MS = 5000;

interface ServeCli {
  problems: string;
  host: string;
  port: number;
  concurrency: number;
  memoryMb: number;
  timeoutMs: number;
  floatTolerance: { relative: number; absolute: number };
  seed: number;
  strictTypes: boolean;
  stopOnFirstFailure: boolean;
  extract: boolean;
  bodyLimitMb: number;
  maxQueue: number | undefined;
  tokenFile: string | null;
  warm: string[] | undefined;
  timeoutFactor: number | undefined;
  timeoutFloorMs: number | undefined;
}

export async function serveCommand(argv: readonly string[], yargs: typeof yargsFactory): Promise<number> {
  let cli: ServeCli | null;
  let token: string | null;
  try {
    cli = await parseServeArgs(argv, yargs);
    if (cli === null) return EXIT.ok;
    token = readToken(cli);
    if (token === null && !isLoopback(cli.host)) {
      throw new UsageError(
        `--host ${cli.host} is not a loopback address: set a token in EVALRUN_TOKEN or --token-file, which every request must then send (Authorization: Bearer <token>)`,
      );
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`evalrun serve: ${e.message} (see evalrun serve --help)\n`);
    return EXIT.usage;
  }
  const say = (line: string): void => void process.stderr.write(`evalrun serve: ${line}\n`);

  const metrics = new ServiceMetrics();
  let grader: Grader;
  try {
    grader = await createGrader({
      problems: cli.problems,
      concurrency: cli.concurrency,
      memoryMb: cli.memoryMb,
      timeoutMs: cli.timeoutMs,
      floatTolerance: cli.floatTolerance,
      seed: cli.seed,
      strictTypes: cli.strictTypes,
      stopOnFirstFailure: cli.stopOnFirstFailure,
      extractCode: cli.extract,
      ...(cli.maxQueue === undefined ? {} : { maxQueue: cli.maxQueue }),
      ...(cli.warm === undefined ? {} : { warmLanguages: cli.warm }),
      ...(cli.timeoutFactor === undefined ? {} : { timeoutFactor: cli.timeoutFactor }),
      ...(cli.timeoutFloorMs === undefined ? {} : { timeoutFloorMs: cli.timeoutFloorMs }),
      observer: metrics.observer(),
    });
  } catch (e) {
    if (!(e instanceof ProblemDirectoryError || e instanceof TypeError)) throw e;
    say(e.message);
    return EXIT.usage;
  }
  metrics.watchQueue(() => grader.queued);
  const listing = grader.problems();
  for (const bad of listing.invalid) for (const error of bad.errors) say(`invalid problem: ${error}`);

  const app = buildService(grader, metrics, { token, bodyLimitBytes: cli.bodyLimitMb * 1024 * 1024 });
  let address: string;
  try {
    address = await app.listen({ host: cli.host, port: cli.port });
  } catch (e) {
    say(`cannot listen on ${cli.host}:${cli.port}: ${e instanceof Error ? e.message : String(e)}`);
    await grader.close({ graceMs: 0 });
    return EXIT.failed;
  }
  say(`listening on ${address} (${listing.problems.length} problems, ${grader.workers} workers${token === null ? '' : ', bearer token required'})`);
  void grader.ready().then(() => {
    if (grader.closed) return;
    const failures = grader.warmFailures;
    say(failures.length === 0 ? 'workers warm: ready' : `workers started, but not every engine warmed: ${failures.join('; ')}`);
  });

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      stopping = true;
      say(`${signal}: no new requests (503); finishing the candidates in flight`);
      // The server keeps listening while the grader lets its calls finish (within one candidate's ceiling):
      // a new call is answered 503, /healthz says `stopping`, and nothing in flight loses its connection.
      const stopped = grader.close().then(async () => {
        // Every call has its answer: stop listening, and wait for the replies still being written, within a grace.
        const late = setTimeout(() => app.server.closeAllConnections(), CONNECTIONS_GRACE_MS).unref();
        await app.close();
        clearTimeout(late);
      });
      void stopped.then(
        () => {
          say('stopped');
          resolve(EXIT.ok);
        },
        (e: unknown) => {
          say(`stopping failed: ${e instanceof Error ? e.message : String(e)}`);
          resolve(EXIT.failed);
        },
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

async function parseServeArgs(argv: readonly string[], yargs: typeof yargsFactory): Promise<ServeCli | null> {
  const parsed = await subcommandParser(yargs, argv, USAGE, (y) =>
    y
      .option('problems', { type: 'string', describe: 'Folder of problem JSON files (searched recursively), loaded and checked once' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on; anything but loopback needs a token' })
      .option('port', { type: 'number', default: 8080, describe: 'Port to listen on (0: any free port, printed at start)' })
      .option('concurrency', { type: 'number', default: defaultConcurrency(), describe: 'Sandbox worker processes: candidates graded at once' })
      .option('memory', {
        type: 'number',
        default: DEFAULTS.memoryMb,
        describe: `Default heap limit of each sandbox, in MB, at most ${LIMIT_BOUNDS.memoryMb} (a request may say memory_mb)`,
      })
      .option('timeout', {
        type: 'number',
        default: DEFAULTS.timeoutMs,
        describe: `Default time limit of each test, in ms, at most ${LIMIT_BOUNDS.timeoutMs} (a request may say timeout_ms)`,
      })
      .option('float-tolerance', {
        type: 'string',
        default: String(DEFAULTS.floatTolerance.relative),
        describe: 'Default float tolerance: one number, or RELATIVE,ABSOLUTE',
      })
      .option('timeout-factor', {
        type: 'number',
        describe: "Each test's limit is max(--timeout-floor, K x the optimal solution's time on it), measured on a problem's first request",
      })
      .option('timeout-floor', {
        type: 'number',
        describe: `With --timeout-factor: the least time limit a test gets, in ms (default ${DEFAULTS.timeoutFloorMs})`,
      })
      .option('seed', { type: 'number', default: DEFAULTS.seed, describe: 'Seed of the random numbers inside the sandbox' })
      .option('strict-types', {
        type: 'boolean',
        default: false,
        describe: 'Judge Python results with bool, int and float distinct, for requests that do not say (strict_types)',
      })
      .option('stop-on-first-failure', {
        type: 'boolean',
        default: false,
        describe: 'Stop each candidate at its first test that does not pass, for requests that do not say (stop_on_first_failure)',
      })
      .option('extract', { type: 'boolean', default: true, describe: 'Unwrap Markdown fences and drop prose around the code (--no-extract: run it as sent)' })
      .option('body-limit-mb', { type: 'number', default: DEFAULT_BODY_LIMIT_MB, describe: 'Largest request body, in MB' })
      .option('max-queue', { type: 'number', describe: 'Most candidates waiting at once; beyond it requests get 503 (default: 64 per worker, at least 1024)' })
      .option('token-file', { type: 'string', describe: 'File holding the bearer token requests must send (or set EVALRUN_TOKEN)' })
      .option('warm', {
        type: 'string',
        array: true,
        describe: `Languages each worker starts before the first request (${languageNames().join(', ')}); default: those of the problems' optimal solutions`,
      }),
  );
  if (parsed === null) return null;
  const { args, runs } = parsed;
  if (runs.length > 0) throw new UsageError(`unexpected argument: ${runs[0]}`);
  if (args.problems === undefined || args.problems === '') throw new UsageError('missing required option --problems DIR');
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) throw new UsageError(`--port must be a port number, got ${args.port}`);
  const factor = args['timeout-factor'];
  if (args['timeout-floor'] !== undefined && factor === undefined)
    throw new UsageError('--timeout-floor applies with --timeout-factor (the floor is the least limit the factor gives)');
  if (factor !== undefined && !(Number.isFinite(factor) && factor > 0)) throw new UsageError(`--timeout-factor must be a positive number, got ${factor}`);
  return {
    problems: args.problems,
    host: args.host,
    port: args.port,
    concurrency: positive('concurrency', args.concurrency),
    memoryMb: boundedInteger('memory', args.memory, LIMIT_BOUNDS.memoryMb, 'MB'),
    timeoutMs: boundedInteger('timeout', args.timeout, LIMIT_BOUNDS.timeoutMs, 'ms'),
    floatTolerance: parseTolerance(args['float-tolerance']),
    seed: args.seed,
    strictTypes: args['strict-types'],
    stopOnFirstFailure: args['stop-on-first-failure'],
    extract: args.extract,
    bodyLimitMb: positiveNumber('body-limit-mb', args['body-limit-mb']),
    maxQueue: args['max-queue'] === undefined ? undefined : positive('max-queue', args['max-queue']),
    tokenFile: args['token-file'] ?? null,
    warm: args.warm,
    timeoutFactor: args['timeout-factor'],
    timeoutFloorMs: args['timeout-floor'] === undefined ? undefined : boundedInteger('timeout-floor', args['timeout-floor'], LIMIT_BOUNDS.timeoutMs, 'ms'),
  };
}

/** The token from --token-file, else EVALRUN_TOKEN, else null. */
function readToken(cli: ServeCli): string | null {
  if (cli.tokenFile !== null) {
    let text: string;
    try {
      text = readFileSync(cli.tokenFile, 'utf8');
    } catch (e) {
      throw new UsageError(`--token-file ${cli.tokenFile}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const token = text.trim();
    if (token === '') throw new UsageError(`--token-file ${cli.tokenFile} is empty`);
    return token;
  }
  const env = process.env.EVALRUN_TOKEN?.trim();
  return env === undefined || env === '' ? null : env;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive whole number, got ${value}`);
  return value;
}

function positiveNumber(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number, got ${value}`);
  return value;
}
