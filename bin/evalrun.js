#!/usr/bin/env node
// The CLI runs in this process, from the single CommonJS bundle the build
// writes (one file loads much faster than the module graph tsc emits).
// Isolates run in sandbox worker processes, which are started with
// --no-node-snapshot, as isolated-vm requires on Node 20+.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';

// This process routes candidates and keeps a small heap while its young
// generation grows to full size. V8's default rule then starts a full
// marking whenever the old generation's headroom is below the young
// generation's size, which for a small heap is always: it marked the whole
// heap every few seconds and freed next to nothing, CPU that the run's one
// supervisor spends and no worker can take over. Marking now starts when
// the old generation nears its limit. (V8 reads this flag each time it
// decides, so setting it here, before any work, takes effect.)
setFlagsFromString('--incremental-marking-soft-trigger=90');

const require = createRequire(import.meta.url);
const { main } = require('../dist/bundle/cli.cjs');

// `evalrun ... | head` closes stdout early: the run still finishes and writes its scorecard.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
