import { statSync } from 'node:fs';

/** What a path names once links are followed, for options that want a file or a folder: `missing` when it cannot be looked up at all. */
export function pathKind(path: string): 'file' | 'folder' | 'other' | 'missing' {
  try {
    const stats = statSync(path);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'folder' : 'other';
  } catch {
    return 'missing';
  }
}
