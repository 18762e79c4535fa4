import { defineConfig } from 'vitest/config';

/**
 * Test files that keep no state outside the server each one starts (no process.env, timers,
 * nock, child processes or signal handlers of their own) share their worker's modules
 * (`isolate: false`): each worker imports the server once instead of once per file, which
 * was most of such a file's time. A file that needs a fresh module registry (the OpenAPI
 * coverage test counts what its own file answered) stays out of this list.
 */
const SHARED_MODULES = [
  'src/**/*.test.ts',
  'test/abilities.test.ts',
  'test/board-moves.test.ts',
  'test/cards.test.ts',
  'test/credential-ceilings.test.ts',
  'test/editing.test.ts',
  'test/member-removal.test.ts',
  'test/milestones.test.ts',
  'test/pagination.test.ts',
  'test/platform-auth.test.ts',
  'test/role-ladder.test.ts',
  'test/slack-commands.test.ts',
  'test/slack-connect.test.ts',
  'test/slack-modals.test.ts',
  'test/snippet-links.test.ts',
  'test/snippet-pagination.test.ts',
  'test/snippets.test.ts',
  'test/time-zone.test.ts',
  'test/todos.test.ts',
  'test/web-sessions.test.ts',
  'test/web-signin.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'shared', include: SHARED_MODULES, isolate: false } },
      // Domain tests sit beside the code they test (src/domain/*.test.ts); tests of the faces in test/.
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'web/src/**/*.test.tsx'], exclude: SHARED_MODULES } },
    ],
  },
});
