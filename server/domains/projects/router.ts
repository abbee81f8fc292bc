import { z } from 'zod';
import { schemaErrorFromIssues } from '../../errors/wire.js';
import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { accessProcedure, adminProcedure, clientProcedure } from '../../trpc/procedures.js';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/projects.js';
import * as owners from './owners.js';
import * as service from './service.js';

const op = restOperations(['Projects']);

export const projectsRouter = router({
  current: op(clientProcedure, 'GET /projects/current', 'The current project (public fields and client config)', {
    input: z.object({}),
    output: schemas.clientProjectSchema,
  }).query(({ ctx }) => service.toClientProjectDto(ctx.auth.project)),

  adminCurrent: op(adminProcedure, 'GET /internal/projects/current', 'The current project, admin view', {
    input: z.object({}),
    output: schemas.adminProjectSchema,
    protect: true,
  }).query(({ ctx }) => service.getAdminProject(ctx.deps, ctx.auth)),

  updateCurrent: op(adminProcedure, 'PATCH /internal/projects/current', 'Update the current project and its config', {
    input: schemas.projectUpdateSchema,
    output: schemas.adminProjectSchema,
    protect: true,
  }).mutation(({ ctx, input }) => service.updateAdminProject(ctx.deps, ctx.auth, input)),

  deleteCurrent: op(adminProcedure, 'DELETE /internal/projects/current', 'Delete the current project and all of its data', {
    input: z.object({}),
    output: successSchema,
    protect: true,
  }).mutation(succeedAfter(({ ctx }) => service.deleteAdminProject(ctx.deps, ctx.auth))),

  listOwned: op(accessProcedure('client'), 'GET /internal/projects', 'Projects owned by the signed-in owner (internal project only)', {
    input: z.object({}),
    output: shortList(schemas.adminProjectSchema),
  }).query(asShortList(({ ctx }) => service.listOwnedProjects(ctx.deps, ctx.auth))),

  createOwned: op(accessProcedure('client'), 'POST /internal/projects', 'Create a project owned by one of your teams (internal project only)', {
    input: schemas.projectCreateSchema,
    output: schemas.adminProjectSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.createOwnedProject(ctx.deps, ctx.auth, input)),

  transfer: op(accessProcedure('client'), 'POST /internal/projects/transfer', 'Move a project to another of your teams (internal project only)', {
    input: schemas.projectTransferSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.transferProject(ctx.deps, ctx.auth, input.project_id, input.new_team_id))),

  // Co-owners (literal paths before {user_id}, see ARCHITECTURE.md).
  listOwnerInvitations: op(
    accessProcedure('client'),
    'GET /internal/projects/{project_id}/owners/invitations',
    "Pending invitations to a project's owner team (internal project only)",
    {
      input: schemas.projectOwnersPathSchema,
      output: shortList(schemas.projectOwnerInvitationSchema),
    },
  ).query(asShortList(({ ctx, input }) => owners.listOwnerInvitations(ctx.deps, ctx.auth, input.project_id))),

  inviteOwner: op(
    accessProcedure('client'),
    'POST /internal/projects/{project_id}/owners/invitations',
    "Email an invitation to join a project's owner team; the link opens the console (internal project only)",
    { input: schemas.projectOwnerInviteSchema, output: schemas.projectOwnerInviteResultSchema, successStatus: 201 },
  ).mutation(({ ctx, input }) => owners.inviteOwner(ctx.deps, ctx.auth, input.project_id, input.email, ctx.ip)),

  revokeOwnerInvitation: op(
    accessProcedure('client'),
    'DELETE /internal/projects/{project_id}/owners/invitations/{invitation_id}',
    'Withdraw an owner invitation (internal project only)',
    { input: schemas.projectOwnerInvitationPathSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => owners.revokeOwnerInvitation(ctx.deps, ctx.auth, input.project_id, input.invitation_id))),

  listOwners: op(
    accessProcedure('client'),
    'GET /internal/projects/{project_id}/owners',
    "A project's owners: the members of its owner team (internal project only)",
    {
      input: schemas.projectOwnersPathSchema,
      output: schemas.projectOwnerListSchema,
    },
  ).query(({ ctx, input }) => owners.listOwners(ctx.deps, ctx.auth, input.project_id)),

  removeOwner: op(
    accessProcedure('client'),
    'DELETE /internal/projects/{project_id}/owners/{user_id}',
    'Remove an owner (yourself included); the last owner cannot be removed (internal project only)',
    { input: schemas.projectOwnerPathSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => owners.removeOwner(ctx.deps, ctx.auth, input.project_id, input.user_id))),

  getConfig: op(adminProcedure, 'GET /internal/config', 'The effective project config as JSON', {
    input: z.object({}),
    output: schemas.configOutputSchema,
    protect: true,
  }).query(async ({ ctx }) => ({ config_string: await service.getConfigString(ctx.deps, ctx.auth) })),

  overrideConfig: op(adminProcedure, 'PATCH /internal/config/override', 'Override config keys from a JSON object (dotted keys set nested values)', {
    input: schemas.configOverrideSchema,
    output: schemas.configOutputSchema,
    protect: true,
  }).mutation(async ({ ctx, input }) => {
    await service.overrideConfig(ctx.deps, ctx.auth, input.config_override_string, (value) => {
      const parsed = schemas.configUpdateSchema.safeParse(value);
      if (!parsed.success) throw schemaErrorFromIssues(parsed.error.issues);
      return parsed.data;
    });
    return { config_string: await service.getConfigString(ctx.deps, ctx.auth) };
  }),
});
