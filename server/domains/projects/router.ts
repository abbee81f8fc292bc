import { z } from 'zod';
import { schemaErrorFromIssues } from '../../errors/wire.js';
import { router } from '../../trpc/init.js';
import { accessProcedure, adminProcedure, clientProcedure } from '../../trpc/procedures.js';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/projects.js';
import * as service from './service.js';

const TAGS = ['Projects'];

export const projectsRouter = router({
  current: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/projects/current', tags: TAGS, summary: 'The current project (public fields and client config)' } })
    .input(z.object({}))
    .output(schemas.clientProjectSchema)
    .query(({ ctx }) => service.toClientProjectDto(ctx.auth.project)),

  adminCurrent: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/internal/projects/current', tags: TAGS, summary: 'The current project, admin view', protect: true } })
    .input(z.object({}))
    .output(schemas.adminProjectSchema)
    .query(({ ctx }) => service.getAdminProject(ctx.deps, ctx.auth)),

  updateCurrent: adminProcedure
    .meta({ openapi: { method: 'PATCH', path: '/internal/projects/current', tags: TAGS, summary: 'Update the current project and its config', protect: true } })
    .input(schemas.projectUpdateSchema)
    .output(schemas.adminProjectSchema)
    .mutation(({ ctx, input }) => service.updateAdminProject(ctx.deps, ctx.auth, input)),

  deleteCurrent: adminProcedure
    .meta({ openapi: { method: 'DELETE', path: '/internal/projects/current', tags: TAGS, summary: 'Delete the current project and all of its data', protect: true } })
    .input(z.object({}))
    .output(successSchema)
    .mutation(async ({ ctx }) => {
      await service.deleteAdminProject(ctx.deps, ctx.auth);
      return { success: true as const };
    }),

  listOwned: accessProcedure('client')
    .meta({ openapi: { method: 'GET', path: '/internal/projects', tags: TAGS, summary: 'Projects owned by the signed-in owner (internal project only)' } })
    .input(z.object({}))
    .output(shortList(schemas.adminProjectSchema))
    .query(async ({ ctx }) => ({ items: await service.listOwnedProjects(ctx.deps, ctx.auth), is_paginated: false as const })),

  createOwned: accessProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/internal/projects', tags: TAGS, summary: 'Create a project owned by one of your teams (internal project only)' }, successStatus: 201 })
    .input(schemas.projectCreateSchema)
    .output(schemas.adminProjectSchema)
    .mutation(({ ctx, input }) => service.createOwnedProject(ctx.deps, ctx.auth, input)),

  transfer: accessProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/internal/projects/transfer', tags: TAGS, summary: 'Move a project to another of your teams (internal project only)' } })
    .input(schemas.projectTransferSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.transferProject(ctx.deps, ctx.auth, input.project_id, input.new_team_id);
      return { success: true as const };
    }),

  getConfig: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/internal/config', tags: TAGS, summary: 'The effective project config as JSON', protect: true } })
    .input(z.object({}))
    .output(schemas.configOutputSchema)
    .query(async ({ ctx }) => ({ config_string: await service.getConfigString(ctx.deps, ctx.auth) })),

  overrideConfig: adminProcedure
    .meta({ openapi: { method: 'PATCH', path: '/internal/config/override', tags: TAGS, summary: 'Override config keys from a JSON object (dotted keys set nested values)', protect: true } })
    .input(schemas.configOverrideSchema)
    .output(schemas.configOutputSchema)
    .mutation(async ({ ctx, input }) => {
      await service.overrideConfig(ctx.deps, ctx.auth, input.config_override_string, (value) => {
        const parsed = schemas.configUpdateSchema.safeParse(value);
        if (!parsed.success) throw schemaErrorFromIssues(parsed.error.issues);
        return parsed.data;
      });
      return { config_string: await service.getConfigString(ctx.deps, ctx.auth) };
    }),
});
