import { problemJsonSchema } from '../problems/schema.js';

export function printSchema(): number {
  process.stdout.write(`${JSON.stringify(problemJsonSchema(), null, 2)}\n`);
  return 0;
}
