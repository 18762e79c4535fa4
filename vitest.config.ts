import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Domain tests sit beside the code they test (src/domain/*.test.ts); tests of the faces in test/.
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
