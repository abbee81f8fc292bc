import { router } from '../../trpc/init.js';
import { asShortList, restOperations } from '../../trpc/operation.js';
import { clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import * as schemas from '../../../contract/schemas/user-team-api-keys.js';
import * as service from './service.js';

const op = restOperations(['API keys']);

export const userTeamApiKeysRouter = router({
  listUserKeys: op(clientProcedure, 'GET /user-api-keys', "A user's API keys (clients: their own)", {
    input: schemas.userApiKeyListQuerySchema,
    output: schemas.userApiKeyListSchema,
  }).query(asShortList(({ ctx, input }) => service.listApiKeys(ctx.deps, ctx.auth, { type: 'user', userIdParam: input.user_id }))),

  createUserKey: op(clientProcedure, 'POST /user-api-keys', 'Create a user API key (when allow_user_api_keys); the full key is in this response only', {
    input: schemas.userApiKeyCreateSchema,
    output: schemas.userApiKeyCreatedSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.createApiKey(ctx.deps, ctx.auth, { type: 'user', ...input })),

  checkUserKey: op(
    serverProcedure,
    'POST /user-api-keys/check',
    'Check a user API key: the key, or API_KEY_REVOKED / API_KEY_EXPIRED / API_KEY_NOT_FOUND / WRONG_API_KEY_TYPE',
    { input: schemas.apiKeyCheckSchema, output: schemas.userApiKeySchema },
  ).mutation(({ ctx, input }) => service.checkApiKey(ctx.deps, ctx.auth, 'user', input.api_key, ctx.ip)),

  getUserKey: op(clientProcedure, 'GET /user-api-keys/{api_key_id}', 'One user API key (last four characters only)', {
    input: schemas.apiKeyIdParamSchema,
    output: schemas.userApiKeySchema,
  }).query(({ ctx, input }) => service.getApiKey(ctx.deps, ctx.auth, 'user', input.api_key_id)),

  updateUserKey: op(clientProcedure, 'PATCH /user-api-keys/{api_key_id}', 'Change the description or expiry of a user API key, or revoke it (revoked: true)', {
    input: schemas.apiKeyUpdateSchema,
    output: schemas.userApiKeySchema,
  }).mutation(({ ctx, input }) => service.updateApiKey(ctx.deps, ctx.auth, 'user', input)),

  listTeamKeys: op(clientProcedure, 'GET /team-api-keys', "A team's API keys (clients: with $manage_api_keys)", {
    input: schemas.teamApiKeyListQuerySchema,
    output: schemas.teamApiKeyListSchema,
  }).query(asShortList(({ ctx, input }) => service.listApiKeys(ctx.deps, ctx.auth, { type: 'team', teamId: input.team_id }))),

  createTeamKey: op(
    clientProcedure,
    'POST /team-api-keys',
    'Create a team API key (when allow_team_api_keys; clients: with $manage_api_keys); the full key is in this response only',
    { input: schemas.teamApiKeyCreateSchema, output: schemas.teamApiKeyCreatedSchema, successStatus: 201 },
  ).mutation(({ ctx, input }) => service.createApiKey(ctx.deps, ctx.auth, { type: 'team', ...input })),

  checkTeamKey: op(
    serverProcedure,
    'POST /team-api-keys/check',
    'Check a team API key: the key, or API_KEY_REVOKED / API_KEY_EXPIRED / API_KEY_NOT_FOUND / WRONG_API_KEY_TYPE',
    { input: schemas.apiKeyCheckSchema, output: schemas.teamApiKeySchema },
  ).mutation(({ ctx, input }) => service.checkApiKey(ctx.deps, ctx.auth, 'team', input.api_key, ctx.ip)),

  getTeamKey: op(clientProcedure, 'GET /team-api-keys/{api_key_id}', 'One team API key (last four characters only)', {
    input: schemas.apiKeyIdParamSchema,
    output: schemas.teamApiKeySchema,
  }).query(({ ctx, input }) => service.getApiKey(ctx.deps, ctx.auth, 'team', input.api_key_id)),

  updateTeamKey: op(clientProcedure, 'PATCH /team-api-keys/{api_key_id}', 'Change the description or expiry of a team API key, or revoke it (revoked: true)', {
    input: schemas.apiKeyUpdateSchema,
    output: schemas.teamApiKeySchema,
  }).mutation(({ ctx, input }) => service.updateApiKey(ctx.deps, ctx.auth, 'team', input)),
});
