import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Cleanups } from '../child-server.js';
import { queryRows } from '../query-rows.js';
import { freePort, waitForPort } from './processes.js';

/**
 * A PostgreSQL primary and a streaming replica of it, made for one test run with Debian's
 * postgresql-common tools (issue 21, item 4): `pg_createcluster` for the primary on a free port
 * (trust auth on 127.0.0.1, replication included), `pg_basebackup -R` for the replica (it writes
 * standby.signal and primary_conninfo), integrated with `pg_createcluster -d` (no second initdb),
 * both driven by `pg_ctlcluster`, removed with `pg_dropcluster --stop` by the cleanups. Needs root
 * (or the postgres user) like the tools themselves.
 */

export interface ReplicaPair {
  version: string;
  /** postgres://… of the test database on the primary and on the replica. */
  primaryUrl: string;
  replicaUrl: string;
  primaryPort: number;
  replicaPort: number;
  /** One statement on a fresh connection (it survives restarts between calls). */
  onPrimary: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]>;
  onReplica: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]>;
  stopReplica: () => void;
  startReplica: () => Promise<void>;
}

export const canCreateClusters = (): boolean =>
  existsSync('/usr/bin/pg_createcluster') && existsSync('/etc/postgresql') && (userInfo().uid === 0 || userInfo().username === 'postgres');

const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** As the postgres user: pg_basebackup must write files PostgreSQL may read. */
const asPostgres = (command: string, args: string[]) =>
  userInfo().uid === 0 ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);

export async function startReplicaPair(cleanups: Cleanups, database = 'latch'): Promise<ReplicaPair> {
  const version = readdirSync('/etc/postgresql').sort().at(-1)!;
  const tag = randomBytes(3).toString('hex');
  const primary = `latch_rr_${tag}_primary`;
  const replica = `latch_rr_${tag}_replica`;
  const primaryPort = await freePort();
  const replicaPort = await freePort();

  cleanups.push(() => {
    for (const name of [replica, primary]) {
      try {
        run('pg_dropcluster', ['--stop', version, name]);
      } catch {
        // Never created, or already gone.
      }
    }
  });
  // --auth=trust makes initdb write trust lines for 127.0.0.1, replication connections included.
  run('pg_createcluster', ['-p', String(primaryPort), version, primary, '--', '--auth=trust']);
  run('pg_ctlcluster', ['--skip-systemctl-redirect', version, primary, 'start']);
  await waitForPort(primaryPort, 60_000);
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/${database}`;
  await queryRows(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, `create database ${database}`);

  // The replica: a base backup of the primary in a new data directory, configured as a standby (-R),
  // then handed to postgresql-common with the few configuration files it expects to move to /etc.
  const dataDir = path.join('/var/lib/postgresql', version, replica);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const postgresUser = userInfo().uid === 0 ? run('id', ['-u', 'postgres']).trim() : String(userInfo().uid);
  const postgresGroup = userInfo().uid === 0 ? run('id', ['-g', 'postgres']).trim() : String(userInfo().gid);
  chownSync(dataDir, Number(postgresUser), Number(postgresGroup));
  asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream', '-c', 'fast']);
  writeFileSync(path.join(dataDir, 'postgresql.conf'), "listen_addresses = '127.0.0.1'\nhot_standby = on\n");
  for (const file of ['pg_hba.conf', 'pg_ident.conf']) copyFileSync(path.join('/etc/postgresql', version, primary, file), path.join(dataDir, file));
  for (const file of ['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf']) chownSync(path.join(dataDir, file), Number(postgresUser), Number(postgresGroup));
  run('pg_createcluster', ['-p', String(replicaPort), '-d', dataDir, version, replica]);
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/${database}`;

  const startReplica = async () => {
    run('pg_ctlcluster', ['--skip-systemctl-redirect', version, replica, 'start']);
    await waitForPort(replicaPort, 60_000);
    // Accepting connections as a hot standby (not "the database system is starting up").
    for (let i = 0; ; i++) {
      try {
        const [row] = await queryRows<{ standby: boolean }>(replicaUrl, 'select pg_is_in_recovery() as standby');
        if (!row?.standby) throw new Error('the replica is not in recovery: it is not a standby');
        return;
      } catch (error) {
        if (i > 120 || /not a standby/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  };
  await startReplica();

  return {
    version,
    primaryUrl,
    replicaUrl,
    primaryPort,
    replicaPort,
    onPrimary: (text, values) => queryRows(primaryUrl, text, values),
    onReplica: (text, values) => queryRows(replicaUrl, text, values),
    stopReplica: () => run('pg_ctlcluster', ['--skip-systemctl-redirect', '--mode', 'fast', version, replica, 'stop']),
    startReplica,
  };
}
