/** A problem file of three tests (double a number), with an optimal_solution that spins forever when asked. */
export function doubleProblem(id: string, tags: string[], spins = false): object {
  return {
    identifier: id,
    description: 'Double a number.',
    tags,
    function_prototype: { function_name: 'double', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
    prompts: [],
    correctness_test_suite: [0, 1, 2].map((n) => ({ input: { n }, expected_output: [2 * n] })),
    optimal_solution: spins ? 'function double(n) { for (;;) {} }' : 'function double(n) { return 2 * n; }',
  };
}
