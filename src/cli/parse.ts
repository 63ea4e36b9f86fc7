import type { Argv } from 'yargs';

/** A mistake in how evalrun was called: reported in one line, exit code 2. */
export class UsageError extends Error {}

/**
 * What every evalrun parser shares, the main command's and each
 * subcommand's: `--help`/`-h`, the terminal's width, no process exit from
 * yargs, and every mistake thrown as a UsageError.
 */
export function asEvalrunParser<T>(parser: Argv<T>): Argv<T> {
  return parser
    .help()
    .alias('h', 'help')
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((message: string | undefined, error: Error | undefined) => {
      throw new UsageError(message ?? error?.message ?? 'invalid arguments');
    });
}

/**
 * Parses `argv`; returns null when yargs answered on stdout instead
 * (`--help`, `--version`).
 */
export async function parseOrAnswer<T>(parser: Argv<T>, argv: readonly string[]): Promise<(T & { _: Array<string | number> }) | null> {
  let answered = false;
  const args = await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
    if (output !== '') {
      answered = true;
      process.stdout.write(`${output}\n`);
    }
  });
  const flags = args as { help?: unknown; version?: unknown };
  if (answered || flags.help === true || flags.version === true) return null;
  return args as T & { _: Array<string | number> };
}
