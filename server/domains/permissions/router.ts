import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { accessProcedure, adminProcedure, clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/permissions.js';
import * as service from './service.js';

const TAGS = ['Permissions'];
/** Definitions are written by admins; server code may read them too. */
const readDefinitionsProcedure = accessProcedure('server', 'admin');

function definitionRoutes(scope: 'team' | 'project') {
  const base: `/${string}` = `/${scope}-permission-definitions`;
  const label = scope === 'team' ? 'team' : 'project';
  const createSchema = schemas.definitionCreateSchema(scope);
  const updateSchema = schemas.definitionUpdateSchema(scope);
  const customIdParam = schemas.definitionCustomIdParamSchema(scope);
  return {
    list: readDefinitionsProcedure
      .meta({ openapi: { method: 'GET', path: base, tags: TAGS, summary: scope === 'team' ? 'Team permission definitions, system permissions first' : 'Project permission definitions' } })
      .input(z.object({}))
      .output(schemas.permissionDefinitionListSchema)
      .query(async ({ ctx }) => ({ items: await service.listDefinitions(ctx.deps, ctx.auth, scope), is_paginated: false as const })),

    create: adminProcedure
      .meta({ openapi: { method: 'POST', path: base, tags: TAGS, summary: `Define a ${label} permission, optionally containing others` }, successStatus: 201 })
      .input(createSchema)
      .output(schemas.permissionDefinitionSchema)
      .mutation(({ ctx, input }) => service.createDefinition(ctx.deps, ctx.auth, scope, input)),

    get: readDefinitionsProcedure
      .meta({ openapi: { method: 'GET', path: `${base}/{permission_id}`, tags: TAGS, summary: `One ${label} permission definition` } })
      .input(schemas.definitionIdParamSchema)
      .output(schemas.permissionDefinitionSchema)
      .query(({ ctx, input }) => service.getDefinition(ctx.deps, ctx.auth, scope, input.permission_id)),

    update: adminProcedure
      .meta({ openapi: { method: 'PATCH', path: `${base}/{permission_id}`, tags: TAGS, summary: `Rename a ${label} permission, or change its description or contained permissions` } })
      .input(updateSchema)
      .output(schemas.permissionDefinitionSchema)
      .mutation(({ ctx, input }) => {
        const { permission_id, ...patch } = input;
        return service.updateDefinition(ctx.deps, ctx.auth, scope, permission_id, patch);
      }),

    delete: adminProcedure
      .meta({ openapi: { method: 'DELETE', path: `${base}/{permission_id}`, tags: TAGS, summary: `Delete a ${label} permission with its grants` } })
      .input(customIdParam)
      .output(successSchema)
      .mutation(async ({ ctx, input }) => {
        await service.deleteDefinition(ctx.deps, ctx.auth, scope, input.permission_id);
        return { success: true as const };
      }),
  };
}

const team = definitionRoutes('team');
const project = definitionRoutes('project');

export const permissionsRouter = router({
  listTeamDefinitions: team.list,
  createTeamDefinition: team.create,
  getTeamDefinition: team.get,
  updateTeamDefinition: team.update,
  deleteTeamDefinition: team.delete,
  listProjectDefinitions: project.list,
  createProjectDefinition: project.create,
  getProjectDefinition: project.get,
  updateProjectDefinition: project.update,
  deleteProjectDefinition: project.delete,

  listTeamPermissions: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/team-permissions', tags: TAGS, summary: 'Team permissions held, recursively by default (clients: their own)' } })
    .input(schemas.teamPermissionListQuerySchema)
    .output(schemas.teamPermissionListSchema)
    .query(async ({ ctx, input }) => ({ items: await service.listTeamPermissions(ctx.deps, ctx.auth, input), is_paginated: false as const })),

  grantTeamPermission: serverProcedure
    .meta({ openapi: { method: 'POST', path: '/team-permissions/{team_id}/{user_id}/{permission_id}', tags: TAGS, summary: 'Grant a team permission to a member' }, successStatus: 201 })
    .input(schemas.teamPermissionParamsSchema)
    .output(schemas.teamPermissionSchema)
    .mutation(({ ctx, input }) => service.grantTeamPermission(ctx.deps, ctx.auth, input.team_id, input.user_id, input.permission_id)),

  revokeTeamPermission: serverProcedure
    .meta({ openapi: { method: 'DELETE', path: '/team-permissions/{team_id}/{user_id}/{permission_id}', tags: TAGS, summary: 'Revoke a directly granted team permission' } })
    .input(schemas.teamPermissionParamsSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.revokeTeamPermission(ctx.deps, ctx.auth, input.team_id, input.user_id, input.permission_id);
      return { success: true as const };
    }),

  listProjectPermissions: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/project-permissions', tags: TAGS, summary: 'Project permissions held, recursively by default (clients: their own)' } })
    .input(schemas.projectPermissionListQuerySchema)
    .output(schemas.projectPermissionListSchema)
    .query(async ({ ctx, input }) => ({ items: await service.listProjectPermissions(ctx.deps, ctx.auth, input), is_paginated: false as const })),

  grantProjectPermission: serverProcedure
    .meta({ openapi: { method: 'POST', path: '/project-permissions/{user_id}/{permission_id}', tags: TAGS, summary: 'Grant a project permission to a user' }, successStatus: 201 })
    .input(schemas.projectPermissionParamsSchema)
    .output(schemas.projectPermissionSchema)
    .mutation(({ ctx, input }) => service.grantProjectPermission(ctx.deps, ctx.auth, input.user_id, input.permission_id)),

  revokeProjectPermission: serverProcedure
    .meta({ openapi: { method: 'DELETE', path: '/project-permissions/{user_id}/{permission_id}', tags: TAGS, summary: 'Revoke a directly granted project permission' } })
    .input(schemas.projectPermissionParamsSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.revokeProjectPermission(ctx.deps, ctx.auth, input.user_id, input.permission_id);
      return { success: true as const };
    }),
});
