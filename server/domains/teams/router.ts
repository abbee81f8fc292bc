import { router } from '../../trpc/init.js';
import { clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/teams.js';
import * as service from './service.js';

const TAGS = ['Teams'];

export const teamsRouter = router({
  list: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/teams', tags: TAGS, summary: "Teams (clients: their own; server: all, or one user's with user_id)" } })
    .input(schemas.teamListQuerySchema)
    .output(schemas.teamListSchema)
    .query(async ({ ctx, input }) => ({ items: await service.listTeams(ctx.deps, ctx.auth, input), is_paginated: false as const })),

  create: clientProcedure
    .meta({ openapi: { method: 'POST', path: '/teams', tags: TAGS, summary: 'Create a team; the creator joins it and selects it (clients: when client_team_creation_enabled)' }, successStatus: 201 })
    .input(schemas.teamCreateSchema)
    .output(schemas.teamOutputSchema)
    .mutation(({ ctx, input }) => service.createTeam(ctx.deps, ctx.auth, input)),

  get: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/teams/{team_id}', tags: TAGS, summary: 'A team (clients: only teams they are in)' } })
    .input(schemas.teamIdParamSchema)
    .output(schemas.teamOutputSchema)
    .query(({ ctx, input }) => service.getTeam(ctx.deps, ctx.auth, input.team_id)),

  update: clientProcedure
    .meta({ openapi: { method: 'PATCH', path: '/teams/{team_id}', tags: TAGS, summary: 'Update a team (clients: with $update_team, client fields only)' } })
    .input(schemas.teamUpdateSchema)
    .output(schemas.teamOutputSchema)
    .mutation(({ ctx, input }) => {
      const { team_id, ...patch } = input;
      return service.updateTeam(ctx.deps, ctx.auth, team_id, patch);
    }),

  delete: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/teams/{team_id}', tags: TAGS, summary: 'Delete a team with its memberships, invitations and API keys (clients: with $delete_team)' } })
    .input(schemas.teamIdParamSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.deleteTeam(ctx.deps, ctx.auth, input.team_id);
      return { success: true as const };
    }),

  addMember: serverProcedure
    .meta({ openapi: { method: 'POST', path: '/team-memberships/{team_id}/{user_id}', tags: TAGS, summary: 'Add a user to a team (with team_member_default_permissions)' }, successStatus: 201 })
    .input(schemas.membershipParamsSchema)
    .output(schemas.membershipSchema)
    .mutation(({ ctx, input }) => service.addTeamMember(ctx.deps, ctx.auth, input.team_id, input.user_id)),

  leave: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/team-memberships/{team_id}/me', tags: TAGS, summary: 'Leave a team' } })
    .input(schemas.leaveTeamParamsSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.removeTeamMember(ctx.deps, ctx.auth, input.team_id, 'me');
      return { success: true as const };
    }),

  removeMember: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/team-memberships/{team_id}/{user_id}', tags: TAGS, summary: 'Remove a member (clients: themselves, or others with $remove_members)' } })
    .input(schemas.membershipParamsSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.removeTeamMember(ctx.deps, ctx.auth, input.team_id, input.user_id);
      return { success: true as const };
    }),

  listMemberProfiles: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/team-member-profiles', tags: TAGS, summary: "Member profiles by team and/or user (clients: their own, or a team's with $read_members)" } })
    .input(schemas.memberProfileListQuerySchema)
    .output(schemas.memberProfileListSchema)
    .query(async ({ ctx, input }) => ({ items: await service.listMemberProfiles(ctx.deps, ctx.auth, input), is_paginated: false as const })),

  getMemberProfile: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/team-member-profiles/{team_id}/{user_id}', tags: TAGS, summary: "A member's profile in a team (clients: their own, or with $read_members)" } })
    .input(schemas.membershipParamsSchema)
    .output(schemas.memberProfileOutputSchema)
    .query(({ ctx, input }) => service.getMemberProfile(ctx.deps, ctx.auth, input.team_id, input.user_id)),

  updateMemberProfile: clientProcedure
    .meta({ openapi: { method: 'PATCH', path: '/team-member-profiles/{team_id}/{user_id}', tags: TAGS, summary: "Update a member's display name or image in a team (clients: their own)" } })
    .input(schemas.memberProfileUpdateSchema)
    .output(schemas.memberProfileOutputSchema)
    .mutation(({ ctx, input }) => service.updateMemberProfile(ctx.deps, ctx.auth, input)),
});
