import { router } from '../../trpc/init.js';
import { adminProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/emails.js';
import * as service from './service.js';

const TAGS = ['Emails'];

export const emailsRouter = router({
  list: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/internal/emails', tags: TAGS, summary: "The project's emails, newest first, with their delivery state (without SMTP: the local inbox)", protect: true } })
    .input(schemas.emailListQuerySchema)
    .output(schemas.sentEmailListSchema)
    .query(({ ctx, input }) => service.listEmails(ctx.deps, ctx.auth, input)),

  get: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/internal/emails/{email_id}', tags: TAGS, summary: 'One email with its HTML and text', protect: true } })
    .input(schemas.emailIdParamSchema)
    .output(schemas.sentEmailDetailSchema)
    .query(({ ctx, input }) => service.getEmail(ctx.deps, ctx.auth, input.email_id)),

  sendTestEmail: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/internal/send-test-email', tags: TAGS, summary: 'Try an email server config: send one email now and report why it failed (a generic reason)', protect: true } })
    .input(schemas.sendTestEmailSchema)
    .output(schemas.sendTestEmailResultSchema)
    .mutation(({ ctx, input }) => service.sendTestEmail(ctx.deps, ctx.auth, input, ctx.ip)),

  sendSignInInvitation: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/internal/send-sign-in-invitation', tags: TAGS, summary: 'Email someone an invitation to sign in (the link is callback_url, a trusted URL)', protect: true } })
    .input(schemas.sendSignInInvitationSchema)
    .output(successSchema)
    .mutation(({ ctx, input }) => service.sendSignInInvitation(ctx.deps, ctx.auth, input)),
});
