/**
 * The refresh grant: a refresh token in, a new access token out. Every way to refresh ends here:
 * - `POST /auth/sessions/current/refresh` (sessions/router.ts; the token in x-latch-refresh-token
 *   or x-latch-auth),
 * - `POST /auth/oauth/token` with grant_type=refresh_token (server/http/oauth-token.ts: the form
 *   body and the client's credentials, then refreshGrant below),
 * - the console's cookie session (server/http/console-session.ts).
 *
 * What makes a session live is the query `findLiveSessionByTokenHash` (sessions/queries.ts): the
 * row exists, belongs to this tenancy and has not expired. The other half of "expired", an access
 * token whose session is gone (signed out, revoked, user deleted) answering ACCESS_TOKEN_EXPIRED,
 * is checked once per request for every user-acting procedure by `requireLiveSession`
 * (server/access/policy.ts), switched on per procedure in server/trpc/procedures.ts.
 */
import type { Deps } from '../../deps.js';
import { hashSecret } from '../../crypto/tokens.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { Tenancy } from '../../access/context.js';
import { noteUserActive } from '../../access/policy.js';
import { mintAccessToken } from './access-token.js';
import * as q from './queries.js';

/**
 * Exchanges a refresh token for a new access token. The refresh token is not rotated, so many
 * concurrent refreshes of one token all succeed (tabs, retries); it dies with its session.
 */
export async function refreshAccessToken(deps: Deps, tenancy: Tenancy, refreshToken: string | null, ip: string | null): Promise<string> {
  if (!refreshToken) throw new KnownErrors.RefreshTokenNotFoundOrExpired();
  const row = await q.findLiveSessionByTokenHash(deps.db, tenancy.id, hashSecret(refreshToken));
  if (!row) throw new KnownErrors.RefreshTokenNotFoundOrExpired();
  if (Date.now() - row.session_last_used_at.getTime() > 60_000) await q.touchSession(deps.db, tenancy.id, row.session_id, ip);
  // Refreshing is acting: a client that only refreshes (and reads its token's claims) is active.
  noteUserActive(deps, tenancy.id, row.id);
  return mintAccessToken(deps, tenancy, row, row.session_id, row.session_expires_at);
}

/** The OAuth 2.0 token response (RFC 6749 §5.1) of the refresh_token grant. */
export interface OAuthRefreshResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: 'openid';
}

/** `POST /auth/oauth/token`, grant_type=refresh_token, once the client is authenticated as the project. */
export async function refreshGrant(deps: Deps, tenancy: Tenancy, refreshToken: string, ip: string | null): Promise<OAuthRefreshResponse> {
  const accessToken = await refreshAccessToken(deps, tenancy, refreshToken, ip);
  // expires_in from the token itself: it is shorter than the configured lifetime near the session's end.
  const { exp, iat } = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp: number; iat: number };
  return { access_token: accessToken, token_type: 'Bearer', expires_in: exp - iat, refresh_token: refreshToken, scope: 'openid' };
}
