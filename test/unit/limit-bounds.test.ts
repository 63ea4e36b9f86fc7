/**
 * The most a limit may be (LIMIT_BOUNDS) is what the engines can honour:
 * the largest heap limit still gets the Python interpreter's whole headroom
 * in its WebAssembly memory, and every entry point refuses a value past a
 * bound with a message that names the range.
 */
import { describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { parseArgs } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/parse.js';
import { LIMIT_BOUNDS } from '../../src/defaults.js';
import { MAX_WASM_MB, WASM_HEADROOM_MB, wasmCapMb } from '../../src/engines/python/bridge.js';
import { evaluate } from '../../src/evaluate.js';
import { createGrader } from '../../src/service/grader.js';

describe('the bounds of the limits', () => {
  it('keep the largest heap limit within what the Python engine honours in full', () => {
    expect(LIMIT_BOUNDS.memoryMb + WASM_HEADROOM_MB).toBeLessThanOrEqual(MAX_WASM_MB);
    expect(wasmCapMb(LIMIT_BOUNDS.memoryMb) - LIMIT_BOUNDS.memoryMb).toBe(wasmCapMb(1000) - 1000);
  });

  it('keep the longest time limit a valid timer', () => {
    expect(LIMIT_BOUNDS.timeoutMs).toBeLessThan(2 ** 31 - 1);
  });

  it('are enforced by the CLI with a usage error that names the flag and the range', async () => {
    const parse = (...flags: string[]) => parseArgs(['--problems', 'problems', ...flags], yargs);
    await expect(parse('--timeout', '1e12')).rejects.toThrow(new UsageError('--timeout must be a whole number of ms from 1 to 86400000, got 1000000000000'));
    await expect(parse('--memory', '5000')).rejects.toThrow(new UsageError('--memory must be a whole number of MB from 1 to 3967, got 5000'));
    await expect(parse('--solutions', 'x', '--timeout-factor', '2', '--timeout-floor', '3000000000')).rejects.toThrow(
      /^--timeout-floor must be a whole number of ms from 1 to 86400000/,
    );
    const at = await parse('--timeout', String(LIMIT_BOUNDS.timeoutMs), '--memory', String(LIMIT_BOUNDS.memoryMb));
    expect(at).toMatchObject({ timeoutMs: LIMIT_BOUNDS.timeoutMs, memoryMb: LIMIT_BOUNDS.memoryMb });
  });

  it('are enforced by evaluate and createGrader before anything starts', async () => {
    await expect(evaluate({ problems: 'problems', timeoutMs: 2 ** 31 })).rejects.toThrow(
      /`timeoutMs` must be a whole number from 1 to 86400000, got 2147483648/,
    );
    await expect(evaluate({ problems: 'problems', memoryMb: 4096 })).rejects.toThrow(/`memoryMb` must be a whole number from 1 to 3967/);
    await expect(createGrader({ problems: 'problems', timeoutMs: 3e9 })).rejects.toThrow(/createGrader: `timeoutMs` must be a whole number from 1 to 86400000/);
    await expect(createGrader({ problems: 'problems', timeoutFactor: 2, timeoutFloorMs: 1e10 })).rejects.toThrow(
      /`timeoutFloorMs` must be a whole number from 1 to 86400000/,
    );
  });
});
