import type { TypeNode, Value } from '../values/type-node.js';
import type { Problem } from './schema.js';

/** One test, decoded by its declared types and ready to run. */
export interface PreparedTest {
  /** Position within its suite, from 0. */
  index: number;
  /** Where the test was written, as a JSON path: `$.correctness_test_suite[3]`. */
  source: string;
  /** Decoded arguments in `function_prototype.parameters` order. */
  args: Value[];
  /**
   * Decoded expected value: the value itself for one return value, an array
   * in `return_values` order for several, null for none.
   */
  expected: Value;
  /** The decoded arguments by parameter name, in parameter order: what records and reports show as the test's input. */
  input: Readonly<Record<string, Value>>;
}

/** A named list of tests: the correctness suite, or one prompt's samples. */
export interface PreparedSuite {
  kind: 'correctness' | 'sample';
  /** The prompt a sample suite belongs to; null for the correctness suite. */
  promptId: string | null;
  tests: PreparedTest[];
}

/** A valid problem file, decoded and ready for the runner. */
export interface PreparedProblem {
  /** Path of the file as given on the command line (relative when it was). */
  file: string;
  /** The validated document with defaults applied and unknown fields kept. */
  problem: Problem;
  id: string;
  functionName: string;
  parameterNames: string[];
  parameterTypes: TypeNode[];
  /**
   * How a returned value is compared: the single return type, a `tuple` of
   * the return types when there are several, `none` when there are none.
   */
  returnType: TypeNode;
  correctness: PreparedSuite;
  samples: PreparedSuite[];
  /** Non-fatal remarks, e.g. a missing `description` that was defaulted. */
  warnings: string[];
}

/** A file that could not be used, with every reason found. */
export interface InvalidProblemFile {
  file: string;
  /** The identifier, when the file got far enough to have one. */
  id: string | null;
  /** Each: `<file>: <json path>: <what was expected>`. */
  errors: string[];
}

/**
 * True for a file that could not be used, whatever is kept of the valid
 * ones. It lives beside the type, not with the file finder, so that a
 * sandbox worker can tell the two apart without loading the finder.
 */
export function isInvalidProblemFile<T extends object>(result: T | InvalidProblemFile): result is InvalidProblemFile {
  return 'errors' in result;
}

export interface LoadedProblems {
  problems: PreparedProblem[];
  invalid: InvalidProblemFile[];
}
