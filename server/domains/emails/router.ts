import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { adminProcedure, serverProcedure } from '../../trpc/procedures.js';
import * as content from '../../../contract/schemas/email-content.js';
import * as send from './send/service.js';
import * as schemas from '../../../contract/schemas/emails.js';
import * as service from './service.js';
import { renderEmailPreview } from './owner-render.js';
import { sendEmailPreview } from './send-preview.js';
import { z } from 'zod';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';

const op = restOperations(['Emails'], { protect: true });

export const emailsRouter = router({
  list: op(adminProcedure, 'GET /internal/emails', "The project's emails, newest first, with their delivery state (without SMTP: the local inbox)")
    .input(schemas.emailListQuerySchema)
    .output(schemas.sentEmailListSchema)
    .query(({ ctx, input }) => service.listEmails(ctx.deps, ctx.auth, input)),

  listSent: op(adminProcedure, 'GET /internal/emails/sent', 'What send-email rendered for each user (or why it skipped one), newest first')
    .input(schemas.emailListQuerySchema)
    .output(content.sentUserEmailListSchema)
    .query(({ ctx, input }) => send.listSent(ctx.deps, ctx.auth, input)),

  listScheduled: op(adminProcedure, 'GET /internal/emails/scheduled', 'send-email calls scheduled for later that have not gone out yet, soonest first', {
    input: z.object({}),
    output: shortList(content.scheduledSendSchema),
  }).query(asShortList(({ ctx }) => send.listScheduled(ctx.deps, ctx.auth))),

  sendPreview: op(
    adminProcedure,
    'POST /internal/emails/send-preview',
    'Render a template, draft or theme source (as render-email does) and send it now through the project\'s own email server to the signed-in owner: the editor\'s "Send a test to me"',
    { input: content.sendEmailPreviewSchema, output: content.sendEmailPreviewResultSchema },
  ).mutation(({ ctx, input }) => sendEmailPreview(ctx.deps, ctx.auth, input, ctx.ip)),

  sendEmail: op(
    serverProcedure,
    'POST /emails/send-email',
    "Email users (user_ids or all_users) raw html, a template with variables, or a draft: checked and queued at once, rendered per user by jobs, each user's notification preferences respected",
  )
    .input(content.sendEmailSchema)
    .output(content.sendEmailResultSchema)
    .mutation(({ ctx, input }) => send.sendEmail(ctx.deps, ctx.auth, input)),

  get: op(adminProcedure, 'GET /internal/emails/{email_id}', 'One email with its HTML and text')
    .input(schemas.emailIdParamSchema)
    .output(schemas.sentEmailDetailSchema)
    .query(({ ctx, input }) => service.getEmail(ctx.deps, ctx.auth, input.email_id)),

  sendTestEmail: op(
    adminProcedure,
    'POST /internal/send-test-email',
    'Try an email server config: send one email now and report why it failed (a generic reason)',
  )
    .input(schemas.sendTestEmailSchema)
    .output(schemas.sendTestEmailResultSchema)
    .mutation(({ ctx, input }) => service.sendTestEmail(ctx.deps, ctx.auth, input, ctx.ip)),

  sendSignInInvitation: op(
    adminProcedure,
    'POST /internal/send-sign-in-invitation',
    'Email someone an invitation to sign in (the link is callback_url, a trusted URL)',
  )
    .input(schemas.sendSignInInvitationSchema)
    .output(successSchema)
    .mutation(succeedAfter(({ ctx, input }) => service.sendSignInInvitation(ctx.deps, ctx.auth, input))),

  renderEmail: op(
    adminProcedure,
    'POST /emails/render-email',
    "Render an email template (or draft) source with an optional theme source and variables, in the sandbox: the editor's live preview",
  )
    .input(schemas.renderEmailSchema)
    .output(schemas.renderEmailResultSchema)
    .mutation(({ ctx, input }) => renderEmailPreview(ctx.deps, ctx.auth, input)),
});
