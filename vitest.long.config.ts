import { defineConfig } from 'vitest/config';

/**
 * `npm run test:long`: durability and soak (server/**\/*.long.test.ts), minutes long, never part
 * of `npm test`. One file at a time: they measure the machine.
 */
export default defineConfig({
  test: {
    include: ['server/**/*.long.test.ts'],
    // The API harness's database templates (oauth-callback.long.test.ts uses the harness).
    globalSetup: ['server/test/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default', './server/test/summary-reporter.ts'],
  },
});
