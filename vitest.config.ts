import { defineConfig } from 'vitest/config';

// CI asks for a machine-readable summary as well (see .ci/run).
const summaryFile = process.env.EVALRUN_TEST_SUMMARY;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One temporary folder for the whole run, removed at its end (test/temp-folder.ts).
    globalSetup: ['test/temp-folder.ts'],
    pool: 'forks',
    // isolated-vm requires this on Node 20+; forked test workers inherit it.
    execArgv: ['--no-node-snapshot'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: summaryFile ? ['default', ['json', { outputFile: summaryFile }]] : ['default'],
  },
});
