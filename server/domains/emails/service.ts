import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AccessType } from '../../../contract/access-type.js';
import type { AuthContext, ProjectRecord, Tenancy } from '../../access/context.js';
import type { Executor } from '../../db/executor.js';
import { assertTrustedCallbackUrl } from '../verification/service.js';
import { consumeMailLimits, limitTestEmails } from './limits.js';
import * as q from './queries.js';
import { enqueueEmail } from './delivery.js';
import { renderBuiltInEmail } from './content/built-in.js';
import { openEmailBody, sealEmailBody } from './sealed-body.js';
import { type BuiltInEmail, type EmailBranding, renderEmail } from './render.js';
import type {
  emailListQuerySchema,
  sendSignInInvitationSchema,
  sendTestEmailSchema,
  sentEmailDetailSchema,
  sentEmailSchema,
} from '../../../contract/schemas/emails.js';
import { sendRightAway, type SmtpFailureReason, standardTarget } from './transport.js';
import { decodeKeysetCursor, encodeKeysetCursor, type KeysetPosition } from '../../db/keyset-cursor.js';

/**
 * Emails of a project: queued in the outbox inside the transaction of the action that sends them
 * (so a rolled-back action sends nothing), rendered once at queue time, delivered as a job of kind `email` (delivery.ts, server/jobs/).
 */

/** Who is sending: the tenancy the email belongs to and the project whose name and logo it carries. */
export interface EmailSender {
  tenancy: Tenancy;
  project: Pick<ProjectRecord, 'displayName' | 'logoUrl' | 'fullLogoUrl'> & { config?: ProjectRecord['config'] };
  /** The access type of the request that causes the email (an AuthContext has it): `client` mail counts against the client share. */
  type?: AccessType;
}

export function brandingOf(project: EmailSender['project']): EmailBranding {
  return { projectDisplayName: project.displayName, logoUrl: project.logoUrl, fullLogoUrl: project.fullLogoUrl };
}

/**
 * Renders a built-in email and queues it, in the caller's transaction. Returns the outbox id.
 * Every limit on mail (limits.ts: per IP and recipient, the client share, the project's budget) is
 * counted here, in that transaction, unless the caller already counted this email
 * (`limitedByCaller`: password reset and magic link, which must refuse before looking anything up).
 * `ip` is the client IP of the request, for the per-IP limit of client requests.
 *
 * @example
 * await deps.db.transaction().execute(async (trx) => {
 *   // … the action …
 *   await queueEmail(trx, deps, auth, 'ada@example.com', { type: 'email-verification', link, expiresAt }, { ip });
 * });
 */
export async function queueEmail(
  trx: Executor,
  deps: Deps,
  sender: EmailSender,
  to: string,
  email: BuiltInEmail,
  options: { limitedByCaller?: boolean; ip?: string | null } = {},
): Promise<string> {
  if (!options.limitedByCaller) await consumeMailLimits(trx, deps, sender, to, options.ip ?? null);
  const rendered = await renderBuiltInEmail(
    trx,
    deps.log,
    { tenancy: sender.tenancy, branding: brandingOf(sender.project), config: sender.project.config ?? null },
    email,
  );
  const id = randomUUID();
  const sealed = sealEmailBody(deps.env.secret, id, rendered);
  await enqueueEmail(trx, { id, tenancy_id: sender.tenancy.id, to_email: to, subject: rendered.subject, html: sealed.html, text: sealed.text });
  return id;
}

type SentEmail = z.infer<typeof sentEmailSchema>;
type SentEmailDetail = z.infer<typeof sentEmailDetailSchema>;

function toSentEmailDto(row: q.OutboxRow): SentEmail {
  return {
    id: row.id,
    to: row.to_email,
    subject: row.subject,
    sent_at_millis: row.sent_at?.getTime() ?? null,
    error: row.error,
    state: row.state,
    attempts: row.attempts,
    created_at_millis: row.created_at.getTime(),
  };
}

/** The project's emails, newest first: the console's sent-mail list and, without SMTP, its inbox. */
export async function listEmails(deps: Deps, auth: AuthContext, input: z.infer<typeof emailListQuerySchema>) {
  // Lag-tolerant: the read replica when there is one (a just-queued email shows on the next refresh).
  return keysetPage(input, (options) => q.listEmails(deps.readDb, auth.tenancy.id, options), toSentEmailDto);
}

/** One page of a keyset-paginated list (newest first): fetches one row more to know whether another page follows. */
export async function keysetPage<Row extends { created_at: Date; id: string }, Dto>(
  input: { cursor?: string; limit?: number },
  fetch: (options: { limit: number; before: KeysetPosition | null }) => Promise<Row[]>,
  toDto: (row: Row) => Dto,
) {
  const limit = input.limit ?? 100;
  const rows = await fetch({ limit: limit + 1, before: input.cursor ? decodeKeysetCursor(input.cursor) : null });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toDto),
    is_paginated: true as const,
    pagination: { next_cursor: rows.length > limit && last ? encodeKeysetCursor(last) : null },
  };
}

/** One email with its content, so the console can show what was (or would have been) sent. */
export async function getEmail(deps: Deps, auth: AuthContext, emailId: string): Promise<SentEmailDetail> {
  const row = await q.findEmail(deps.db, auth.tenancy.id, emailId);
  if (!row) throw new KnownErrors.SentEmailNotFound(emailId);
  return { ...toSentEmailDto(row), ...openEmailBody(deps.env.secret, row.id, row) };
}

/**
 * Tries an email server config before it is saved: sends one message right away over a fresh
 * connection. Only a project's own server can be tried (REQUIRES_CUSTOM_EMAIL_SERVER for
 * `shared`: that one is the operator's, not the project's). The host must resolve to a public
 * address on an SMTP port (EMAIL_SERVER_HOST_NOT_ALLOWED, EMAIL_SERVER_PORT_NOT_ALLOWED) unless
 * LATCH_SMTP_ALLOW_PRIVATE, and the connection goes to the address that was checked. A failure is
 * told as a generic reason (smtpFailure), never in the server's own words. Limited per project
 * and per owner or IP (LATCH_EMAIL_TEST_SENDS_PER_HOUR).
 */
export async function sendTestEmail(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof sendTestEmailSchema>,
  ip: string | null = null,
): Promise<{ success: boolean; error_message: string | null; error_reason?: SmtpFailureReason }> {
  const config = input.email_config;
  if (config.type !== 'standard') throw new KnownErrors.RequiresCustomEmailServer();
  const target = standardTarget(config, config.password, deps.env.email);
  if (!target) throw new KnownErrors.RequiresCustomEmailServer();
  await limitTestEmails(deps, auth.tenancy, { adminUserId: auth.adminUserId, ip });
  const rendered = await renderEmail(brandingOf(auth.project), { type: 'test' });
  const failure = await sendRightAway(deps.log, 'test email failed', auth.project.id, config, target, { to: input.recipient_email, ...rendered });
  return failure ? { success: false, error_message: failure.message, error_reason: failure.reason } : { success: true, error_message: null };
}

/** Emails someone a link to sign in to the project (the link is callback_url, a trusted URL). */
export async function sendSignInInvitation(deps: Deps, auth: AuthContext, input: z.infer<typeof sendSignInInvitationSchema>): Promise<void> {
  assertTrustedCallbackUrl(auth.project, input.callback_url);
  await deps.db.transaction().execute((trx) => queueEmail(trx, deps, auth, input.email, { type: 'sign-in-invitation', link: input.callback_url }));
}
