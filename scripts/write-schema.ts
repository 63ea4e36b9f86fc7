/**
 * Writes the problem-file JSON Schema to `dist/problem.schema.json`.
 * Runs from `dist/scripts/` after `tsc` (see `npm run build`): the schema is
 * generated from the TypeBox source in src/problems/schema.ts, never kept by hand.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { problemJsonSchema } from '../src/problems/schema.js';

// Relative to this compiled file (dist/scripts/), so the cwd does not matter.
const target = new URL('../problem.schema.json', import.meta.url);

await mkdir(new URL('.', target), { recursive: true });
await writeFile(target, JSON.stringify(problemJsonSchema(), null, 2) + '\n', 'utf8');
console.log(`wrote ${fileURLToPath(target)}`);
