import { existsSync, statSync } from 'node:fs';
import { parseArgs, UsageError, type CliOptions } from './args.js';
import { quickAnswer } from './quick-answers.js';

/** Exit codes: 0 all passed and valid, 1 anything failed or invalid, 2 usage error, 130 interrupted. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export async function main(argv: readonly string[]): Promise<number> {
  if (quickAnswer(argv)) return EXIT.ok;
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

/** Why `path` cannot be used as a folder, or null when it can. */
function folderProblem(path: string): string | null {
  if (!existsSync(path)) return 'no such folder';
  try {
    return statSync(path).isDirectory() ? null : 'not a folder';
  } catch (e) {
    return `cannot use it (${e instanceof Error ? e.message : String(e)})`;
  }
}
