import { availableParallelism } from 'node:os';
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
}

const USAGE = `Usage:
  evalrun --problems DIR                    self-check: every optimal_solution against its own tests
  evalrun --problems DIR --solutions DIR    grade submissions`;

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
  if (!printSchema && (args.problems === undefined || args.problems === '')) {
    throw new UsageError('missing required option --problems DIR');
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
  };
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
