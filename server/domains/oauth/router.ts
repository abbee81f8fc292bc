import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/oauth.js';
import { getConnectedAccessToken } from './connected-accounts.js';
import * as service from './oauth-providers.js';

const op = restOperations(['OAuth']);

/** /oauth-providers and /connected-accounts (the browser legs of the flow are server/http/oauth-flow.ts). */
export const oauthRouter = router({
  listProviders: op(clientProcedure, 'GET /oauth-providers', "A user's connected OAuth provider accounts (user_id defaults to me; clients: only their own)", {
    input: schemas.oauthProviderListQuerySchema,
    output: schemas.oauthProviderAccountListSchema,
  }).query(async ({ ctx, input }) => ({ items: await service.listProviderAccounts(ctx.deps, ctx.auth, input.user_id), is_paginated: false as const })),

  createProvider: op(serverProcedure, 'POST /oauth-providers', 'Connect a provider account to a user by hand (server)', {
    input: schemas.oauthProviderCreateSchema,
    output: schemas.oauthProviderAccountSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.createProviderAccount(ctx.deps, ctx.auth, input)),

  getProvider: op(clientProcedure, 'GET /oauth-providers/{user_id}/{provider_id}', 'One connected OAuth provider account', {
    input: schemas.oauthProviderParamsSchema,
    output: schemas.oauthProviderAccountSchema,
  }).query(({ ctx, input }) => service.getProviderAccount(ctx.deps, ctx.auth, input.user_id, input.provider_id)),

  updateProvider: op(
    clientProcedure,
    'PATCH /oauth-providers/{user_id}/{provider_id}',
    'Change allow_sign_in / allow_connected_accounts (server: email, account_id too)',
    { input: schemas.oauthProviderUpdateSchema.extend(schemas.oauthProviderParamsSchema.shape), output: schemas.oauthProviderAccountSchema },
  ).mutation(({ ctx, input }) => {
    const { user_id, provider_id, ...patch } = input;
    return service.updateProviderAccount(ctx.deps, ctx.auth, user_id, provider_id, patch);
  }),

  deleteProvider: op(clientProcedure, 'DELETE /oauth-providers/{user_id}/{provider_id}', 'Disconnect a provider account from its user', {
    input: schemas.oauthProviderParamsSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.deleteProviderAccount(ctx.deps, ctx.auth, input.user_id, input.provider_id))),

  connectedAccessToken: op(
    clientProcedure,
    'POST /connected-accounts/{user_id}/{provider_id}/access-token',
    "An access token of the user's connected provider account that has the scopes (refreshed when needed)",
    {
      input: schemas.connectedAccountAccessTokenBodySchema.extend(schemas.connectedAccountAccessTokenParamsSchema.shape),
      output: schemas.connectedAccountAccessTokenSchema,
    },
  ).mutation(({ ctx, input }) => getConnectedAccessToken(ctx.deps, ctx.auth, service.targetUser(ctx.auth, input.user_id), input.provider_id, input.scope)),
});
