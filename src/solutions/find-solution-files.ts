import { stat } from 'node:fs/promises';
import { isHiddenOrNodeModules, walkFolder } from '../folders/walk.js';
import { errorText, type FoundSolutionFiles, type SkippedSubmission, type SolutionFile } from './submission.js';

/**
 * Walks `dir` without reading a file, so that the files can be read
 * elsewhere (`readSolutionFile`, in walk order). Throws as
 * `discoverSubmissions` does for a missing or non-folder `dir`.
 */
export async function findSolutionFiles(dir: string): Promise<FoundSolutionFiles> {
  await assertFolder(dir);
  const files: SolutionFile[] = [];
  const skipped: SkippedSubmission[] = [];
  for (const entry of await walkFolder(dir, { ignore: isHiddenOrNodeModules })) {
    const { path: source } = entry;
    switch (entry.kind) {
      case 'file':
        files.push({ source, parts: entry.parts });
        break;
      case 'not-regular':
        skipped.push({ source, reason: 'not a regular file' });
        break;
      case 'broken-link':
        skipped.push({ source, reason: `unreadable: ${errorText(entry.error)}` });
        break;
      case 'unreadable-folder':
        skipped.push({ source, reason: `unreadable folder: ${errorText(entry.error)}` });
        break;
      case 'folder-loop':
      case 'folder-again':
        skipped.push({ source, reason: `folder already read (symbolic link to ${entry.real})` });
        break;
    }
  }
  return { files, skipped };
}

async function assertFolder(dir: string): Promise<void> {
  let info;
  try {
    info = await stat(dir);
  } catch (err) {
    throw new Error(`solutions folder not found: ${dir} (${errorText(err)})`, { cause: err });
  }
  if (!info.isDirectory()) throw new Error(`solutions path is not a folder: ${dir}`);
}
