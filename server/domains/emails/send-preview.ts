import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { INTERNAL_PROJECT_ID } from '../../../contract/config/project-config.js';
import type { sendEmailPreviewResultSchema, sendEmailPreviewSchema } from '../../../contract/schemas/email-content.js';
import type { AuthContext } from '../../access/context.js';
import type { Deps } from '../../deps.js';
import { revealSecret } from '../projects/service.js';
import { findOwnerEmail } from './content/queries.js';
import { limitTestEmails } from './limits.js';
import { renderEmailPreview } from './owner-render.js';
import { insertSettledEmail } from './queries.js';
import { sealEmailBody } from './sealed-body.js';
import { sendRightAway, standardTarget } from './transport.js';

/**
 * `POST /internal/emails/send-preview` (the console's "Send a test to me"): renders a source the
 * way render-email does (sample user, the project's themes) and sends it right away, through the
 * project's own email server, to the signed-in owner's address and nobody else: the owner sees
 * the real thing in a real mail client, and the call cannot be used to mail anyone. A failure is
 * told at once (EMAIL_SERVER_SEND_FAILED with Latch's wording of the SMTP failure and its reply
 * code). Limited with the test emails (per project and per owner, LATCH_EMAIL_TEST_SENDS_PER_HOUR),
 * counted only once the source rendered (fixing a typo costs no budget). The message is recorded
 * in the project's email list (sent, or failed with the reason), like any other.
 */
export async function sendEmailPreview(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof sendEmailPreviewSchema>,
  ip: string | null,
): Promise<z.infer<typeof sendEmailPreviewResultSchema>> {
  if (!auth.adminUserId) throw new KnownErrors.EmailPreviewNeedsOwner('no_owner_session');
  const config = auth.project.config.email_config;
  if (config.type !== 'standard') throw new KnownErrors.RequiresCustomEmailServer();
  const to = await findOwnerEmail(deps.db, INTERNAL_PROJECT_ID, auth.adminUserId);
  if (!to) throw new KnownErrors.EmailPreviewNeedsOwner('no_owner_email');
  // Template, draft and theme ids resolve in the caller's tenancy only (EMAIL_CONTENT_NOT_FOUND otherwise).
  const rendered = await renderEmailPreview(deps, auth, input);
  const target = standardTarget(config, revealSecret(deps, auth.project.id, config.password), deps.env.email);
  if (!target) throw new KnownErrors.RequiresCustomEmailServer();
  await limitTestEmails(deps, auth.tenancy, { adminUserId: auth.adminUserId, ip });
  const id = randomUUID();
  const subject = `[Preview] ${rendered.subject ?? '(no subject)'}`;
  const sealed = sealEmailBody(deps.env.secret, id, rendered);
  const record = (state: 'sent' | 'failed', error: string | null) =>
    insertSettledEmail(deps.db, { id, tenancy_id: auth.tenancy.id, to_email: to, subject, html: sealed.html, text: sealed.text, state, error });
  const failure = await sendRightAway(deps.log, 'email preview failed', auth.project.id, config, target, {
    id,
    to,
    subject,
    html: rendered.html,
    text: rendered.text,
  });
  if (failure) {
    await record('failed', failure.message);
    throw new KnownErrors.EmailServerSendFailed(failure.reason, failure.message);
  }
  await record('sent', null);
  return { to, subject, email_id: id };
}
