import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/**
 * The folder that holds evalrun's package.json. Code runs both from `src/`
 * (tests) and from `dist/src/` (the built CLI), so the depth differs.
 */
export function packageRoot(): string {
  if (cached !== null) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'sandbox'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('evalrun: cannot find its own package folder');
    dir = parent;
  }
  cached = dir;
  return dir;
}
