// ESLint: typescript-eslint's recommended rules over the sources, tests, benchmarks and scripts, and
// over the console's browser scripts (assets/console/*.js) with the globals of their own scope.
// Formatting is Prettier's (.prettierrc.json); `npm run lint` runs both checks, and .ci/run runs it
// before the suite. Imports are sorted (eslint-plugin-simple-import-sort, fixed by `npm run format`):
// one order, so a file's dependencies read alike everywhere and merges do not fight over them.
import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'build/', 'deps/', 'data/', 'models/', 'prebuilds/', 'test/.cache/', 'bench/.cache/', '.tap/', '.ci/node/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node's globals everywhere but in the browser's scripts, which get their own below.
    ignores: ['assets/**'],
    languageOptions: { globals: globals.node },
  },
  {
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // A leading underscore marks a parameter an interface requires and this implementation does not
      // read; a rest sibling drops the named fields from a copy (`const { secret, ...shown } = record`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests and benchmarks read JSON answers of every shape the service gives; typing each one would
    // restate the OpenAPI document the tests already validate answers against.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The console's browser scripts: module scripts of its pages, served as they are (no build step).
    files: ['assets/console/**/*.js'],
    ignores: ['assets/console/playground-microphone.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    // The realtime tab's audio worklet runs in an AudioWorkletGlobalScope, not a window.
    files: ['assets/console/playground-microphone.js'],
    languageOptions: { sourceType: 'module', globals: globals.audioWorklet },
  },
);
