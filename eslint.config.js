import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  { files: ['src/cli.ts', 'bench/**', 'scripts/**'], rules: { 'no-console': 'off' } },
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: { console: 'readonly', process: 'readonly' } } },
);
