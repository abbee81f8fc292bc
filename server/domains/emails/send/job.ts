import { retryDelayMs } from '../../../jobs/backoff.js';
import { defineJobKind } from '../../../jobs/kinds.js';
import type { Deps } from '../../../deps.js';
import type { Tenancy } from '../../../access/context.js';
import { type CategoryDecision, categoryDecisions } from '../../notifications/delivery-rules.js';
import { enqueueEmails } from '../delivery.js';
import type { NewEmail } from '../queries.js';
import { sealEmailBody } from '../sealed-body.js';
import { renderOwnerEmails, type SandboxInput, SandboxRenderError, type SandboxRendered } from '../sandbox/index.js';
import * as q from '../content/queries.js';
import { parseSendBatchPayload, type SendBatchPayload } from './payload.js';

/**
 * The job of send-email: one batch of recipients (the sources were fixed and checked when the
 * request was answered; the compiled script is cached by source hash, so a template version is
 * compiled once whatever it is sent to). Per batch, not per recipient: the users, the sent-list
 * rows already written (a retried batch sends nobody twice) and every user's preference for the
 * category are read in one statement each; the whole batch renders on one render thread (one
 * QuickJS runtime, a fresh context per recipient); then the batch's sent-list rows, outbox rows and
 * delivery jobs are written in one transaction of three statements. A recipient whose render fails
 * gets a sent-list row with the error and the rest of the batch goes out.
 */

/** Recipients per job: one render-thread round trip and one transaction each. */
export const SEND_BATCH_SIZE = 50;

type Recipient = Awaited<ReturnType<typeof q.findRecipients>>[number];

type Branding = Awaited<ReturnType<typeof q.findProjectBranding>>;

interface Todo {
  user: Recipient;
  emailId: string;
  decision: CategoryDecision;
}

function inputFor(project: Branding, payload: SendBatchPayload, todo: Todo): SandboxInput {
  return {
    user: { displayName: todo.user.display_name, primaryEmail: todo.user.primary_email },
    project: { displayName: project.display_name },
    variables: payload.content.variables,
    unsubscribeLink: todo.decision.unsubscribeUrl,
    projectLogos: { logoUrl: project.logo_url, fullLogoUrl: project.full_logo_url },
  };
}

/** Each recipient's render, in order: the raw html of the request, or the owner's template through the render threads. */
async function renderAll(payload: SendBatchPayload, project: Branding, todo: Todo[]): Promise<(SandboxRendered | SandboxRenderError)[]> {
  const { content } = payload;
  if (content.html !== null) return todo.map(() => ({ html: content.html!, text: '', subject: null, notificationCategory: null }));
  try {
    return await renderOwnerEmails(
      { template: content.template!, theme: content.theme },
      todo.map((t) => inputFor(project, payload, t)),
    );
  } catch (error) {
    // A compile error (the sources were checked when the request was answered, so only after an
    // upgrade that refuses them): every recipient records it.
    if (error instanceof SandboxRenderError) return todo.map(() => error);
    throw error;
  }
}

async function sendBatch(deps: Deps, payload: SendBatchPayload): Promise<{ sent: number }> {
  const { content } = payload;
  const tenancy: Tenancy = { id: payload.tenancy_id, projectId: payload.project_id, branchId: payload.branch_id };
  if (payload.scheduled_send_id !== undefined) {
    // A scheduled send leaves the scheduled list when its first batch runs; its draft counts as
    // sent from then (not from when it was scheduled). Every batch asks; only the first changes the row.
    await deps.db.transaction().execute(async (trx) => {
      const started = await q.startScheduledSend(trx, tenancy.id, payload.scheduled_send_id!);
      if (started?.draft_id) await q.markDraftSent(trx, tenancy.id, started.draft_id);
    });
  }
  const emailIds = payload.recipients.map((r) => r.email_id);
  const [users, done, project] = await Promise.all([
    q.findRecipients(
      deps.db,
      tenancy.id,
      payload.recipients.map((r) => r.user_id),
    ),
    q.sentIdsIn(deps.db, tenancy.id, emailIds),
    q.findProjectBranding(deps.db, payload.project_id),
  ]);
  const byId = new Map(users.map((u) => [u.id, u]));
  const recipients = payload.recipients.filter((r) => byId.has(r.user_id) && !done.has(r.email_id));
  const decisions = await categoryDecisions(
    deps.db,
    tenancy,
    recipients.map((r) => r.user_id),
    content.category,
  );

  const now = new Date();
  const sentRows: q.NewSentRow[] = [];
  const emails: NewEmail[] = [];
  const base = (emailId: string, user: Recipient) => ({
    tenancy_id: tenancy.id,
    id: emailId,
    user_id: user.id,
    draft_id: content.draft_id,
    template_id: content.template_id,
    created_at: now,
  });
  const skip = (emailId: string, user: Recipient, error: string) =>
    sentRows.push({
      ...base(emailId, user),
      to: user.primary_email,
      subject: content.subject ?? '',
      html: null,
      text: null,
      headers: null,
      sent_at: null,
      error,
    });

  const todo: Todo[] = [];
  for (const r of recipients) {
    const user = byId.get(r.user_id)!;
    const decision = decisions.get(user.id)!;
    if (!user.primary_email) skip(r.email_id, user, 'The user has no primary email.');
    else if (!decision.send) skip(r.email_id, user, `The user turned off emails of the category ${content.category}.`);
    else todo.push({ user, emailId: r.email_id, decision });
  }

  const rendered = await renderAll(payload, project, todo);
  todo.forEach((t, i) => {
    const result = rendered[i]!;
    if (result instanceof SandboxRenderError) return void skip(t.emailId, t.user, `The email could not be rendered for this user: ${result.message}`);
    const subject = content.subject ?? result.subject ?? '';
    const sealed = sealEmailBody(deps.env.secret, t.emailId, result);
    const to = t.user.primary_email!;
    const headers = Object.keys(t.decision.headers).length > 0 ? JSON.stringify(t.decision.headers) : null;
    sentRows.push({ ...base(t.emailId, t.user), to, subject, html: sealed.html, text: sealed.text, headers, sent_at: now, error: null });
    emails.push({ id: t.emailId, tenancy_id: tenancy.id, to_email: to, subject, html: sealed.html, text: sealed.text });
  });

  await deps.db.transaction().execute(async (trx) => {
    // A row that exists already (a concurrent retry of this batch) keeps its email: only new rows are queued.
    const inserted = await q.insertSentRows(trx, sentRows);
    await enqueueEmails(
      trx,
      emails.filter((e) => inserted.has(e.id)),
    );
  });
  return { sent: emails.length };
}

export const sendEmailJobKind = defineJobKind<SendBatchPayload, { sent: number }>({
  kind: 'email.send-batch',
  title: 'send-email batch',
  maxAttempts: 5,
  backoff: (failedAttempts) => retryDelayMs(failedAttempts, 10_000),
  parse: parseSendBatchPayload,
  // Its own lane: rendering a large send never delays deliveries (lane `email`) or webhooks. Four
  // batches a round keep every render thread busy while the previous batch is written.
  lane: 'email-render',
  batchSize: 4,
  handle: (job, { deps }) => sendBatch(deps, job.payload),
});
