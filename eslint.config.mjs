// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** The one file that may import NestJS internals (deep @nestjs/* paths). */
const NEST_INTERNALS = 'libs/framework/src/nest/nest-internals.ts';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'libs/*/dist/**',
      'node_modules/**',
      'bench/results/**',
      'docs/reference/api/**',
      'coverage/**',
      'eslint.config.mjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  {
    // NestJS's semver covers its packages' roots only: a deep path may move in any release.
    files: ['**/*.{ts,mts,cts,js,mjs,cjs}'],
    ignores: [NEST_INTERNALS],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@nestjs/[^/]+/.+',
              message: `A deep @nestjs/* path is a NestJS internal, not covered by its semver: import it in ${NEST_INTERNALS} (with its entry in the table of its spec) and import it from there.`,
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':matches(CallExpression[callee.name="require"], ImportExpression) > Literal[value=/^@nestjs\\u002F[^\\u002F]+\\u002F/]',
          message: `A deep @nestjs/* path is a NestJS internal, not covered by its semver: load it in ${NEST_INTERNALS} (with its entry in the table of its spec) and import it from there.`,
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Plain CommonJS run by a bare node (the TypeScript require hook of @once/testing).
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // A team's own repository, typed against the packed @once/* packages it installs:
  // test/examples installs and type-checks it on its own.
  { ignores: ['examples/**'] },
);
