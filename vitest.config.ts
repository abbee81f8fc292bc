import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'server/**/*.test.ts',
      'contract/**/*.test.ts',
      'sdk/**/*.test.ts',
      'migrations/**/*.test.ts',
      'react-ui/**/*.test.{ts,tsx}',
      'admin-web/**/*.test.{ts,tsx}',
      'scripts/**/*.test.ts',
      'examples/**/*.test.{ts,tsx}',
    ],
    // *.long.test.ts: durability and soak, `npm run test:long` only (vitest.long.config.ts);
    // *.cluster.test.ts: the local cluster, `npm run test:cluster` only (vitest.cluster.config.ts).
    exclude: ['**/node_modules/**', '**/*.e2e.test.ts', '**/*.long.test.ts', '**/*.cluster.test.ts'],
    globalSetup: ['server/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for something eventual (a page's refetch, the email worker's turn): vitest's
    // 1 s default was too short on a loaded 2-core machine (a console search's debounced request
    // landed after it); a poll that never succeeds still fails, after 10 s.
    expect: { poll: { timeout: 10_000 } },
    // Two cores: two test files at a time, each with its own server and database.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './server/test/summary-reporter.ts'],
    // The Stack Auth SDK (server/compat/stack-sdk.test.ts) ships ESM with extensionless relative
    // imports that Node's resolver refuses: let vite resolve and transform it.
    server: { deps: { inline: [/@stackframe\/(js|stack-shared)/] } },
  },
});
