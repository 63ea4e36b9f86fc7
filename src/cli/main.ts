import { availableParallelism } from 'node:os';
import { existsSync, statSync } from 'node:fs';
import { defaultConcurrency } from '../defaults.js';
import { prestartWorkers } from '../sandbox-host/worker-launch.js';
import { parseArgs, type CliOptions } from './args.js';
import { UsageError } from './parse.js';
import { EXIT } from './exit-codes.js';
import { quickAnswer } from './quick-answers.js';

export async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'merge') {
    const [{ mergeCommand }, { default: yargs }] = await Promise.all([import('./merge.js'), import('yargs')]);
    return mergeCommand(argv.slice(1), yargs);
  }
  if (quickAnswer(argv)) return EXIT.ok;
  // The grading service starts its own workers, once its problems are loaded (issue 27).
  if (argv[0] === 'serve') {
    const [{ serveCommand }, { default: yargs }] = await Promise.all([import('./serve.js'), import('yargs')]);
    return serveCommand(argv.slice(1), yargs);
  }
  // Subcommands that read run logs and grade nothing (issue 19).
  if (argv[0] === 'report' || argv[0] === 'diff') return runLogCommand(argv[0], argv.slice(1));
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
    for (const [flag, dir] of [
      ['--problems', options.problems],
      ['--solutions', options.solutions],
    ] as const) {
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

async function runLogCommand(name: 'report' | 'diff', argv: readonly string[]): Promise<number> {
  const { default: yargs } = await import('yargs');
  try {
    if (name === 'report') return await (await import('./report.js')).reportCommand(argv, yargs);
    return await (await import('./diff.js')).diffCommand(argv, yargs);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`evalrun ${name}: ${e.message} (see evalrun ${name} --help)\n`);
      return EXIT.usage;
    }
    throw e;
  }
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
  if (at < 0) return defaultConcurrency();
  const flag = argv[at]!;
  const value = Number(flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : argv[at + 1]);
  // No more than the pool starts ahead of its work (workers/pool.ts, `warm`).
  return Number.isInteger(value) && value > 0 ? Math.min(value, availableParallelism()) : 0;
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
