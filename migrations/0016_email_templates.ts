import type { Kysely } from 'kysely';

/** Email themes, templates, drafts, notification preferences and AI chat threads (issue 17). Placeholder reserved so parallel branches do not fight over the migration list; filled by its branch. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
