import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import type { sendEmailResultSchema, sendEmailSchema, sentUserEmailSchema } from '../../../../contract/schemas/email-content.js';
import type { emailListQuerySchema } from '../../../../contract/schemas/emails.js';
import type { AuthContext } from '../../../access/context.js';
import type { Deps } from '../../../deps.js';
import { enqueueMany } from '../../../jobs/outbox.js';
import * as q from '../content/queries.js';
import { fromThemeColumns, renderOrThrow, sampleInput, type ThemeChoice, themeSourceFor } from '../content/render.js';
import { findTemplateRow } from '../content/templates.js';
import { SEND_BATCH_SIZE, sendEmailJobKind } from './job.js';
import { keysetPage } from '../service.js';
import type { SendBatchPayload } from './payload.js';

type SendEmailInput = z.infer<typeof sendEmailSchema>;

/** The owner source (template or draft) the request names, with the theme it uses unless the request chose one. */
async function sourceOf(deps: Deps, auth: AuthContext, input: SendEmailInput): Promise<{ template: string; theme: ThemeChoice } | null> {
  if (input.template_id !== undefined) {
    const found = await findTemplateRow(deps.db, auth.tenancy, input.template_id);
    if (!found) throw new KnownErrors.EmailContentNotFound('template', input.template_id);
    return { template: found.row.tsx_source, theme: input.theme_id !== undefined ? input.theme_id : fromThemeColumns(found.row) };
  }
  if (input.draft_id !== undefined) {
    const draft = await q.findDraft(deps.db, auth.tenancy.id, input.draft_id);
    if (!draft) throw new KnownErrors.EmailContentNotFound('draft', input.draft_id);
    return { template: draft.tsx_source, theme: input.theme_id !== undefined ? input.theme_id : fromThemeColumns(draft) };
  }
  return null;
}

/**
 * `POST /emails/send-email`: everything is checked before anything is queued (the project's own
 * email server, the recipients, the template with the request's variables, rendered once), then
 * one job per batch of recipients is written in one transaction and the call answers at once with
 * the id each recipient's email will have. Rendering and the preference check happen per user in
 * the jobs (job.ts).
 */
export async function sendEmail(deps: Deps, auth: AuthContext, input: SendEmailInput): Promise<z.infer<typeof sendEmailResultSchema>> {
  // The deployment's shared server carries sign-in emails; an owner's own mailings need their own server.
  if (auth.project.config.email_config.type !== 'standard') throw new KnownErrors.RequiresCustomEmailServer();
  const users = await q.findRecipients(deps.db, auth.tenancy.id, input.all_users ? 'all' : input.user_ids!);
  if (input.user_ids) {
    const found = new Set(users.map((u) => u.id));
    const missing = [...new Set(input.user_ids)].filter((id) => !found.has(id));
    if (missing.length > 0) throw new KnownErrors.EmailRecipientsNotFound(missing);
  }
  const source = await sourceOf(deps, auth, input);
  const theme = source ? await themeSourceFor(deps.db, auth.tenancy, auth.project, source.theme) : null;
  let category = input.notification_category_name ?? 'Transactional';
  if (source) {
    // Unknown variables, ones the schema refuses, a template that throws: a 400 now, not a job failing later.
    const checked = await renderOrThrow(source.template, theme, sampleInput(auth.project, input.variables ?? {}));
    category = input.notification_category_name ?? checked.notificationCategory ?? 'Transactional';
  }
  const content: SendBatchPayload['content'] = {
    template: source?.template ?? null,
    theme,
    html: input.html ?? null,
    variables: input.variables ?? {},
    subject: input.subject ?? null,
    category,
    template_id: input.template_id ?? null,
    draft_id: input.draft_id ?? null,
  };
  const results = users.map((u) => ({ user_id: u.id, email_id: randomUUID() }));
  const batches: { payload: SendBatchPayload; options: { tenancyId: string } }[] = [];
  for (let i = 0; i < results.length; i += SEND_BATCH_SIZE) {
    const payload: SendBatchPayload = {
      tenancy_id: auth.tenancy.id,
      project_id: auth.tenancy.projectId,
      branch_id: auth.tenancy.branchId,
      content,
      recipients: results.slice(i, i + SEND_BATCH_SIZE),
    };
    batches.push({ payload, options: { tenancyId: auth.tenancy.id } });
  }
  await deps.db.transaction().execute(async (trx) => {
    // Every batch's job in one statement (200 jobs for ten thousand users): the call answers at once.
    await enqueueMany(trx, sendEmailJobKind, batches);
    if (input.draft_id !== undefined) await q.markDraftSent(trx, auth.tenancy.id, input.draft_id);
  });
  return { results };
}

type SentUserEmail = z.infer<typeof sentUserEmailSchema>;

function toDto(row: q.SentRow): SentUserEmail {
  return {
    id: row.id,
    to: row.to,
    user_id: row.user_id,
    subject: row.subject,
    sent_at_millis: row.sent_at?.getTime() ?? null,
    error: row.error,
    draft_id: row.draft_id,
    template_id: row.template_id,
    created_at_millis: row.created_at.getTime(),
  };
}

/** `GET /internal/emails/sent`: what send-email rendered (or skipped), newest first; each id is also the outbox email's. */
export function listSent(deps: Deps, auth: AuthContext, input: z.infer<typeof emailListQuerySchema>) {
  return keysetPage(input, (options) => q.listSent(deps.db, auth.tenancy.id, options), toDto);
}
