import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeed, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/team-invitations.js';
import * as service from './service.js';

const op = restOperations(['Teams']);

export const teamInvitationsRouter = router({
  sendCode: op(clientProcedure, 'POST /team-invitations/send-code', 'Email an invitation to join a team (clients: with $invite_members)', {
    input: schemas.sendCodeSchema,
    output: schemas.sendCodeResultSchema,
  }).mutation(async ({ ctx, input }) => succeed(await service.sendInvitation(ctx.deps, ctx.auth, input, ctx.ip))),

  accept: op(clientProcedure, 'POST /team-invitations/accept', 'Accept an invitation for the signed-in user and join the team', {
    input: schemas.codeSchema,
    output: schemas.acceptResultSchema,
  }).mutation(async ({ ctx, input }) => succeed(await service.acceptInvitation(ctx.deps, ctx.auth, input.code, ctx.ip))),

  checkCode: op(clientProcedure, 'POST /team-invitations/accept/check-code', 'Check an invitation code without using it', {
    input: schemas.codeSchema,
    output: schemas.checkCodeResultSchema,
  }).mutation(({ ctx, input }) => service.checkInvitationCode(ctx.deps, ctx.auth, input.code, ctx.ip)),

  details: op(clientProcedure, 'POST /team-invitations/accept/details', 'The team an invitation code is for', {
    input: schemas.codeSchema,
    output: schemas.detailsResultSchema,
  }).mutation(({ ctx, input }) => service.invitationDetails(ctx.deps, ctx.auth, input.code, ctx.ip)),

  list: op(clientProcedure, 'GET /team-invitations', "A team's pending invitations (clients: with $read_members and $invite_members)", {
    input: schemas.invitationListQuerySchema,
    output: schemas.invitationListSchema,
  }).query(asShortList(({ ctx, input }) => service.listInvitations(ctx.deps, ctx.auth, input.team_id))),

  revoke: op(clientProcedure, 'DELETE /team-invitations/{invitation_id}', 'Withdraw an invitation (clients: with $remove_members)', {
    input: schemas.invitationDeleteSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.revokeInvitation(ctx.deps, ctx.auth, input.invitation_id, input.team_id))),
});
