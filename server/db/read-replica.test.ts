import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, openPostgres } from './kysely.js';
import { REPLICA_RETRY_AFTER_MS, readReplicaDatabase, readReplicaStats } from './read-replica.js';
import { freePort } from '../test/cluster/processes.js';

/**
 * The read router without a replica server: a replica nobody listens on (connection refused) is the
 * unreachable case; the primary is an in-memory PGlite. The streaming replica itself, with lag and
 * a restart, is server/test/cluster/read-replica.cluster.test.ts.
 */
let primary: { db: Database; close: () => Promise<void> };
let readDb: Database;
let clock = 1_000_000;
const warnings: string[] = [];

beforeAll(async () => {
  primary = await openDatabase({ kind: 'pglite', dataDir: null });
  const refused = openPostgres({ url: `postgres://postgres@127.0.0.1:${await freePort()}/none`, poolSize: 2 }, 2_000);
  readDb = readReplicaDatabase(
    refused,
    primary.db,
    (message) => warnings.push(message),
    () => clock,
  );
});

afterAll(async () => {
  await readDb.destroy();
  await primary.close();
});

const answer = async () => (await sql<{ n: number }>`select 41 + 1 as n`.execute(readDb)).rows[0]!.n;

describe('readDb with an unreachable replica', () => {
  it('answers from the primary, skips the replica for the retry delay, then tries it again', async () => {
    const before = { ...readReplicaStats };
    expect(await answer()).toBe(42);
    expect(readReplicaStats.up).toBe(0);
    expect(readReplicaStats.fallbacks).toBe(before.fallbacks + 1);
    expect(warnings).toHaveLength(1);
    // Within the delay: straight to the primary, no new attempt on the replica.
    clock += REPLICA_RETRY_AFTER_MS - 1;
    expect(await answer()).toBe(42);
    expect(readReplicaStats.fallbacks).toBe(before.fallbacks + 1);
    // After it: the replica is tried again (and fails again, quietly: one warning per outage).
    clock += 1;
    expect(await answer()).toBe(42);
    expect(readReplicaStats.fallbacks).toBe(before.fallbacks + 2);
    expect(readReplicaStats.primary).toBe(before.primary + 3);
    expect(warnings).toHaveLength(1);
  });

  it('refuses writes and transactions instead of running them anywhere', async () => {
    await expect(readDb.deleteFrom('users').where('id', '=', randomUUID()).execute()).rejects.toThrow(/reads only/);
    await expect(sql`update users set display_name = 'x'`.execute(readDb)).rejects.toThrow(/reads only/);
    await expect(readDb.transaction().execute(async () => 1)).rejects.toThrow(/not transactions/);
  });
});
