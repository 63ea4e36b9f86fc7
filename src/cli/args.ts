import { resolve } from 'node:path';
import type yargsFactory from 'yargs';
import { defaultConcurrency, DEFAULTS, LIMIT_BOUNDS } from '../defaults.js';
import { DEFAULT_REPETITIONS, GraderNameError, GRADERS, measures, parseGraders, type Grader } from '../grading/graders.js';
import { parseReporterChoice, type ReporterChoice } from '../report/reporters.js';
import { resolveShard, ShardSpecError, type ShardSpec } from '../runner/shard.js';
import { VERSION } from '../version.js';
import { pathKind } from '../folders/path-kind.js';
import { asEvalrunParser, outFile, parseOrAnswer, UsageError } from './parse.js';

export interface CliOptions {
  problems: string;
  solutions: string | null;
  concurrency: number;
  memoryMb: number;
  timeoutMs: number;
  floatTolerance: { relative: number; absolute: number };
  seed: number;
  out: string | null;
  json: boolean;
  printSchema: boolean;
  details: boolean;
  passAtK: number[];
  filters: { problems: string[]; tags: string[]; models: string[] };
  minPassRate: number | null;
  extractCode: boolean;
  /** A run id (looked up under results/) or the path of a run log. */
  resume: string | null;
  /** `--shard I/N` or `auto`, resolved; null when the whole run is graded here. */
  shard: ShardSpec | null;
  /** `--reporter NAME[=FILE]`, in order; empty means the table (or the JSON with `--json`). */
  reporters: ReporterChoice[];
  /** Live progress on stderr (`--no-progress` turns it off). */
  progress: boolean;
  /** A run the HTML report compares this one with. */
  baseline: string | null;
  /** bool, int and float distinct for Python candidates (default: Python's ==). */
  strictTypes: boolean;
  /** Absolute paths of folders of wheels or packages for Python candidates. */
  pythonPackages: string[];
  /** Stop each candidate at its first test that does not pass; the rest are skipped. */
  stopOnFirstFailure: boolean;
  /** `--grade`: the graders, correctness first (correctness alone by default). */
  graders: Grader[];
  /** `--repetitions`: how often a measured run repeats each test for its times. */
  repetitions: number;
  /** `--timeout-factor`: each test's limit from the optimal solution's time on it; null: --timeout for every test. */
  timeoutFactor: number | null;
  /** `--timeout-floor`: the least limit --timeout-factor gives a test, in ms. */
  timeoutFloorMs: number;
  /** `--test-limits`: absolute path of a run log or scorecard whose recorded limits are used. */
  testLimits: string | null;
}

/** Options that a resumed run takes from its log; giving them again is a mistake. */
const FIXED_BY_RESUME = [
  'problems',
  'solutions',
  'memory',
  'timeout',
  'float-tolerance',
  'seed',
  'problem',
  'tag',
  'model',
  'pass-at',
  'extract',
  'no-extract',
  'shard',
  'strict-types',
  'python-packages',
  'stop-on-first-failure',
  'grade',
  'repetitions',
  'timeout-factor',
  'timeout-floor',
  'test-limits',
];

const USAGE = `Usage:
  evalrun --problems DIR                    self-check: every optimal_solution against its own tests
  evalrun --problems DIR --solutions DIR    grade submissions
  evalrun --resume RUN                      finish an interrupted run
  evalrun --problems DIR ... --shard I/N    grade one part of the run (merge the parts with evalrun merge)
  evalrun merge LOG... [--out FILE]         combine shards' run logs or scorecards into one scorecard
  evalrun report RUN --format NAME          render a run from its log (table, json, junit, markdown, html)
  evalrun diff RUN_A RUN_B                  what changed between two runs
  evalrun serve --problems DIR              grade over HTTP, workers kept warm (evalrun serve --help)`;

/**
 * Parses the command line. Returns null when yargs already answered
 * (--help, --version); throws UsageError for anything malformed.
 */
export async function parseArgs(argv: readonly string[], yargs: typeof yargsFactory): Promise<CliOptions | null> {
  const parser = yargs([...argv])
    .scriptName('evalrun')
    .usage(USAGE)
    .option('problems', {
      type: 'string',
      describe: 'Folder of problem JSON files (searched recursively)',
    })
    .option('solutions', {
      type: 'string',
      describe: 'Folder of submissions to grade (omit for a self-check)',
    })
    .option('concurrency', {
      type: 'number',
      default: defaultConcurrency(),
      describe: 'Sandbox worker processes: candidates graded at once, one per worker',
    })
    .option('memory', { type: 'number', default: DEFAULTS.memoryMb, describe: `Heap limit of each sandbox, in MB (at most ${LIMIT_BOUNDS.memoryMb})` })
    .option('timeout', { type: 'number', default: DEFAULTS.timeoutMs, describe: `Time limit of each test, in ms (at most ${LIMIT_BOUNDS.timeoutMs})` })
    .option('float-tolerance', {
      type: 'string',
      default: String(DEFAULTS.floatTolerance.relative),
      describe: 'Float comparison tolerance: one number for both, or RELATIVE,ABSOLUTE',
    })
    .option('seed', { type: 'number', default: DEFAULTS.seed, describe: 'Seed of Math.random inside the sandbox' })
    .option('out', { type: 'string', describe: 'Write the JSON scorecard here instead of results/<timestamp>.json' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the JSON scorecard on stdout instead of the table' })
    .option('details', {
      type: 'boolean',
      default: false,
      describe: 'List every candidate and failing test (when grading, or a self-check of over 100 candidates)',
    })
    .option('pass-at', { type: 'string', default: DEFAULTS.passAtK.join(','), describe: 'k values of pass@k, comma-separated (e.g. 1,10)' })
    .option('problem', { type: 'string', array: true, describe: 'Only problems whose id matches this glob (repeatable)' })
    .option('tag', { type: 'string', array: true, describe: 'Only problems with this tag (repeatable)' })
    .option('model', { type: 'string', array: true, describe: 'Only submissions of models matching this glob (repeatable)' })
    .option('min-pass-rate', {
      type: 'string',
      describe: 'When grading, exit 1 if the test pass rate is below this (0.8 or 80%)',
    })
    .option('extract', {
      type: 'boolean',
      default: true,
      describe: 'Unwrap Markdown fences and drop prose around submitted code (--no-extract runs the text as is)',
    })
    .option('resume', { type: 'string', describe: 'Finish an interrupted run: its id, or the path of its .jsonl log or .json scorecard' })
    .option('shard', {
      type: 'string',
      describe: 'Grade part I of N (1-based), or auto: from JOB_COMPLETION_INDEX + EVALRUN_SHARD_COUNT, or SLURM_ARRAY_TASK_ID',
    })
    // Values and packages of Python candidates (docs/VALUES.md).
    .option('strict-types', {
      type: 'boolean',
      default: false,
      describe: "Judge Python results with bool, int and float distinct (default: Python's ==, True == 1 == 1.0)",
    })
    .option('python-packages', {
      type: 'string',
      array: true,
      describe: 'Folder of wheels (py3-none-any, pyemscripten) or package folders Python candidates may import (repeatable)',
    })
    .option('stop-on-first-failure', {
      type: 'boolean',
      default: false,
      describe: 'Stop each candidate at its first test that does not pass; the tests after it are listed as skipped (and count in the total)',
    })
    .option('grade', {
      type: 'string',
      array: true,
      describe: `Graders, comma-separated: ${GRADERS.join(', ')} (correctness is always graded; performance and memory score passing candidates against the optimal solution)`,
    })
    .option('repetitions', {
      type: 'number',
      default: DEFAULT_REPETITIONS,
      describe: 'With --grade performance or memory: runs of each test in the measured run, for its wall and CPU times',
    })
    // Limits per test from the optimal solution's times (docs/ARCHITECTURE.md, "Limits per test").
    .option('timeout-factor', {
      type: 'number',
      describe:
        "Each test's time limit is K times the optimal solution's time on it (at least --timeout-floor), measured once per problem under --timeout before its candidates",
    })
    .option('timeout-floor', {
      type: 'number',
      default: DEFAULTS.timeoutFloorMs,
      describe: 'With --timeout-factor: the least time limit a test gets, in ms',
    })
    .option('test-limits', {
      type: 'string',
      describe:
        'Use the test limits an earlier --timeout-factor run recorded (its .jsonl log or JSON scorecard) instead of measuring them: one set for every shard',
    })
    .option('print-schema', { type: 'boolean', default: false, describe: 'Print the JSON Schema of problem files and exit' })
    .option('reporter', {
      type: 'string',
      array: true,
      describe: 'Output format, repeatable: table (default), json, junit, markdown, html; NAME=FILE writes it to FILE',
    })
    .option('progress', { type: 'boolean', default: true, describe: 'Live progress on stderr (--no-progress turns it off)' })
    .option('baseline', { type: 'string', describe: 'A run (id or .jsonl path) the HTML report compares this one with' })
    .strict()
    .version(VERSION);

  const args = await parseOrAnswer(asEvalrunParser(parser), argv);
  if (args === null) return null;
  if (args._.length > 0) throw new UsageError(`unexpected argument: ${String(args._[0])}`);

  const printSchema = args['print-schema'] === true;
  const resume = args.resume ?? null;
  if (resume !== null) {
    const given = FIXED_BY_RESUME.find((name) => argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`)));
    if (given !== undefined) throw new UsageError(`--resume takes --${given} from the run log; do not give it again`);
  } else if (!printSchema && (args.problems === undefined || args.problems === '')) {
    throw new UsageError('missing required option --problems DIR');
  }
  const out = outFile(args.out);
  const graders = gradersFlag(args.grade ?? []);
  if (resume === null && !measures(graders) && argv.some((a) => a === '--repetitions' || a.startsWith('--repetitions='))) {
    throw new UsageError('--repetitions applies with --grade performance or memory');
  }
  const grading = args.solutions !== undefined;
  if (args['min-pass-rate'] !== undefined && !grading && resume === null) {
    throw new UsageError('--min-pass-rate applies when grading submissions (--solutions)');
  }
  const limits = limitFlags(args['timeout-factor'], args['timeout-floor'], args['test-limits'], argv, grading || resume !== null);
  return {
    problems: args.problems ?? '',
    solutions: args.solutions ?? null,
    concurrency: positiveInteger('concurrency', args.concurrency),
    memoryMb: boundedInteger('memory', args.memory, LIMIT_BOUNDS.memoryMb, 'MB'),
    timeoutMs: boundedInteger('timeout', args.timeout, LIMIT_BOUNDS.timeoutMs, 'ms'),
    floatTolerance: parseTolerance(args['float-tolerance']),
    seed: integer('seed', args.seed),
    out,
    json: args.json === true,
    printSchema,
    details: args.details === true,
    passAtK: parsePassAt(args['pass-at']),
    filters: { problems: args.problem ?? [], tags: args.tag ?? [], models: args.model ?? [] },
    minPassRate: args['min-pass-rate'] === undefined ? null : parseRate(args['min-pass-rate']),
    extractCode: args.extract !== false,
    resume,
    shard: args.shard === undefined ? null : shardFlag(args.shard),
    reporters: parseReporters(args.reporter ?? [], args.json === true),
    progress: args.progress !== false,
    baseline: args.baseline ?? null,
    strictTypes: args['strict-types'] === true,
    pythonPackages: (args['python-packages'] ?? []).map((dir) => packagesFolder(dir)),
    stopOnFirstFailure: args['stop-on-first-failure'] === true,
    graders,
    repetitions: positiveInteger('repetitions', args.repetitions),
    ...limits,
  };
}

/** --timeout-factor, --timeout-floor and --test-limits, checked together. */
function limitFlags(
  factor: number | undefined,
  floor: number,
  file: string | undefined,
  argv: readonly string[],
  grading: boolean,
): Pick<CliOptions, 'timeoutFactor' | 'timeoutFloorMs' | 'testLimits'> {
  const floorGiven = argv.some((a) => a === '--timeout-floor' || a.startsWith('--timeout-floor='));
  if (floorGiven && factor === undefined) throw new UsageError('--timeout-floor applies with --timeout-factor (the floor is the least limit the factor gives)');
  if (factor !== undefined && (!Number.isFinite(factor) || factor <= 0)) throw new UsageError(`--timeout-factor must be a positive number, got ${factor}`);
  const explain = 'a self-check grades the optimal solutions themselves, whose times the limits come from; give --solutions';
  if (!grading && factor !== undefined) throw new UsageError(`--timeout-factor applies when grading submissions: ${explain}`);
  if (!grading && file !== undefined) throw new UsageError(`--test-limits applies when grading submissions: ${explain}`);
  return {
    timeoutFactor: factor ?? null,
    timeoutFloorMs: boundedInteger('timeout-floor', floor, LIMIT_BOUNDS.timeoutMs, 'ms'),
    testLimits: file === undefined ? null : existingFile('test-limits', file),
  };
}

function existingFile(name: string, file: string): string {
  const path = resolve(file);
  if (pathKind(path) !== 'file') throw new UsageError(`--${name}: ${file} is not a file`);
  return path;
}

function gradersFlag(texts: readonly string[]): Grader[] {
  try {
    return parseGraders(texts);
  } catch (e) {
    if (e instanceof GraderNameError) throw new UsageError(`--grade: ${e.message}`);
    throw e;
  }
}

function shardFlag(text: string): ShardSpec {
  try {
    return resolveShard(text, process.env);
  } catch (e) {
    if (e instanceof ShardSpecError) throw new UsageError(e.message);
    throw e;
  }
}

function parseReporters(texts: readonly string[], json: boolean): ReporterChoice[] {
  const choices = texts.map((text) => {
    const choice = parseReporterChoice(text);
    if ('error' in choice) throw new UsageError(`--reporter: ${choice.error}`);
    return choice;
  });
  const onStdout = choices.filter((c) => c.file === null && (c.format === 'table' || c.format === 'json'));
  if (json && !onStdout.some((c) => c.format === 'json')) onStdout.push({ format: 'json', file: null });
  if (onStdout.length > 1) throw new UsageError('--reporter: only one of table and json can print on stdout; give the other a file (NAME=FILE)');
  return choices;
}

function packagesFolder(dir: string): string {
  const path = resolve(dir);
  if (pathKind(path) !== 'folder') throw new UsageError(`--python-packages: ${dir} is not a folder`);
  return path;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive whole number, got ${value}`);
  return value;
}

/** A limit: a whole number from 1 to `max` of `unit`. */
export function boundedInteger(name: string, value: number, max: number, unit: string): number {
  if (!Number.isSafeInteger(value) || value <= 0 || value > max)
    throw new UsageError(`--${name} must be a whole number of ${unit} from 1 to ${max}, got ${value}`);
  return value;
}

function integer(name: string, value: number): number {
  if (!Number.isSafeInteger(value)) throw new UsageError(`--${name} must be a whole number, got ${value}`);
  return value;
}

export function parseTolerance(text: string): { relative: number; absolute: number } {
  const parts = text.split(',').map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.length > 2 || parts.some((p) => p === '') || numbers.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new UsageError(`--float-tolerance must be a non-negative number or RELATIVE,ABSOLUTE, got ${text}`);
  }
  const relative = numbers[0]!;
  const absolute = numbers[1] ?? relative;
  return { relative, absolute };
}

export function parsePassAt(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const ks = parts.map(Number);
  if (parts.some((p) => p === '') || ks.some((k) => !Number.isSafeInteger(k) || k < 1)) {
    throw new UsageError(`--pass-at must be positive whole numbers separated by commas, got ${text}`);
  }
  return [...new Set(ks)].sort((a, b) => a - b);
}

/** `0.8` and `80%` both mean eighty percent. */
export function parseRate(text: string): number {
  const trimmed = text.trim();
  const isPercent = trimmed.endsWith('%');
  const value = Number(isPercent ? trimmed.slice(0, -1) : trimmed);
  const rate = isPercent ? value / 100 : value;
  if (trimmed === '' || trimmed === '%' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new UsageError(`--min-pass-rate must be a fraction from 0 to 1 or a percentage, got ${text}`);
  }
  return rate;
}
