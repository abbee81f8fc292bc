import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/teams.js';
import * as service from './service.js';

const op = restOperations(['Teams']);

export const teamsRouter = router({
  list: op(clientProcedure, 'GET /teams', "Teams (clients: their own; server: all, or one user's with user_id)", {
    input: schemas.teamListQuerySchema,
    output: schemas.teamListSchema,
  }).query(asShortList(({ ctx, input }) => service.listTeams(ctx.deps, ctx.auth, input))),

  create: op(clientProcedure, 'POST /teams', 'Create a team; the creator joins it and selects it (clients: when client_team_creation_enabled)', {
    input: schemas.teamCreateSchema,
    output: schemas.teamOutputSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.createTeam(ctx.deps, ctx.auth, input)),

  get: op(clientProcedure, 'GET /teams/{team_id}', 'A team (clients: only teams they are in)', {
    input: schemas.teamIdParamSchema,
    output: schemas.teamOutputSchema,
  }).query(({ ctx, input }) => service.getTeam(ctx.deps, ctx.auth, input.team_id)),

  update: op(clientProcedure, 'PATCH /teams/{team_id}', 'Update a team (clients: with $update_team, client fields only)', {
    input: schemas.teamUpdateSchema,
    output: schemas.teamOutputSchema,
  }).mutation(({ ctx, input }) => {
    const { team_id, ...patch } = input;
    return service.updateTeam(ctx.deps, ctx.auth, team_id, patch);
  }),

  delete: op(clientProcedure, 'DELETE /teams/{team_id}', 'Delete a team with its memberships, invitations and API keys (clients: with $delete_team)', {
    input: schemas.teamIdParamSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.deleteTeam(ctx.deps, ctx.auth, input.team_id))),

  addMember: op(serverProcedure, 'POST /team-memberships/{team_id}/{user_id}', 'Add a user to a team (with team_member_default_permissions)', {
    input: schemas.membershipParamsSchema,
    output: schemas.membershipSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.addTeamMember(ctx.deps, ctx.auth, input.team_id, input.user_id)),

  leave: op(clientProcedure, 'DELETE /team-memberships/{team_id}/me', 'Leave a team', { input: schemas.leaveTeamParamsSchema, output: successSchema }).mutation(
    succeedAfter(({ ctx, input }) => service.removeTeamMember(ctx.deps, ctx.auth, input.team_id, 'me')),
  ),

  removeMember: op(clientProcedure, 'DELETE /team-memberships/{team_id}/{user_id}', 'Remove a member (clients: themselves, or others with $remove_members)', {
    input: schemas.membershipParamsSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.removeTeamMember(ctx.deps, ctx.auth, input.team_id, input.user_id))),

  listMemberProfiles: op(
    clientProcedure,
    'GET /team-member-profiles',
    "Member profiles by team and/or user (clients: their own, or a team's with $read_members)",
    { input: schemas.memberProfileListQuerySchema, output: schemas.memberProfileListSchema },
  ).query(asShortList(({ ctx, input }) => service.listMemberProfiles(ctx.deps, ctx.auth, input))),

  getMemberProfile: op(
    clientProcedure,
    'GET /team-member-profiles/{team_id}/{user_id}',
    "A member's profile in a team (clients: their own, or with $read_members)",
    { input: schemas.membershipParamsSchema, output: schemas.memberProfileOutputSchema },
  ).query(({ ctx, input }) => service.getMemberProfile(ctx.deps, ctx.auth, input.team_id, input.user_id)),

  updateMemberProfile: op(
    clientProcedure,
    'PATCH /team-member-profiles/{team_id}/{user_id}',
    "Update a member's display name or image in a team (clients: their own)",
    { input: schemas.memberProfileUpdateSchema, output: schemas.memberProfileOutputSchema },
  ).mutation(({ ctx, input }) => service.updateMemberProfile(ctx.deps, ctx.auth, input)),
});
