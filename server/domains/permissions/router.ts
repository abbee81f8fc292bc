import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { accessProcedure, adminProcedure, clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/permissions.js';
import * as service from './service.js';

const op = restOperations(['Permissions']);
/** Definitions are written by admins; server code may read them too. */
const readDefinitionsProcedure = accessProcedure('server', 'admin');

function definitionRoutes(scope: 'team' | 'project') {
  const base: `/${string}` = `/${scope}-permission-definitions`;
  const label = scope === 'team' ? 'team' : 'project';
  const createSchema = schemas.definitionCreateSchema(scope);
  const updateSchema = schemas.definitionUpdateSchema(scope);
  const customIdParam = schemas.definitionCustomIdParamSchema(scope);
  return {
    list: op(
      readDefinitionsProcedure,
      `GET ${base}`,
      scope === 'team' ? 'Team permission definitions, system permissions first' : 'Project permission definitions',
      { input: z.object({}), output: schemas.permissionDefinitionListSchema },
    ).query(asShortList(({ ctx }) => service.listDefinitions(ctx.deps, ctx.auth, scope))),

    create: op(adminProcedure, `POST ${base}`, `Define a ${label} permission, optionally containing others`, {
      input: createSchema,
      output: schemas.permissionDefinitionSchema,
      successStatus: 201,
    }).mutation(({ ctx, input }) => service.createDefinition(ctx.deps, ctx.auth, scope, input)),

    get: op(readDefinitionsProcedure, `GET ${base}/{permission_id}`, `One ${label} permission definition`, {
      input: schemas.definitionIdParamSchema,
      output: schemas.permissionDefinitionSchema,
    }).query(({ ctx, input }) => service.getDefinition(ctx.deps, ctx.auth, scope, input.permission_id)),

    update: op(adminProcedure, `PATCH ${base}/{permission_id}`, `Rename a ${label} permission, or change its description or contained permissions`, {
      input: updateSchema,
      output: schemas.permissionDefinitionSchema,
    }).mutation(({ ctx, input }) => {
      const { permission_id, ...patch } = input;
      return service.updateDefinition(ctx.deps, ctx.auth, scope, permission_id, patch);
    }),

    delete: op(adminProcedure, `DELETE ${base}/{permission_id}`, `Delete a ${label} permission with its grants`, {
      input: customIdParam,
      output: successSchema,
    }).mutation(succeedAfter(({ ctx, input }) => service.deleteDefinition(ctx.deps, ctx.auth, scope, input.permission_id))),
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

  listTeamPermissions: op(clientProcedure, 'GET /team-permissions', 'Team permissions held, recursively by default (clients: their own)', {
    input: schemas.teamPermissionListQuerySchema,
    output: schemas.teamPermissionListSchema,
  }).query(asShortList(({ ctx, input }) => service.listTeamPermissions(ctx.deps, ctx.auth, input))),

  grantTeamPermission: op(serverProcedure, 'POST /team-permissions/{team_id}/{user_id}/{permission_id}', 'Grant a team permission to a member', {
    input: schemas.teamPermissionParamsSchema,
    output: schemas.teamPermissionSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.grantTeamPermission(ctx.deps, ctx.auth, input.team_id, input.user_id, input.permission_id)),

  revokeTeamPermission: op(serverProcedure, 'DELETE /team-permissions/{team_id}/{user_id}/{permission_id}', 'Revoke a directly granted team permission', {
    input: schemas.teamPermissionParamsSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.revokeTeamPermission(ctx.deps, ctx.auth, input.team_id, input.user_id, input.permission_id))),

  listProjectPermissions: op(clientProcedure, 'GET /project-permissions', 'Project permissions held, recursively by default (clients: their own)', {
    input: schemas.projectPermissionListQuerySchema,
    output: schemas.projectPermissionListSchema,
  }).query(asShortList(({ ctx, input }) => service.listProjectPermissions(ctx.deps, ctx.auth, input))),

  requireProjectPermission: op(
    clientProcedure,
    'GET /project-permissions/{user_id}/{permission_id}',
    'Require a project permission, held directly or through a containing one: the permission, or 401 PROJECT_PERMISSION_REQUIRED (clients: their own)',
    { input: schemas.projectPermissionParamsSchema, output: schemas.projectPermissionSchema },
  ).query(({ ctx, input }) => service.requireProjectPermission(ctx.deps, ctx.auth, input.user_id, input.permission_id)),

  grantProjectPermission: op(serverProcedure, 'POST /project-permissions/{user_id}/{permission_id}', 'Grant a project permission to a user', {
    input: schemas.projectPermissionParamsSchema,
    output: schemas.projectPermissionSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.grantProjectPermission(ctx.deps, ctx.auth, input.user_id, input.permission_id)),

  revokeProjectPermission: op(serverProcedure, 'DELETE /project-permissions/{user_id}/{permission_id}', 'Revoke a directly granted project permission', {
    input: schemas.projectPermissionParamsSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.revokeProjectPermission(ctx.deps, ctx.auth, input.user_id, input.permission_id))),
});
