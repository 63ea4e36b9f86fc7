/** The --grade and --repetitions flags, parsed as the CLI parses them. */
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/parse.js';

const parse = (argv: string[]): ReturnType<typeof parseArgs> => parseArgs(argv, yargs);

describe('--grade', () => {
  it('is correctness alone by default, and always includes it', async () => {
    expect((await parse(['--problems', 'p']))!.graders).toEqual(['correctness']);
    expect((await parse(['--problems', 'p', '--grade', 'memory,performance']))!.graders).toEqual(['correctness', 'performance', 'memory']);
    expect((await parse(['--problems', 'p', '--grade', 'memory', '--grade', 'correctness']))!.graders).toEqual(['correctness', 'memory']);
  });

  it('takes --repetitions with performance or memory only', async () => {
    expect((await parse(['--problems', 'p', '--grade', 'performance', '--repetitions', '5']))!.repetitions).toBe(5);
    expect((await parse(['--problems', 'p', '--grade', 'performance']))!.repetitions).toBe(3);
    await expect(parse(['--problems', 'p', '--repetitions', '5'])).rejects.toThrow('--repetitions applies with --grade performance or memory');
    await expect(parse(['--problems', 'p', '--grade', 'memory', '--repetitions', '0'])).rejects.toThrow(UsageError);
  });

  it('refuses unknown names, and giving it again to --resume', async () => {
    await expect(parse(['--problems', 'p', '--grade', 'speed'])).rejects.toThrow('--grade: unknown grader "speed"');
    await expect(parse(['--resume', 'run', '--grade', 'memory'])).rejects.toThrow('--resume takes --grade from the run log');
  });
});
