import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/passkeys.js';
import * as service from './service.js';

const op = restOperations(['Passkeys']);

export const passkeysRouter = router({
  list: op(clientProcedure, 'GET /passkeys', "A user's passkeys (user_id defaults to me; clients: only their own)", {
    input: schemas.passkeyListQuerySchema,
    output: schemas.passkeyListSchema,
  }).query(async ({ ctx, input }) => ({ items: await service.listPasskeys(ctx.deps, ctx.auth, input.user_id), is_paginated: false as const })),

  update: op(clientProcedure, 'PATCH /passkeys/{user_id}/{passkey_id}', 'Rename a passkey', {
    input: schemas.passkeyUpdateSchema.extend(schemas.passkeyParamsSchema.shape),
    output: schemas.passkeySchema,
  }).mutation(({ ctx, input }) => service.renamePasskey(ctx.deps, ctx.auth, input.user_id, input.passkey_id, input.name)),

  delete: op(
    clientProcedure,
    'DELETE /passkeys/{user_id}/{passkey_id}',
    'Remove a passkey (clients: within 5 minutes of signing in; the last one turns passkey sign-in off)',
    { input: schemas.passkeyParamsSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => service.deletePasskey(ctx.deps, ctx.auth, input.user_id, input.passkey_id))),
});
