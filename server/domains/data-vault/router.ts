import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/data-vault.js';
import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { serverProcedure } from '../../trpc/procedures.js';
import * as service from './service.js';

const op = restOperations(['Data vault'], { protect: true });

export const dataVaultRouter = router({
  set: op(serverProcedure, 'POST /data-vault/stores/{store}/set', 'Store an encrypted value under a hashed key (both made by the SDK)')
    .input(schemas.dataVaultSetSchema)
    .output(successSchema)
    .mutation(succeedAfter(({ ctx, input }) => service.setValue(ctx.deps, ctx.auth, input.store, input.hashed_key, input.encrypted_value))),

  get: op(serverProcedure, 'POST /data-vault/stores/{store}/get', 'Read the encrypted value stored under a hashed key')
    .input(schemas.dataVaultGetSchema)
    .output(schemas.dataVaultValueSchema)
    .mutation(async ({ ctx, input }) => ({ encrypted_value: await service.getValue(ctx.deps, ctx.auth, input.store, input.hashed_key) })),
});
