import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type yargsFactory from 'yargs';
import { VERSION } from '../version.js';

/** A mistake in how evalrun was called: reported in one line, exit code 2. */
export class UsageError extends Error {}

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
  /** bool, int and float distinct for Python candidates (default: Python's ==). */
  strictTypes: boolean;
  /** Absolute paths of folders of wheels or packages for Python candidates. */
  pythonPackages: string[];
}

/** Options that a resumed run takes from its log; giving them again is a mistake. */
const FIXED_BY_RESUME = ['problems', 'solutions', 'memory', 'timeout', 'float-tolerance', 'seed', 'problem', 'tag', 'model', 'pass-at', 'extract', 'no-extract', 'strict-types', 'python-packages'];

const USAGE = `Usage:
  evalrun --problems DIR                    self-check: every optimal_solution against its own tests
  evalrun --problems DIR --solutions DIR    grade submissions
  evalrun --resume RUN                      finish an interrupted run`;

/**
 * Parses the command line. Returns null when yargs already answered
 * (--help, --version); throws UsageError for anything malformed.
 */
export async function parseArgs(argv: readonly string[], yargs: typeof yargsFactory): Promise<CliOptions | null> {
  let answered = false;
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
      default: availableParallelism(),
      describe: 'Candidates graded at once, each in its own sandbox process',
    })
    .option('memory', { type: 'number', default: 128, describe: 'Heap limit of each sandbox, in MB' })
    .option('timeout', { type: 'number', default: 2000, describe: 'Time limit of each test, in ms' })
    .option('float-tolerance', {
      type: 'string',
      default: '1e-9',
      describe: 'Float comparison tolerance: one number for both, or RELATIVE,ABSOLUTE',
    })
    .option('seed', { type: 'number', default: 1, describe: 'Seed of Math.random inside the sandbox' })
    .option('out', { type: 'string', describe: 'Write the JSON scorecard here instead of results/<timestamp>.json' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the JSON scorecard on stdout instead of the table' })
    .option('details', { type: 'boolean', default: false, describe: 'List every candidate and failing test (when grading, or a self-check of over 100 candidates)' })
    .option('pass-at', { type: 'string', default: '1', describe: 'k values of pass@k, comma-separated (e.g. 1,10)' })
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
    .option('resume', { type: 'string', describe: 'Finish an interrupted run: its id, or the path of its .jsonl log' })
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
    .option('print-schema', { type: 'boolean', default: false, describe: 'Print the JSON Schema of problem files and exit' })
    .strict()
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((message: string | undefined, error: Error | undefined) => {
      throw new UsageError(message ?? error?.message ?? 'invalid arguments');
    });

  const args = await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
    if (output !== '') {
      answered = true;
      process.stdout.write(`${output}\n`);
    }
  });
  if (answered || args.help === true || args.version === true) return null;
  if (args._.length > 0) throw new UsageError(`unexpected argument: ${String(args._[0])}`);

  const printSchema = args['print-schema'] === true;
  const resume = args.resume ?? null;
  if (resume !== null) {
    const given = FIXED_BY_RESUME.find((name) => argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`)));
    if (given !== undefined) throw new UsageError(`--resume takes --${given} from the run log; do not give it again`);
  } else if (!printSchema && (args.problems === undefined || args.problems === '')) {
    throw new UsageError('missing required option --problems DIR');
  }
  const grading = args.solutions !== undefined;
  if (args['min-pass-rate'] !== undefined && !grading && resume === null) {
    throw new UsageError('--min-pass-rate applies when grading submissions (--solutions)');
  }
  return {
    problems: args.problems ?? '',
    solutions: args.solutions ?? null,
    concurrency: positiveInteger('concurrency', args.concurrency),
    memoryMb: positiveInteger('memory', args.memory),
    timeoutMs: positiveInteger('timeout', args.timeout),
    floatTolerance: parseTolerance(args['float-tolerance']),
    seed: integer('seed', args.seed),
    out: args.out ?? null,
    json: args.json === true,
    printSchema,
    details: args.details === true,
    passAtK: parsePassAt(args['pass-at']),
    filters: { problems: args.problem ?? [], tags: args.tag ?? [], models: args.model ?? [] },
    minPassRate: args['min-pass-rate'] === undefined ? null : parseRate(args['min-pass-rate']),
    extractCode: args.extract !== false,
    resume,
    strictTypes: args['strict-types'] === true,
    pythonPackages: (args['python-packages'] ?? []).map((dir) => packagesFolder(dir)),
  };
}

function packagesFolder(dir: string): string {
  const path = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--python-packages: ${dir} is not a folder`);
  return path;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive whole number, got ${value}`);
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
