import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'coverage/**', '.tmp/**', 'dist/**', 'dist.*/**', 'web/node_modules/**', 'web/dist/**', 'web/src/api/schema.d.ts', 'artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  // The service's source: type-aware rules, no `any`.
  {
    files: ['src/**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // SQL only in repository files and src/db/ (test/structure.test.ts checks string literals too).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**', 'src/**/repository.ts', 'src/**/*.repository.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['kysely', '**/db/kysely.ts'], message: 'SQL belongs in a repository file (repository.ts or *.repository.ts) or src/db/.' },
          ],
        },
      ],
    },
  },
  // The web app: React's rules of hooks and the React Compiler's checks (eslint-plugin-react-hooks,
  // recommended), effect dependencies complete, and no `any` (issue 29).
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs['recommended-latest'].rules,
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // The unit tests share loaded modules between test files (vitest.config.ts, `isolate: false`), so
  // a test file may not replace modules or globals that later files would inherit.
  {
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='vi'][callee.property.name=/^(mock|doMock|unmock|stubEnv|stubGlobal|useFakeTimers|resetModules)$/]",
          message: 'Test files share loaded modules (vitest.config.ts: isolate false): pass the dependency to createTestContext (its env or options), or use a test hook restored in afterAll.',
        },
        {
          selector: "AssignmentExpression[left.object.object.name='process'][left.object.property.name='env'], UnaryExpression[operator='delete'][argument.object.object.name='process'][argument.object.property.name='env']",
          message: 'Test files share one process (vitest.config.ts: isolate false): give the app its configuration through the env argument of createTestContext instead of process.env.',
        },
      ],
    },
  },
  { files: ['src/cli.ts', 'bench/**', 'scripts/**'], rules: { 'no-console': 'off' } },
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: { console: 'readonly', process: 'readonly' } } },
);
