import type yargsFactory from 'yargs';
import type { Argv } from 'yargs';
import { UsageError } from './args.js';

/**
 * Parses a subcommand's arguments (after its name) the way the main
 * command parses its own: strict, usage errors as UsageError, `--help`
 * answered here (null). The positional arguments come back as `runs`.
 */
export async function subcommandParser<T>(
  yargs: typeof yargsFactory,
  argv: readonly string[],
  usage: string,
  define: (y: Argv) => Argv<T>,
): Promise<{ args: T & { _: Array<string | number> }; runs: string[] } | null> {
  let answered = false;
  const parser = define(
    yargs([...argv])
      .scriptName('evalrun')
      .usage(usage)
      // Options are checked; the positional arguments are the runs.
      .strictOptions()
      .help()
      .alias('h', 'help')
      .version(false)
      .wrap(Math.min(100, process.stdout.columns ?? 100))
      .exitProcess(false)
      .fail((message: string | undefined, error: Error | undefined) => {
        throw new UsageError(message ?? error?.message ?? 'invalid arguments');
      }),
  );
  const args = await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
    if (output !== '') {
      answered = true;
      process.stdout.write(`${output}\n`);
    }
  });
  if (answered || (args as { help?: unknown }).help === true) return null;
  return { args: args as T & { _: Array<string | number> }, runs: args._.map(String) };
}
