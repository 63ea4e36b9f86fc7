/**
 * The import rules of src/ (docs/ARCHITECTURE.md): no cycles, and layers
 * that import only downwards. test/unit/architecture.test.ts runs this;
 * `npx depcruise src` does the same by hand.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Imports flow one way.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'cli-is-the-top',
      comment: 'Only the CLI imports the CLI.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'values-stand-alone',
      comment: 'Values (types, decoding, comparison, the wire format) depend on nothing else of evalrun.',
      severity: 'error',
      from: { path: '^src/values/' },
      to: { path: '^src/', pathNot: '^src/(values/|defaults[.]ts$)' },
    },
    {
      name: 'folders-stand-alone',
      comment: 'The folder walk serves problems, solutions and engines alike, so it knows none of them.',
      severity: 'error',
      from: { path: '^src/folders/' },
      to: { path: '^src/', pathNot: '^src/folders/' },
    },
    {
      name: 'problems-below-the-run',
      comment: 'Reading problem files needs only values and the folder walk.',
      severity: 'error',
      from: { path: '^src/problems/' },
      to: { path: '^src/', pathNot: '^src/(problems|values|folders)/|^src/(defaults|package-root|write-text)[.]ts$' },
    },
    {
      name: 'reports-never-run-code',
      comment: 'Reports render results; they never reach the sandbox or the problems loader.',
      severity: 'error',
      from: { path: '^src/report/' },
      to: { path: '^src/(sandbox-host|engines|problems|solutions|merge)/' },
    },
    {
      name: 'worker-side-never-reaches-cli-or-reports',
      comment: 'The sandbox side serves the run; it never reaches the CLI, a reporter, the run, grading or the run log.',
      severity: 'error',
      from: { path: '^src/(sandbox-host|engines)/' },
      to: { path: '^src/(cli|report|merge|runner|grading|runlog)/' },
    },
    {
      name: 'workers-below-the-run',
      comment:
        'The workers layer (the pool, its messages, recovery and the worker program) serves the run: it never reaches the CLI, the run, the run log or a reporter; of reports it knows only the row and record types the worker writes.',
      severity: 'error',
      from: { path: '^src/workers/' },
      to: { path: '^src/(cli|runner|runlog|merge)/|^src/report/(?!rows[.]ts$|scorecard[.]ts$)' },
    },
    {
      name: 'service-below-the-cli',
      comment:
        'The grading service (the grader, its problems, its HTTP routes) sends candidates through the route a run uses; it never reaches the CLI, the run itself, the run log or a merge.',
      severity: 'error',
      from: { path: '^src/service/' },
      to: { path: '^src/(cli|runlog|merge)/|^src/runner/(?!route[.]ts$)' },
    },
    {
      name: 'only-the-cli-and-the-library-reach-the-service',
      comment: 'The service sits beside the run, under the CLI: nothing below it imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|service)/|^src/index[.]ts$' },
      to: { path: '^src/service/' },
    },
    {
      name: 'grading-below-the-run',
      comment: 'Grading turns a candidate into a job and its verdicts into results; it never reaches the run, the run log or the CLI.',
      severity: 'error',
      from: { path: '^src/grading/' },
      to: { path: '^src/(cli|runner|runlog|merge|workers)/' },
    },
    {
      name: 'run-log-only-keeps-lines',
      comment: 'The run log appends and reads back lines; it never grades, plans or renders (it names the shard record type the header carries).',
      severity: 'error',
      from: { path: '^src/runlog/' },
      to: { path: '^src/(cli|runner|grading|merge|sandbox-host|engines|solutions|workers)/', pathNot: '^src/runner/shard-records[.]ts$' },
    },
    {
      name: 'engines-below-the-worker',
      comment: 'Engines run code in isolates for the worker; they know the job types and values, nothing of grading or the run.',
      severity: 'error',
      from: { path: '^src/engines/' },
      to: { path: '^src/', pathNot: '^src/(engines|values|folders)/|^src/sandbox-host/protocol[.]ts$|^src/(defaults|package-root)[.]ts$' },
    },
    {
      name: 'one-folder-per-language',
      comment: 'A language folder uses what engines share, never another language (adding a language is one folder).',
      severity: 'error',
      from: { path: '^src/engines/([^/]+)/' },
      to: { path: '^src/engines/[^/]+/', pathNot: '^src/engines/$1/' },
    },
    {
      name: 'only-descriptors-leave-a-language-folder',
      comment: 'Outside its folder, a language is known by its descriptor (language.ts) alone; its engine is loaded through the descriptor.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/engines/[^/]+/' },
      to: { path: '^src/engines/[^/]+/', pathNot: '^src/engines/[^/]+/language[.]ts$' },
    },
    {
      name: 'shared-engine-parts-know-no-language',
      comment: 'The engine interface, batch driver, frames and registry serve every language; only the list of languages names them.',
      severity: 'error',
      from: { path: '^src/engines/[^/]+[.]ts$', pathNot: '^src/engines/languages[.]ts$' },
      to: { path: '^src/engines/[^/]+/' },
    },
    {
      name: 'supervisor-reads-descriptors-not-engines',
      comment:
        'The supervisor never runs code: of engines/ it reads the descriptors, their list and its look-ups, never an engine (only the worker program reaches the registry).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/engines/|^src/workers/worker-process[.]ts$' },
      to: { path: '^src/engines/', pathNot: '^src/engines/(descriptor|languages|find-language)[.]ts$|^src/engines/[^/]+/language[.]ts$' },
    },
    {
      name: 'descriptors-stay-light',
      comment:
        'A descriptor is read by the supervisor: it loads its engine only lazily (import() in loadEngine) and imports none of the engine machinery or the sandbox side ' +
        '(npm packages are not cruised: test/unit/add-a-language.test.ts checks that reading every descriptor loads no isolated-vm).',
      severity: 'error',
      from: { path: '^src/engines/[^/]+/language[.]ts$' },
      to: { path: '^src/engines/(engine|batch-driver|frames|prelude|registry)[.]ts$|^src/sandbox-host/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
