import type { Transaction } from 'kysely';
import type { Database } from './kysely.js';
import type { DB } from './schema.js';

/** What every query function takes first: the database, or the transaction a service opened. */
export type Executor = Database | Transaction<DB>;
