import picomatch from 'picomatch';

/**
 * What a run selects, like a test runner's filters. Each list is OR-ed
 * within itself and AND-ed with the others; an empty list selects all.
 * Problem and model filters are globs over ids (`sort_*`, `gpt-4*`), tag
 * filters are exact tag names.
 */
export interface Filters {
  problems: readonly string[];
  tags: readonly string[];
  models: readonly string[];
}

export const NO_FILTERS: Filters = { problems: [], tags: [], models: [] };

export interface Selector {
  problem: (id: string, tags: readonly string[]) => boolean;
  model: (id: string) => boolean;
}

export function selector(filters: Filters): Selector {
  const problemMatch = anyGlob(filters.problems);
  const modelMatch = anyGlob(filters.models);
  const wantedTags = new Set(filters.tags);
  return {
    problem: (id, tags) => problemMatch(id) && (wantedTags.size === 0 || tags.some((t) => wantedTags.has(t))),
    model: modelMatch,
  };
}

function anyGlob(globs: readonly string[]): (id: string) => boolean {
  if (globs.length === 0) return () => true;
  // Ids are not paths: `*` must match a `/` inside an id as well.
  const matchers = globs.map((g) => picomatch(g, { dot: true, bash: true }));
  return (id) => matchers.some((m) => m(id));
}
