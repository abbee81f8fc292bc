import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import {
  MAX_SCHEDULE_AHEAD_MS,
  type scheduledSendSchema,
  type sendEmailResultSchema,
  type sendEmailSchema,
  type sentUserEmailSchema,
} from '../../../../contract/schemas/email-content.js';
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
  const now = Date.now();
  // A time already past (or the client's clock a little behind) sends at once, unscheduled.
  const runAt = input.scheduled_at_millis !== undefined && input.scheduled_at_millis > now ? new Date(input.scheduled_at_millis) : null;
  if (runAt && runAt.getTime() > now + MAX_SCHEDULE_AHEAD_MS) throw new KnownErrors.EmailScheduleTooFar(runAt.getTime(), now + MAX_SCHEDULE_AHEAD_MS);
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
    const checked = await renderOrThrow(auth.tenancy.id, source.template, theme, sampleInput(auth.project, input.variables ?? {}));
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
  const scheduledSendId = runAt ? randomUUID() : undefined;
  const batches: { payload: SendBatchPayload; options: { tenancyId: string; runAt?: Date } }[] = [];
  for (let i = 0; i < results.length; i += SEND_BATCH_SIZE) {
    const payload: SendBatchPayload = {
      tenancy_id: auth.tenancy.id,
      project_id: auth.tenancy.projectId,
      branch_id: auth.tenancy.branchId,
      content,
      recipients: results.slice(i, i + SEND_BATCH_SIZE),
      ...(scheduledSendId ? { scheduled_send_id: scheduledSendId } : {}),
    };
    // A scheduled send's batches are ordinary jobs whose first attempt is due at that time.
    batches.push({ payload, options: { tenancyId: auth.tenancy.id, ...(runAt ? { runAt } : {}) } });
  }
  await deps.db.transaction().execute(async (trx) => {
    if (runAt) {
      await q.insertScheduledSend(trx, auth.tenancy.id, {
        id: scheduledSendId!,
        scheduled_at: runAt,
        subject: input.subject ?? null,
        draft_id: input.draft_id ?? null,
        template_id: input.template_id ?? null,
        recipient_count: results.length,
        created_at: new Date(now),
      });
    }
    // Every batch's job in one statement (200 jobs for ten thousand users): the call answers at once.
    await enqueueMany(trx, sendEmailJobKind, batches);
    // A scheduled draft is marked sent by its first batch (job.ts), when it really goes out.
    if (input.draft_id !== undefined && !runAt) await q.markDraftSent(trx, auth.tenancy.id, input.draft_id);
  });
  return { results, scheduled_at_millis: runAt?.getTime() ?? null };
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
  // The console's list (lag-tolerant: the read replica when there is one).
  return keysetPage(input, (options) => q.listSent(deps.readDb, auth.tenancy.id, options), toDto);
}

/** `GET /internal/emails/scheduled`: send-email calls waiting for their time, soonest first. */
export async function listScheduled(deps: Deps, auth: AuthContext): Promise<z.infer<typeof scheduledSendSchema>[]> {
  return (await q.listScheduledSends(deps.db, auth.tenancy.id)).map((row) => ({
    id: row.id,
    scheduled_at_millis: new Date(row.scheduled_at).getTime(),
    subject: row.subject,
    draft_id: row.draft_id,
    template_id: row.template_id,
    recipient_count: Number(row.recipient_count),
    created_at_millis: new Date(row.created_at).getTime(),
  }));
}
