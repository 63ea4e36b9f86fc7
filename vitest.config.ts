import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // isolated-vm requires this on Node 20+; forked test workers inherit it.
    execArgv: ['--no-node-snapshot'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
