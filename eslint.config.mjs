// ESLint (pinned in package-lock.json), run in check mode by scripts/test.sh: `npx eslint .`
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['build/', 'dist/', 'node_modules/'] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none', argsIgnorePattern: '^_' }],
      'prefer-const': ['error', { destructuring: 'all' }],
      'no-var': 'error',
      eqeqeq: ['error', 'smart'],
      'no-implicit-globals': 'error',
      'no-shadow-restricted-names': 'error',
    },
  },
];
