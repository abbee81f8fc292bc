import { router } from '../../trpc/init.js';
import { clientProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/team-invitations.js';
import * as service from './service.js';

const TAGS = ['Teams'];

export const teamInvitationsRouter = router({
  sendCode: clientProcedure
    .meta({ openapi: { method: 'POST', path: '/team-invitations/send-code', tags: TAGS, summary: 'Email an invitation to join a team (clients: with $invite_members)' } })
    .input(schemas.sendCodeSchema)
    .output(schemas.sendCodeResultSchema)
    .mutation(({ ctx, input }) => service.sendInvitation(ctx.deps, ctx.auth, input, ctx.ip)),

  accept: clientProcedure
    .meta({ openapi: { method: 'POST', path: '/team-invitations/accept', tags: TAGS, summary: 'Accept an invitation for the signed-in user and join the team' } })
    .input(schemas.codeSchema)
    .output(schemas.acceptResultSchema)
    .mutation(({ ctx, input }) => service.acceptInvitation(ctx.deps, ctx.auth, input.code, ctx.ip)),

  checkCode: clientProcedure
    .meta({ openapi: { method: 'POST', path: '/team-invitations/accept/check-code', tags: TAGS, summary: 'Check an invitation code without using it' } })
    .input(schemas.codeSchema)
    .output(schemas.checkCodeResultSchema)
    .mutation(({ ctx, input }) => service.checkInvitationCode(ctx.deps, ctx.auth, input.code, ctx.ip)),

  details: clientProcedure
    .meta({ openapi: { method: 'POST', path: '/team-invitations/accept/details', tags: TAGS, summary: 'The team an invitation code is for' } })
    .input(schemas.codeSchema)
    .output(schemas.detailsResultSchema)
    .mutation(({ ctx, input }) => service.invitationDetails(ctx.deps, ctx.auth, input.code, ctx.ip)),

  list: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/team-invitations', tags: TAGS, summary: "A team's pending invitations (clients: with $read_members and $invite_members)" } })
    .input(schemas.invitationListQuerySchema)
    .output(schemas.invitationListSchema)
    .query(async ({ ctx, input }) => ({ items: await service.listInvitations(ctx.deps, ctx.auth, input.team_id), is_paginated: false as const })),

  revoke: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/team-invitations/{invitation_id}', tags: TAGS, summary: 'Withdraw an invitation (clients: with $remove_members)' } })
    .input(schemas.invitationDeleteSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.revokeInvitation(ctx.deps, ctx.auth, input.invitation_id, input.team_id);
      return { success: true as const };
    }),
});
