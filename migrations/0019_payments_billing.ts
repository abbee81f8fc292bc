import type { Kysely } from 'kysely';

/** Subscriptions, invoices, refunds and disputes for payments (issue 18). Reserved; filled by its branch. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
