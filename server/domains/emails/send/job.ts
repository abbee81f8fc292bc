import { retryDelayMs } from '../../../jobs/backoff.js';
import { defineJobKind } from '../../../jobs/kinds.js';
import type { Deps } from '../../../deps.js';
import type { Tenancy } from '../../../access/context.js';
import { categoryDecision } from '../../notifications/delivery-rules.js';
import { enqueueEmail } from '../delivery.js';
import { sealEmailBody } from '../sealed-body.js';
import { renderOwnerEmail, type SandboxRendered } from '../sandbox/index.js';
import * as q from '../content/queries.js';
import { parseSendBatchPayload, type SendBatchPayload } from './payload.js';

/**
 * The job of send-email: renders one batch of recipients (the sources were fixed and checked when
 * the request was answered; the compiled script is cached by source hash, so each recipient costs
 * one sandbox run, never a compile), asks the notification rules whether each user still accepts
 * the category, and queues each message in the email outbox with its sent-list row. Safe to
 * repeat: a recipient whose row exists is skipped, so a retried batch sends nobody twice.
 */

/** Recipients rendered at once: the two sandbox workers stay busy while the host renders HTML. */
const CONCURRENCY = 4;

type Recipient = Awaited<ReturnType<typeof q.findRecipients>>[number];

type Branding = Awaited<ReturnType<typeof q.findProjectBranding>>;

async function renderFor(payload: SendBatchPayload, project: Branding, user: Recipient, unsubscribeUrl: string | null): Promise<SandboxRendered> {
  const { content } = payload;
  if (content.html !== null) return { html: content.html, text: '', subject: null, notificationCategory: null };
  return renderOwnerEmail(
    { template: content.template!, theme: content.theme },
    {
      user: { displayName: user.display_name, primaryEmail: user.primary_email },
      project: { displayName: project.display_name },
      variables: content.variables,
      unsubscribeLink: unsubscribeUrl,
      projectLogos: { logoUrl: project.logo_url, fullLogoUrl: project.full_logo_url },
    },
  );
}

async function sendTo(deps: Deps, payload: SendBatchPayload, project: Branding, tenancy: Tenancy, user: Recipient, emailId: string): Promise<void> {
  const { content } = payload;
  const base = { tenancy_id: tenancy.id, id: emailId, user_id: user.id, draft_id: content.draft_id, template_id: content.template_id, created_at: new Date() };
  const skip = (error: string) =>
    q.insertSent(deps.db, { ...base, to: user.primary_email, subject: content.subject ?? '', html: null, text: null, headers: null, sent_at: null, error });
  if (!user.primary_email) return void (await skip('The user has no primary email.'));
  const decision = await categoryDecision(deps.db, tenancy, user.id, content.category);
  if (!decision.send) return void (await skip(`The user turned off emails of the category ${content.category}.`));
  let rendered: SandboxRendered;
  try {
    rendered = await renderFor(payload, project, user, decision.unsubscribeUrl);
  } catch (error) {
    return void (await skip(`The email could not be rendered for this user: ${error instanceof Error ? error.message : String(error)}`));
  }
  const subject = content.subject ?? rendered.subject ?? '';
  const sealed = sealEmailBody(deps.env.secret, emailId, rendered);
  const to = user.primary_email;
  await deps.db.transaction().execute(async (trx) => {
    const headers = Object.keys(decision.headers).length > 0 ? JSON.stringify(decision.headers) : null;
    if (!(await q.insertSent(trx, { ...base, to, subject, html: sealed.html, text: sealed.text, headers, sent_at: new Date(), error: null }))) return;
    await enqueueEmail(trx, { id: emailId, tenancy_id: tenancy.id, to_email: to, subject, html: sealed.html, text: sealed.text });
  });
}

export const sendEmailJobKind = defineJobKind<SendBatchPayload, { sent: number }>({
  kind: 'email.send-batch',
  title: 'send-email batch',
  maxAttempts: 5,
  backoff: (failedAttempts) => retryDelayMs(failedAttempts, 10_000),
  parse: parseSendBatchPayload,

  async handle(job, { deps }) {
    const payload = job.payload;
    const tenancy: Tenancy = { id: payload.tenancy_id, projectId: payload.project_id, branchId: payload.branch_id };
    const users = new Map(
      (
        await q.findRecipients(
          deps.db,
          tenancy.id,
          payload.recipients.map((r) => r.user_id),
        )
      ).map((u) => [u.id, u]),
    );
    if (payload.scheduled_send_id !== undefined) {
      // A scheduled send leaves the scheduled list when its first batch runs; its draft counts as
      // sent from then (not from when it was scheduled).
      await deps.db.transaction().execute(async (trx) => {
        const started = await q.startScheduledSend(trx, tenancy.id, payload.scheduled_send_id!);
        if (started?.draft_id) await q.markDraftSent(trx, tenancy.id, started.draft_id);
      });
    }
    const project = await q.findProjectBranding(deps.db, payload.project_id);
    const todo: SendBatchPayload['recipients'] = [];
    for (const recipient of payload.recipients) {
      if (users.has(recipient.user_id) && !(await q.sentExists(deps.db, tenancy.id, recipient.email_id))) todo.push(recipient);
    }
    let next = 0;
    const lanes = Array.from({ length: Math.min(CONCURRENCY, todo.length) }, async () => {
      while (next < todo.length) {
        const recipient = todo[next++]!;
        await sendTo(deps, payload, project, tenancy, users.get(recipient.user_id)!, recipient.email_id);
      }
    });
    await Promise.all(lanes);
    return { sent: todo.length };
  },
});
