import { router } from '../../trpc/init.js';
import { adminProcedure } from '../../trpc/procedures.js';
import { z } from 'zod';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/api-keys.js';
import * as service from './service.js';

const TAGS = ['Internal API keys'];

export const apiKeysRouter = router({
  list: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/internal/api-keys', tags: TAGS, summary: "The project's key sets (last four characters only)", protect: true } })
    .input(z.object({}))
    .output(shortList(schemas.apiKeySetSchema))
    .query(async ({ ctx }) => ({ items: await service.listApiKeySets(ctx.deps, ctx.auth), is_paginated: false as const })),

  create: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/internal/api-keys', tags: TAGS, summary: 'Create a key set; the full keys are shown only in this response', protect: true }, successStatus: 201 })
    .input(schemas.apiKeySetCreateSchema)
    .output(schemas.apiKeySetCreatedSchema)
    .mutation(({ ctx, input }) => service.createApiKeySet(ctx.deps, ctx.auth, input)),

  get: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/internal/api-keys/{api_key_id}', tags: TAGS, summary: 'One key set', protect: true } })
    .input(schemas.apiKeySetIdSchema)
    .output(schemas.apiKeySetSchema)
    .query(({ ctx, input }) => service.getApiKeySet(ctx.deps, ctx.auth, input.api_key_id)),

  update: adminProcedure
    .meta({ openapi: { method: 'PATCH', path: '/internal/api-keys/{api_key_id}', tags: TAGS, summary: 'Change the description, or revoke with revoked: true', protect: true } })
    .input(schemas.apiKeySetUpdateSchema)
    .output(schemas.apiKeySetSchema)
    .mutation(({ ctx, input }) => service.updateApiKeySet(ctx.deps, ctx.auth, input.api_key_id, input)),

  delete: adminProcedure
    .meta({ openapi: { method: 'DELETE', path: '/internal/api-keys/{api_key_id}', tags: TAGS, summary: 'Delete a key set', protect: true } })
    .input(schemas.apiKeySetIdSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.deleteApiKeySet(ctx.deps, ctx.auth, input.api_key_id);
      return { success: true as const };
    }),
});
