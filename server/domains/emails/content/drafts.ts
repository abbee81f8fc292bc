import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import type { emailDraftCreateSchema, emailDraftSchema, emailDraftUpdateSchema } from '../../../../contract/schemas/email-content.js';
import type { AuthContext } from '../../../access/context.js';
import type { Deps } from '../../../deps.js';
import { NEW_TEMPLATE_SOURCE } from './default-sources.js';
import * as q from './queries.js';
import { fromThemeColumns, toThemeColumns } from './render.js';
import { checkCompiles } from './templates.js';

/** `/internal/email-drafts`: one-off emails written in the console and sent once with send-email. */

type EmailDraft = z.infer<typeof emailDraftSchema>;

function toDto(row: q.DraftRow): EmailDraft {
  return {
    id: row.id,
    display_name: row.display_name,
    tsx_source: row.tsx_source,
    theme_id: fromThemeColumns(row),
    sent_at_millis: row.sent_at?.getTime() ?? null,
    scheduled_at_millis: row.scheduled_at === null ? null : new Date(row.scheduled_at).getTime(),
    created_at_millis: row.created_at.getTime(),
  };
}

export async function listDrafts(deps: Deps, auth: AuthContext): Promise<EmailDraft[]> {
  return (await q.listDrafts(deps.db, auth.tenancy.id)).map(toDto);
}

export async function getDraft(deps: Deps, auth: AuthContext, id: string): Promise<EmailDraft> {
  const row = await q.findDraft(deps.db, auth.tenancy.id, id);
  if (!row) throw new KnownErrors.EmailContentNotFound('draft', id);
  return toDto(row);
}

export async function createDraft(deps: Deps, auth: AuthContext, input: z.infer<typeof emailDraftCreateSchema>): Promise<EmailDraft> {
  const source = input.tsx_source ?? NEW_TEMPLATE_SOURCE;
  await checkCompiles(source);
  const id = randomUUID();
  await q.insertDraft(deps.db, auth.tenancy.id, { id, display_name: input.display_name, tsx_source: source, ...toThemeColumns(input.theme_id ?? null) });
  return getDraft(deps, auth, id);
}

export async function updateDraft(deps: Deps, auth: AuthContext, input: z.infer<typeof emailDraftUpdateSchema>): Promise<EmailDraft> {
  if (input.tsx_source !== undefined) await checkCompiles(input.tsx_source);
  await getDraft(deps, auth, input.draft_id);
  await q.updateDraft(deps.db, auth.tenancy.id, input.draft_id, {
    ...(input.display_name === undefined ? {} : { display_name: input.display_name }),
    ...(input.tsx_source === undefined ? {} : { tsx_source: input.tsx_source }),
    ...(input.theme_id === undefined ? {} : toThemeColumns(input.theme_id)),
  });
  return getDraft(deps, auth, input.draft_id);
}

export async function deleteDraft(deps: Deps, auth: AuthContext, id: string): Promise<void> {
  if (!(await q.deleteDraft(deps.db, auth.tenancy.id, id))) throw new KnownErrors.EmailContentNotFound('draft', id);
}
