#!/usr/bin/env node
// The CLI runs in this process; isolates run in worker processes that are
// started with --no-node-snapshot (see src/sandbox-host/pool.ts), which is
// what isolated-vm requires on Node 20+.
import { main } from '../dist/bundle/cli.js';

// `evalrun ... | head` closes stdout early: the run still finishes and writes its scorecard.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
