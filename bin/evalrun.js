#!/usr/bin/env node
// The CLI runs in this process, from the single CommonJS bundle the build
// writes (one file loads much faster than the module graph tsc emits).
// Isolates run in sandbox worker processes, which are started with
// --no-node-snapshot, as isolated-vm requires on Node 20+.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { main } = require('../dist/bundle/cli.cjs');

// `evalrun ... | head` closes stdout early: the run still finishes and writes its scorecard.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
