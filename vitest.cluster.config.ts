import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster` (issue 21): three Latch instances behind HAProxy on one PostgreSQL behind
 * PgBouncer (server/test/cluster/), a few minutes, never part of `npm test`. Needs PostgreSQL on
 * 127.0.0.1:5432, /usr/sbin/pgbouncer and /usr/sbin/haproxy; LATCH_CLUSTER_RESTART_PG=1 adds the
 * case that restarts PostgreSQL itself. read-replica.cluster.test.ts makes its own primary and
 * streaming replica with pg_createcluster and pg_basebackup (root only; about 1.5 minutes).
 */
export default defineConfig({
  test: {
    include: ['server/**/*.cluster.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default', './server/test/summary-reporter.ts'],
  },
});
