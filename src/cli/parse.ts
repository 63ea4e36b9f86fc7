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
      throw new UsageError(withoutCamelCaseTwins(message ?? error?.message ?? 'invalid arguments'));
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
  checkValues(parser, args as Record<string, unknown>, argv);
  return args as T & { _: Array<string | number> };
}

/** An `--out` value: a file name, or null when none was given (an empty one is a mistake, not a name). */
export function outFile(value: unknown): string | null {
  if (value === '') throw new UsageError('--out needs a file name');
  return typeof value === 'string' ? value : null;
}

/**
 * What yargs lets through: an option that takes one value given twice
 * comes back as an array (which the code after would take for a value),
 * and a number option given a word as NaN (which a message would echo
 * instead of what was typed).
 */
function checkValues<T>(parser: Argv<T>, args: Record<string, unknown>, argv: readonly string[]): void {
  // yargs keeps what each option was declared as; its types do not list the getter.
  const options = (parser as unknown as { getOptions(): DeclaredOptions }).getOptions();
  const repeatable = new Set(options.array);
  const numbers = new Set(options.number);
  const booleans = new Set(options.boolean);
  for (const name of Object.keys(options.key)) {
    const value = args[name];
    // Counted on the command line: yargs folds some repeated numbers into one (`--concurrency 2 --concurrency 1` is 3).
    const given = argv.filter((a) => a === `--${name}` || a.startsWith(`--${name}=`)).length;
    if (!repeatable.has(name) && !booleans.has(name) && (given > 1 || Array.isArray(value))) {
      throw new UsageError(`--${name} was given more than once; give it once`);
    }
    if (numbers.has(name) && typeof value === 'number' && Number.isNaN(value)) {
      throw new UsageError(`--${name} must be a number, got ${JSON.stringify(typedValue(argv, name) ?? '')}`);
    }
  }
}

interface DeclaredOptions {
  key: Record<string, unknown>;
  array: string[];
  number: string[];
  boolean: string[];
}

/** The text given for `--name` on the command line (`--name VALUE` or `--name=VALUE`), if it is there. */
function typedValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === `--${name}`) return argv[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

/** yargs names an unknown `--bogus-flag` twice, as itself and as `bogusFlag`: once is enough. */
function withoutCamelCaseTwins(message: string): string {
  const m = /^(Unknown arguments?: )(.*)$/.exec(message);
  if (m === null) return message;
  const names = (m[2] as string).split(', ');
  const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const kept = names.filter((name) => !names.some((other) => other !== name && other.includes('-') && camel(other) === name));
  return `${kept.length === 1 ? 'Unknown argument: ' : 'Unknown arguments: '}${kept.join(', ')}`;
}
