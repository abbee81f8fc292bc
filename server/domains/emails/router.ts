import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { adminProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/emails.js';
import * as service from './service.js';
import { renderEmailPreview } from './owner-render.js';

const op = restOperations(['Emails'], { protect: true });

export const emailsRouter = router({
  list: op(adminProcedure, 'GET /internal/emails', "The project's emails, newest first, with their delivery state (without SMTP: the local inbox)")
    .input(schemas.emailListQuerySchema)
    .output(schemas.sentEmailListSchema)
    .query(({ ctx, input }) => service.listEmails(ctx.deps, ctx.auth, input)),

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
