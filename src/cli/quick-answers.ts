import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { VERSION } from '../version.js';

/** Width the help text is rendered at by `npm run build` (see scripts/write-help.ts). */
export const HELP_WIDTH = 100;
export const HELP_FILE = (): string => join(packageRoot(), 'dist', 'help.txt');

/**
 * `--version` and `--help` on their own are answered without loading yargs,
 * which costs more than the rest of start-up together. The help text is the
 * one yargs renders, captured at build time; on a terminal narrower than it
 * was rendered for, yargs renders it afresh. Returns false when the full
 * parser must run.
 */
export function quickAnswer(argv: readonly string[]): boolean {
  if (argv.length !== 1) return false;
  const [arg] = argv;
  if (arg === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return true;
  }
  if (arg === '--help' || arg === '-h') {
    const columns = process.stdout.columns;
    if (columns !== undefined && columns < HELP_WIDTH) return false;
    let text: string;
    try {
      text = readFileSync(HELP_FILE(), 'utf8');
    } catch {
      return false; // not built with the help text: let yargs render it
    }
    process.stdout.write(text);
    return true;
  }
  return false;
}
