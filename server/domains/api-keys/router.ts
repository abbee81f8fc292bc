import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { adminProcedure } from '../../trpc/procedures.js';
import { z } from 'zod';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/api-keys.js';
import * as service from './service.js';

const op = restOperations(['Internal API keys'], { protect: true });
const oneKeySet = { input: schemas.apiKeySetIdSchema, output: schemas.apiKeySetSchema };

export const apiKeysRouter = router({
  list: op(adminProcedure, 'GET /internal/api-keys', "The project's key sets (last four characters only)", {
    input: z.object({}),
    output: shortList(schemas.apiKeySetSchema),
  }).query(asShortList(({ ctx }) => service.listApiKeySets(ctx.deps, ctx.auth))),

  create: op(adminProcedure, 'POST /internal/api-keys', 'Create a key set; the full keys are shown only in this response', {
    input: schemas.apiKeySetCreateSchema,
    output: schemas.apiKeySetCreatedSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.createApiKeySet(ctx.deps, ctx.auth, input)),

  get: op(adminProcedure, 'GET /internal/api-keys/{api_key_id}', 'One key set', oneKeySet).query(({ ctx, input }) =>
    service.getApiKeySet(ctx.deps, ctx.auth, input.api_key_id),
  ),

  update: op(adminProcedure, 'PATCH /internal/api-keys/{api_key_id}', 'Change the description, or revoke with revoked: true', {
    ...oneKeySet,
    input: schemas.apiKeySetUpdateSchema,
  }).mutation(({ ctx, input }) => service.updateApiKeySet(ctx.deps, ctx.auth, input.api_key_id, input)),

  delete: op(adminProcedure, 'DELETE /internal/api-keys/{api_key_id}', 'Delete a key set', { ...oneKeySet, output: successSchema }).mutation(
    succeedAfter(({ ctx, input }) => service.deleteApiKeySet(ctx.deps, ctx.auth, input.api_key_id)),
  ),
});
