import path from 'node:path';
import type { SolutionDiscoveryContext } from './submission.js';

export interface PathIds {
  problemId: string;
  modelId: string;
  promptId: string | null;
}

export function stemOf(name: string): string {
  const ext = path.extname(name);
  return ext === '' ? name : name.slice(0, -ext.length);
}

/** The folder `levelsUp` above the file, or the solutions folder's name at the top. */
function folderName(parts: readonly string[], levelsUp: number, ctx: SolutionDiscoveryContext): string {
  return parts[parts.length - 1 - levelsUp] ?? ctx.rootName;
}

/** Rules a–c of the comment atop discover.ts. */
export function idsFromPath(parts: readonly string[], ctx: SolutionDiscoveryContext): PathIds | null {
  const stem = stemOf(parts[parts.length - 1] as string);
  if (ctx.known.has(stem)) return { problemId: stem, promptId: null, modelId: folderName(parts, 1, ctx) };
  const dotted = splitProblemAndPrompt(stem, ctx.known);
  if (dotted !== null) return { ...dotted, modelId: folderName(parts, 1, ctx) };
  const parent = parts[parts.length - 2];
  if (parent !== undefined && ctx.known.has(parent)) {
    return { problemId: parent, promptId: stem, modelId: folderName(parts, 2, ctx) };
  }
  return null;
}

/** `<problem>.<prompt>`, taking the longest known problem id before a dot. */
function splitProblemAndPrompt(stem: string, known: ReadonlySet<string>): { problemId: string; promptId: string } | null {
  for (let dot = stem.lastIndexOf('.'); dot > 0; dot = stem.lastIndexOf('.', dot - 1)) {
    const problemId = stem.slice(0, dot);
    const promptId = stem.slice(dot + 1);
    if (known.has(problemId) && promptId !== '') return { problemId, promptId };
  }
  return null;
}

/** Model and prompt for a solution object that names its problem itself. */
export function pathIdsForProblem(parts: readonly string[], problemId: string, ctx: SolutionDiscoveryContext): PathIds {
  const ids = idsFromPath(parts, ctx);
  if (ids !== null && ids.problemId === problemId) return ids;
  return { problemId, promptId: null, modelId: folderName(parts, 1, ctx) };
}

export function unknownPathReason(parts: readonly string[]): string {
  const stem = stemOf(parts[parts.length - 1] as string);
  const parent = parts[parts.length - 2];
  const tried = parent === undefined ? `"${stem}"` : `"${stem}" or folder "${parent}"`;
  return `unknown problem: no problem file has the identifier ${tried}`;
}

export function unknownProblemReason(problemId: string): string {
  return `unknown problem "${problemId}": no problem file has this identifier`;
}
