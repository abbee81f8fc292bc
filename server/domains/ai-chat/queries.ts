import type { Executor } from '../../db/executor.js';

export async function insertMessage(db: Executor, tenancyId: string, threadId: string, id: string, message: string): Promise<void> {
  await db.insertInto('ai_chat_messages').values({ tenancy_id: tenancyId, thread_id: threadId, id, message }).execute();
}

export async function listMessages(db: Executor, tenancyId: string, threadId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('ai_chat_messages')
    .select('message')
    .where('tenancy_id', '=', tenancyId)
    .where('thread_id', '=', threadId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.message);
}

export async function countMessages(db: Executor, tenancyId: string, threadId: string): Promise<number> {
  const row = await db
    .selectFrom('ai_chat_messages')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenancy_id', '=', tenancyId)
    .where('thread_id', '=', threadId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
