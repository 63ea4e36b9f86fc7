#!/bin/sh
':' //; unset NODE_EXTRA_CA_CERTS; exec node "$0" "$@"
// The two lines above are read by sh and by Node alike. For sh they start
// Node on this file without NODE_EXTRA_CA_CERTS: Node parses that
// certificate bundle before any JavaScript runs (35 to 55 ms of CPU here, on
// the path of every run), and evalrun never opens a network connection. For
// Node the second line is a string and a comment. `node bin/evalrun.js`
// also works; it just pays for the bundle.
//
// The CLI runs in this process; isolates run in worker processes that are
// started with --no-node-snapshot (see src/sandbox-host/worker-launch.ts),
// which is what isolated-vm requires on Node 20+. The CLI's bundle is
// compiled through the code cache the build wrote (src/code-cache.ts).
import { fileURLToPath } from 'node:url';
import { loadBundle } from '../dist/src/code-cache.js';

const { main } = loadBundle(fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url))).exports;

// `evalrun ... | head` closes stdout early: the run still finishes and writes its scorecard.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
