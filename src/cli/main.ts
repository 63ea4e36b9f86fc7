import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { prestartWorkers } from '../sandbox-host/worker-launch.js';
import { parseArgs, UsageError, type CliOptions } from './args.js';
import { quickAnswer } from './quick-answers.js';

/**
 * Exit codes: 0 all passed and valid, 1 anything failed or invalid, 2 usage
 * error, 3 the run log or scorecard could not be written (full disk...),
 * 130 interrupted.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, cannotWrite: 3, interrupted: 130 } as const;

export async function main(argv: readonly string[]): Promise<number> {
  if (quickAnswer(argv)) return EXIT.ok;
  // Sandbox workers start while the arguments are parsed and the runner loads.
  prestartWorkers(plannedWorkers(argv));
  const { default: yargs } = await import('yargs');
  let options: CliOptions | null;
  try {
    options = await parseArgs(argv, yargs);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`evalrun: ${e.message} (see evalrun --help)\n`);
      return EXIT.usage;
    }
    throw e;
  }
  if (options === null) return EXIT.ok; // --help / --version already printed
  if (options.printSchema) {
    const { printSchema } = await import('./print-schema.js');
    return printSchema();
  }
  if (options.resume === null) {
    for (const [flag, dir] of [['--problems', options.problems], ['--solutions', options.solutions]] as const) {
      const problem = dir === null ? null : folderProblem(dir);
      if (problem !== null) {
        process.stderr.write(`evalrun: ${flag} ${dir}: ${problem}\n`);
        return EXIT.usage;
      }
    }
  }
  // Heavy modules load only when there is work to do, so --help and --version stay fast.
  const { execute } = await import('./execute.js');
  return execute(options);
}

/**
 * How many sandbox workers the run that `argv` asks for will use, judged
 * before the arguments are parsed: 0 when it is clearly not a run (help,
 * the schema, a resumed run whose options are in its log) or when
 * `--concurrency` is not a plain count. A wrong guess costs little: workers
 * nobody adopts exit with this process, and a pool starts any it lacks.
 */
export function plannedWorkers(argv: readonly string[]): number {
  const named = (flag: string): number => argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (named('--problems') < 0) return 0;
  if (['--help', '-h', '--version', '--print-schema', '--resume'].some((flag) => named(flag) >= 0)) return 0;
  const at = named('--concurrency');
  if (at < 0) return availableParallelism();
  const flag = argv[at]!;
  const value = Number(flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : argv[at + 1]);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** Why `path` cannot be used as a folder, or null when it can. */
function folderProblem(path: string): string | null {
  if (!existsSync(path)) return 'no such folder';
  try {
    return statSync(path).isDirectory() ? null : 'not a folder';
  } catch (e) {
    return `cannot use it (${e instanceof Error ? e.message : String(e)})`;
  }
}
