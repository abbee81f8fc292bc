/**
 * Connected accounts (issue 15 item 5): the provider's access and refresh tokens of an OAuth
 * account, sealed with the 'oauth-tokens' key and bound to their row, with scopes and expiry.
 *
 * `POST /connected-accounts/{user}/{provider}/access-token {scope}` hands out an access token that
 * has the scopes: a stored one with more than 5 minutes left, else one refreshed with a stored
 * refresh token that has them. A rotated refresh token replaces the old one in the same
 * transaction; a refresh token the provider refuses (invalid_grant) is marked invalid, and when
 * nothing else can serve the answer is PROVIDER_REJECTED. Tokens minted with shared keys are never
 * handed out (OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS).
 */
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import { clientConfiguration, providerErrorCode, resolveProvider } from './provider-client.js';
import * as q from './queries.js';
import { seal, unseal } from './sealing.js';

/** A provider that gives no lifetime: assume an hour (as Stack does). */
const DEFAULT_ACCESS_TOKEN_SECONDS = 3600;
/** A stored access token is handed out only with more than this left. */
const MIN_REMAINING_MILLIS = 5 * 60 * 1000;

function scopesOf(tokens: { scope?: string | undefined }, requested: readonly string[]): string[] {
  const granted = typeof tokens.scope === 'string' ? tokens.scope.split(/[\s,]+/).filter(Boolean) : [];
  return [...new Set(granted.length ? granted : requested)];
}

function binding(tenancyId: string, accountId: string, tokenId: string): string {
  return `${tenancyId}:${accountId}:${tokenId}:provider-token`;
}

async function insertSealed(
  db: Executor,
  deps: Deps,
  tenancy: Tenancy,
  accountId: string,
  kind: 'access' | 'refresh',
  token: string,
  scopes: string[],
  expiresAt: Date | null,
): Promise<void> {
  const id = randomUUID();
  await q.insertToken(db, {
    tenancy_id: tenancy.id,
    id,
    oauth_account_id: accountId,
    kind,
    token_sealed: seal(deps, token, binding(tenancy.id, accountId, id)),
    scopes,
    expires_at: expiresAt,
  });
}

/** Stores a token response of the provider for an account (sign-in, link, refresh). */
export async function storeProviderTokens(
  db: Executor,
  deps: Deps,
  tenancy: Tenancy,
  accountId: string,
  tokens: oidc.TokenEndpointResponse,
  requestedScopes: readonly string[],
): Promise<void> {
  const scopes = scopesOf(tokens, requestedScopes);
  const lifetime = typeof tokens.expires_in === 'number' ? tokens.expires_in : DEFAULT_ACCESS_TOKEN_SECONDS;
  await insertSealed(db, deps, tenancy, accountId, 'access', tokens.access_token, scopes, new Date(Date.now() + lifetime * 1000));
  if (tokens.refresh_token) await insertSealed(db, deps, tenancy, accountId, 'refresh', tokens.refresh_token, scopes, null);
}

/** The connected account's access token with the scopes (see the top of this file). */
export async function getConnectedAccessToken(
  deps: Deps,
  auth: AuthContext,
  userId: string,
  providerId: string,
  scope: string | undefined,
): Promise<{ access_token: string }> {
  const tenancy = auth.tenancy;
  const provider = await resolveProvider(deps, auth.project, providerId, { requireEnabled: false });
  if (provider.shared) throw new KnownErrors.OAuthAccessTokenNotAvailableWithSharedOAuthKeys();
  const wanted = (scope ?? '').split(/[\s,]+/).filter(Boolean);
  const accounts = (await q.listAccountsOfUser(deps.db, tenancy.id, userId)).filter((a) => a.provider_config_id === providerId && a.allow_connected_accounts);
  if (accounts.length === 0) throw new KnownErrors.OAuthConnectionNotConnectedToUser();
  const ids = accounts.map((a) => a.id);
  const hasScopes = (row: q.OAuthTokenRow) => wanted.every((s) => row.scopes.includes(s));

  for (const row of await q.listValidTokens(deps.db, tenancy.id, ids, 'access')) {
    if (!hasScopes(row) || !row.expires_at || row.expires_at.getTime() - Date.now() <= MIN_REMAINING_MILLIS) continue;
    return { access_token: unseal<string>(deps, row.token_sealed, binding(tenancy.id, row.oauth_account_id, row.id)) };
  }

  let rejected = false;
  const config = await clientConfiguration(provider);
  for (const row of await q.listValidTokens(deps.db, tenancy.id, ids, 'refresh')) {
    if (!hasScopes(row)) continue;
    const refreshToken = unseal<string>(deps, row.token_sealed, binding(tenancy.id, row.oauth_account_id, row.id));
    let tokens;
    try {
      tokens = await oidc.refreshTokenGrant(config, refreshToken);
    } catch (error) {
      const code = providerErrorCode(error);
      if (code === 'invalid_grant' || code === 'invalid_token' || code === 'unauthorized_client') {
        // The provider no longer honours it (revoked, expired, rotated elsewhere): never again.
        await q.invalidateToken(deps.db, tenancy.id, row.id);
        rejected = true;
        continue;
      }
      throw Object.assign(new KnownErrors.OAuthProviderRequestFailed(provider.id), { cause: error });
    }
    await deps.db.transaction().execute(async (trx) => {
      // A rotated refresh token replaces this one atomically with storing the new pair.
      const rotated = Boolean(tokens.refresh_token && tokens.refresh_token !== refreshToken);
      const stored: oidc.TokenEndpointResponse = {
        access_token: tokens.access_token,
        token_type: tokens.token_type,
        scope: tokens.scope ?? row.scopes.join(' '),
        ...(typeof tokens.expires_in === 'number' ? { expires_in: tokens.expires_in } : {}),
        ...(rotated ? { refresh_token: tokens.refresh_token } : {}),
      };
      if (rotated) await q.invalidateToken(trx, tenancy.id, row.id);
      await storeProviderTokens(trx, deps, tenancy, row.oauth_account_id, stored, row.scopes);
    });
    return { access_token: tokens.access_token };
  }
  if (rejected) throw new KnownErrors.ProviderRejected();
  throw new KnownErrors.OAuthConnectionDoesNotHaveRequiredScope();
}
