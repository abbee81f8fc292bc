import type { Kysely } from 'kysely';

/** Sent emails, notification categories and preferences, AI chat threads (issue 17 items 3, 4, 6). Reserved; filled by its branch. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
