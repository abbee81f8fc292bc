import { type Selectable, sql } from 'kysely';
import type { EmailScheduledSendsTable } from '../../../db/schema.js';
import type { Executor } from '../../../db/executor.js';
import type { KeysetPosition } from '../../../db/keyset-cursor.js';

/** Owner themes, templates, drafts and the send-email log (migration 0017), always per tenancy. */

export type ThemeMode = 'project' | 'none' | 'custom';

export interface ThemeRow {
  id: string;
  display_name: string;
  tsx_source: string;
}

export interface TemplateRow extends ThemeRow {
  type: string | null;
  theme_mode: ThemeMode;
  theme_id: string | null;
}

export interface DraftRow extends TemplateRow {
  sent_at: Date | null;
  created_at: Date;
  /** The earliest send of the draft scheduled for later whose jobs have not started, or null. */
  scheduled_at: Date | null;
}

const THEME_COLUMNS = ['id', 'display_name', 'tsx_source'] as const;
const TEMPLATE_COLUMNS = ['id', 'type', 'display_name', 'tsx_source', 'theme_mode', 'theme_id'] as const;
const DRAFT_COLUMNS = ['id', 'display_name', 'tsx_source', 'theme_mode', 'theme_id', 'sent_at', 'created_at'] as const;

/** A draft's pending scheduled send (migration 0022), in the same statement as the draft. */
const draftScheduledAt = sql<Date | null>`(select min(s.scheduled_at) from email_scheduled_sends s
  where s.tenancy_id = email_drafts.tenancy_id and s.draft_id = email_drafts.id and s.started_at is null)`.as('scheduled_at');

export async function listThemes(db: Executor, tenancyId: string): Promise<ThemeRow[]> {
  return db.selectFrom('email_themes').select(THEME_COLUMNS).where('tenancy_id', '=', tenancyId).orderBy('created_at').orderBy('id').execute();
}

export async function findTheme(db: Executor, tenancyId: string, id: string): Promise<ThemeRow | undefined> {
  return db.selectFrom('email_themes').select(THEME_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
}

/** Inserts or replaces a theme row (a built-in theme's first edit inserts the project's copy). */
export async function upsertTheme(db: Executor, tenancyId: string, row: ThemeRow): Promise<void> {
  await db
    .insertInto('email_themes')
    .values({ tenancy_id: tenancyId, ...row })
    .onConflict((oc) => oc.columns(['tenancy_id', 'id']).doUpdateSet({ display_name: row.display_name, tsx_source: row.tsx_source, updated_at: sql`now()` }))
    .execute();
}

export async function listTemplates(db: Executor, tenancyId: string): Promise<TemplateRow[]> {
  return db.selectFrom('email_templates').select(TEMPLATE_COLUMNS).where('tenancy_id', '=', tenancyId).orderBy('created_at').orderBy('id').execute();
}

export async function findTemplate(db: Executor, tenancyId: string, id: string): Promise<TemplateRow | undefined> {
  return db.selectFrom('email_templates').select(TEMPLATE_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
}

export async function findTemplateByType(db: Executor, tenancyId: string, type: string): Promise<TemplateRow | undefined> {
  return db.selectFrom('email_templates').select(TEMPLATE_COLUMNS).where('tenancy_id', '=', tenancyId).where('type', '=', type).executeTakeFirst();
}

export async function upsertTemplate(db: Executor, tenancyId: string, row: TemplateRow): Promise<void> {
  const { id: _id, ...rest } = row;
  await db
    .insertInto('email_templates')
    .values({ tenancy_id: tenancyId, ...row })
    .onConflict((oc) => oc.columns(['tenancy_id', 'id']).doUpdateSet({ ...rest, updated_at: sql`now()` }))
    .execute();
}

export async function deleteTemplate(db: Executor, tenancyId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('email_templates').where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A tenancy's drafts as DraftRows (with their scheduled time; drafts have no type). */
function tenancyDrafts(db: Executor, tenancyId: string) {
  return db
    .selectFrom('email_drafts')
    .select(DRAFT_COLUMNS)
    .select(draftScheduledAt)
    .select(sql<null>`null`.as('type'))
    .where('tenancy_id', '=', tenancyId);
}

export async function listDrafts(db: Executor, tenancyId: string): Promise<DraftRow[]> {
  return tenancyDrafts(db, tenancyId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function findDraft(db: Executor, tenancyId: string, id: string): Promise<DraftRow | undefined> {
  return tenancyDrafts(db, tenancyId).where('id', '=', id).executeTakeFirst();
}

export async function insertDraft(db: Executor, tenancyId: string, row: Omit<DraftRow, 'sent_at' | 'created_at' | 'type' | 'scheduled_at'>): Promise<void> {
  await db
    .insertInto('email_drafts')
    .values({ tenancy_id: tenancyId, ...row })
    .execute();
}

export async function updateDraft(
  db: Executor,
  tenancyId: string,
  id: string,
  patch: Partial<Pick<DraftRow, 'display_name' | 'tsx_source' | 'theme_mode' | 'theme_id'>>,
) {
  await db
    .updateTable('email_drafts')
    .set({ ...patch, updated_at: sql`now()` })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', id)
    .execute();
}

export async function markDraftSent(db: Executor, tenancyId: string, id: string): Promise<void> {
  await db
    .updateTable('email_drafts')
    .set({ sent_at: sql`now()` })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', id)
    .execute();
}

export async function deleteDraft(db: Executor, tenancyId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('email_drafts').where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export interface SentRow {
  id: string;
  to: string | null;
  user_id: string | null;
  subject: string;
  sent_at: Date | null;
  error: string | null;
  draft_id: string | null;
  template_id: string | null;
  created_at: Date;
}

const SENT_COLUMNS = ['id', 'to', 'user_id', 'subject', 'sent_at', 'error', 'draft_id', 'template_id', 'created_at'] as const;

export type NewSentRow = SentRow & { tenancy_id: string; html: string | null; text: string | null; headers: string | null };

/** A batch's sent-list rows in one statement; returns the ids that were new (a retried batch's existing rows are kept). */
export async function insertSentRows(db: Executor, rows: NewSentRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await db
    .insertInto('email_sent')
    .values(rows)
    .onConflict((oc) => oc.columns(['tenancy_id', 'id']).doNothing())
    .returning('id')
    .execute();
  return new Set(inserted.map((row) => row.id));
}

/** Which of these email ids already have a sent-list row (a retried batch skips them). */
export async function sentIdsIn(db: Executor, tenancyId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('email_sent').select('id').where('tenancy_id', '=', tenancyId).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

export async function listSent(db: Executor, tenancyId: string, options: { limit: number; before: KeysetPosition | null }): Promise<SentRow[]> {
  let query = db.selectFrom('email_sent').select(SENT_COLUMNS).where('tenancy_id', '=', tenancyId);
  if (options.before) {
    const { createdAt, id } = options.before;
    query = query.where(sql<boolean>`(created_at, id) < (${createdAt}, ${id})`);
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

/** Recipients of send-email: each user's id, display name and primary email (null without one). */
export async function findRecipients(db: Executor, tenancyId: string, userIds: string[] | 'all') {
  let query = db.selectFrom('users').select(['id', 'display_name', 'primary_email']).where('tenancy_id', '=', tenancyId);
  if (userIds !== 'all') query = query.where('id', 'in', userIds);
  return query.orderBy('id').execute();
}

/** What a project's emails show of it: its name and logos. */
export async function findProjectBranding(db: Executor, projectId: string) {
  return db.selectFrom('projects').select(['display_name', 'logo_url', 'full_logo_url']).where('id', '=', projectId).executeTakeFirstOrThrow();
}

/** A scheduled send as written and listed (the table's columns but its tenancy and start). */
export type ScheduledSendRow = Omit<Selectable<EmailScheduledSendsTable>, 'tenancy_id' | 'started_at'>;

export async function insertScheduledSend(db: Executor, tenancyId: string, row: ScheduledSendRow): Promise<void> {
  await db
    .insertInto('email_scheduled_sends')
    .values({ tenancy_id: tenancyId, ...row })
    .execute();
}

/** The tenancy's sends still waiting for their time, soonest first. */
export async function listScheduledSends(db: Executor, tenancyId: string): Promise<ScheduledSendRow[]> {
  return db
    .selectFrom('email_scheduled_sends')
    .select(['id', 'scheduled_at', 'subject', 'draft_id', 'template_id', 'recipient_count', 'created_at'])
    .where('tenancy_id', '=', tenancyId)
    .where('started_at', 'is', null)
    .orderBy('scheduled_at')
    .orderBy('id')
    .execute();
}

/**
 * Marks a scheduled send started (its first job runs); returns its draft id when this call did it,
 * so the draft is marked sent once (the other batches of the same send find it started).
 */
export async function startScheduledSend(db: Executor, tenancyId: string, id: string): Promise<{ draft_id: string | null } | undefined> {
  return db
    .updateTable('email_scheduled_sends')
    .set({ started_at: sql`now()` })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', id)
    .where('started_at', 'is', null)
    .returning('draft_id')
    .executeTakeFirst();
}

/** An owner (a user of the internal project) by id: where their previews go. */
export async function findOwnerEmail(db: Executor, internalProjectId: string, userId: string): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('tenancies as t', 't.id', 'u.tenancy_id')
    .select('u.primary_email')
    .where('t.project_id', '=', internalProjectId)
    .where('u.id', '=', userId)
    .executeTakeFirst();
  return row ? row.primary_email : undefined;
}
