import type yargsFactory from 'yargs';
import type { Argv } from 'yargs';
import { asEvalrunParser, parseOrAnswer } from './parse.js';

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
  const parser = define(
    yargs([...argv])
      .scriptName('evalrun')
      .usage(usage)
      // Options are checked; the positional arguments are the runs.
      .strictOptions()
      .version(false),
  );
  const args = await parseOrAnswer(asEvalrunParser(parser), argv);
  return args === null ? null : { args, runs: args._.map(String) };
}
