import { defineConfig } from 'vitest/config';

// VITEST_JSON=<file> adds a JSON report (used by .ci/run for its closing
// "N passed, N failed" line).
const json = process.env['VITEST_JSON'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'functions/**/*.test.ts', 'cli/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Any test that reaches a core's internal-error Fatal fails (issue 18).
    setupFiles: ['test/setup/no-internal-error.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    reporters: json ? ['default', ['json', { outputFile: json }]] : ['default'],
  },
});
