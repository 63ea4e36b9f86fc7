import type { InvalidProblemFile, PreparedProblem } from './prepared.js';

/**
 * Reads and checks one problem file, importing the loader (TypeBox schema,
 * decoders) on first use. The supervisor and the workers both read files
 * this way: `--help` and `--version` never pay for the loader, and a worker
 * that never reads a file starts without it.
 */
export async function loadProblemLazily(file: string): Promise<PreparedProblem | InvalidProblemFile> {
  const { loadProblemFile } = await import('./load.js');
  return loadProblemFile(file);
}

/** Checks a problem given as JSON text (the grading service's problems), importing the loader on first use. */
export async function loadProblemTextLazily(text: string, file: string): Promise<PreparedProblem | InvalidProblemFile> {
  const { loadProblemText } = await import('./load.js');
  return loadProblemText(text, file);
}
