/**
 * Renders `evalrun --help` once at build time into `dist/help.txt`, so that
 * `--help` can be answered without loading yargs (see src/cli/quick-answers.ts).
 * The text comes from the same yargs definition the CLI parses with.
 */
import { writeFileSync } from 'node:fs';
import yargs from 'yargs';
import { parseArgs } from '../src/cli/args.js';
import { HELP_FILE, HELP_WIDTH } from '../src/cli/quick-answers.js';

let captured = '';
const write = process.stdout.write.bind(process.stdout);
Object.defineProperty(process.stdout, 'columns', { value: HELP_WIDTH, configurable: true });
process.stdout.write = (chunk: string | Uint8Array): boolean => {
  captured += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return true;
};
try {
  await parseArgs(['--help'], yargs);
} finally {
  process.stdout.write = write;
}
if (!captured.includes('--problems')) throw new Error('rendering the help text failed');
writeFileSync(HELP_FILE(), captured);
console.log(`wrote ${HELP_FILE()}`);
