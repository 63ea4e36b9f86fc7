// Lint rules, configured once for the whole codebase (`npm run lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'results/', 'test/fixtures/'] },
  {
    files: ['**/*.ts', '**/*.cts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore names what is left unused on purpose (a field taken out of a rest object).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // The HTML report's browser script is checked against the DOM's types, in its own project.
    files: ['src/report/page/**/*.ts'],
    languageOptions: {
      parserOptions: { project: './src/report/page/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Scripts evaluated inside the sandbox's isolate: plain JavaScript, no Node and no modules.
    files: ['sandbox/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'script', ecmaVersion: 2023 },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', ecmaVersion: 2023, globals: { process: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', ecmaVersion: 2023, globals: { module: 'writable', require: 'readonly' } },
  },
);
