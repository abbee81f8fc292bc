import { openDatabase } from '../server/db/kysely.js';
import { migrateToLatest } from '../server/db/migrate.js';
import { loadEnv } from '../server/env.js';

/** `npm run migrate`: applies pending migrations to the configured database and exits. */
const env = loadEnv();
const { db, close } = await openDatabase(env.databaseUrl ? { kind: 'postgres', url: env.databaseUrl, poolSize: 2 } : { kind: 'pglite', dataDir: env.dataDir });
const applied = await migrateToLatest(db);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date');
await close();
