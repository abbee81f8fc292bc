/**
 * The OAuth flow of spec section 7 (the routes are server/http/oauth-flow.ts):
 *
 *   app ──GET /auth/oauth/authorize/{provider}?client_id&client_secret&redirect_uri&state
 *        &code_challenge(S256)&response_type=code&type&token&…──▶ Latch        (startAuthorize)
 *   Latch stores the flow (hashed inner state, sealed PKCE verifier, nonce and the app's
 *   parameters; 3600 s), sets a cookie binding it to this browser, redirects to the provider with
 *   its own state, PKCE S256 and nonce.
 *   provider ──GET|POST /auth/oauth/callback/{provider}?code&state[&iss]──▶ Latch (handleCallback)
 *   Latch uses the flow up (single use: a reload is INVALID_AUTHORIZATION_CODE; past 3600 s
 *   OUTER_OAUTH_TIMEOUT), exchanges the code with openid-client (state, PKCE, nonce, ID token, RFC
 *   9207 iss), reads the profile, finds or creates the user (accounts.ts), stores the provider's
 *   tokens sealed, signs in through completeSignIn (method 'oauth'), and redirects to the app's
 *   redirect_uri with its state and a Latch authorization code (hashed, single use, 5 minutes).
 *   app ──POST /auth/oauth/token grant_type=authorization_code&code&code_verifier&redirect_uri──▶
 *   Latch checks the app's PKCE and redirect_uri and hands over the session (redeemAuthorizationCode).
 */
import { createHash, randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Deps } from '../../deps.js';
import { constantTimeEqual, hashSecret, randomSecret } from '../../crypto/tokens.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { KnownError } from '../../../contract/errors/known-error.js';
import { DEFAULT_BRANCH_ID } from '../../../contract/config/project-config.js';
import type { ProjectRecord, Tenancy } from '../../access/context.js';
import { loadProjectTenancy, resolveAuth } from '../../access/resolve.js';
import { liveSessionUser, sessionStillLive } from '../../access/policy.js';
import { completeSignIn, holdSignInRefusal } from '../auth/sign-in.js';
import { assertTrustedCallbackUrl } from '../verification/service.js';
import { resolveAccount } from './accounts.js';
import { storeProviderTokens } from './connected-accounts.js';
import { clientConfiguration, fetchProfile, isProviderId, providerErrorCode, resolveProvider } from './provider-client.js';
import * as q from './queries.js';
import { seal, unseal } from './sealing.js';

/** The flow's lifetime: the spec's outer-state cookie lifetime (3600 s); OUTER_OAUTH_TIMEOUT after it. */
export const OAUTH_FLOW_SECONDS = 3600;
/** How long the app has to redeem the authorization code Latch redirects back with. */
export const OAUTH_CODE_MILLIS = 5 * 60 * 1000;
/** The browser cookie binding a flow to the browser that started it (name + the provider's state). */
export const FLOW_COOKIE_PREFIX = 'latch-oauth-inner-';

interface FlowData {
  projectId: string;
  branchId: string;
  providerId: string;
  codeVerifier: string | null;
  nonce: string | null;
  scopes: string[];
  outer: {
    redirectUri: string;
    state: string;
    codeChallenge: string;
    type: 'authenticate' | 'link';
    tokenUserId: string | null;
    /** The session of that token: it must still be live when the provider sends the user back. */
    tokenSessionId?: string | null;
    errorRedirectUrl: string | null;
    afterCallbackRedirectUrl: string | null;
  };
}

/**
 * What a code redeems to: the session the callback started or, for a user with MFA on, the MFA
 * gate's attempt code, which the token endpoint answers as MULTI_FACTOR_AUTHENTICATION_REQUIRED
 * (the SDK's callback page then asks for the second factor: react-ui/handler/oauth-callback.tsx).
 */
type CodeData =
  | { access_token: string; refresh_token: string; user_id: string; is_new_user: boolean; after_callback_redirect_url: string | null }
  | { mfa_attempt_code: string; after_callback_redirect_url: string | null };

export interface AuthorizeResult {
  location: string;
  cookie: { name: string; value: string; maxAgeSeconds: number; crossSitePost: boolean };
}

function schemaError(field: string, message: string): KnownError {
  return new KnownErrors.SchemaError(`Request validation failed:\n  - ${field} ${message}`, { issues: [{ path: field, message }] });
}

/** The provider's callback URL on this deployment: what a project registers at the provider. */
export function callbackUrl(deps: Deps, providerId: string): string {
  return `${deps.baseUrl()}/api/v1/auth/oauth/callback/${providerId}`;
}

/** A redirect URL with code and state removed (spec section 2). */
function withoutCodeAndState(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('code');
  parsed.searchParams.delete('state');
  return parsed.toString();
}

function trusted(project: ProjectRecord, field: string, url: string | undefined): string | null {
  if (url === undefined || url === '') return null;
  try {
    new URL(url);
  } catch {
    throw schemaError(field, 'must be a valid URL');
  }
  assertTrustedCallbackUrl(project, url);
  return withoutCodeAndState(url);
}

/** The longest provider_scope accepted: far above any real provider's scope list, small enough for the flow row and the provider URL. */
export const PROVIDER_SCOPE_MAX_LENGTH = 2048;
/** RFC 6749 section 3.3: scope = scope-token *( SP scope-token ), scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_SYNTAX = /^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/**
 * The extra scopes an app asks the provider for (provider_scope), refused with INVALID_SCOPE before
 * anything is stored or any redirect is made when they are not RFC 6749 scope syntax: the value goes
 * into the provider's authorize URL, so quotes, backslashes, control characters, non-ASCII, and
 * leading, trailing or doubled spaces never reach it. A comma inside a token is legal syntax; it is
 * still split on, as apps write GitHub's comma-separated scope lists.
 */
export function providerScopes(value: string | undefined): string[] {
  if (value === undefined || value === '') return [];
  if (value.length > PROVIDER_SCOPE_MAX_LENGTH)
    throw new KnownErrors.InvalidScope(value.slice(0, 64) + '…', `provider_scope must be at most ${PROVIDER_SCOPE_MAX_LENGTH} characters long.`);
  if (!SCOPE_SYNTAX.test(value)) {
    throw new KnownErrors.InvalidScope(
      value,
      `provider_scope ${JSON.stringify(value)} is not a valid OAuth scope: scope tokens are printable ASCII characters other than '"' and '\\', separated by single spaces (RFC 6749, section 3.3).`,
    );
  }
  return value.split(/[ ,]+/).filter(Boolean);
}

/** GET /auth/oauth/authorize/{provider}: checks the app's request, stores the flow, and sends the browser to the provider. */
export async function startAuthorize(deps: Deps, providerParam: string, query: Record<string, string | undefined>): Promise<AuthorizeResult> {
  const required = (name: string): string => {
    const value = query[name];
    if (!value) throw schemaError(name, 'is a required field');
    return value;
  };
  const clientId = required('client_id');
  const clientSecret = required('client_secret');
  const [projectId, branchId = DEFAULT_BRANCH_ID] = clientId.split('#') as [string, string?];
  let auth;
  try {
    auth = await resolveAuth(deps, {
      projectId,
      branchId,
      accessType: 'client',
      publishableClientKey: clientSecret,
      // The token of a link (or of an anonymous user to upgrade): checked as any request's would be.
      accessToken: query.token || null,
      refreshToken: null,
      secretServerKey: null,
      superSecretAdminKey: null,
      adminAccessToken: null,
      allowAnonymousUser: true,
      authHeader: null,
    });
  } catch (error) {
    if (error instanceof KnownError && ['CURRENT_PROJECT_NOT_FOUND', 'INVALID_PUBLISHABLE_CLIENT_KEY', 'BRANCH_DOES_NOT_EXIST'].includes(error.code))
      throw new KnownErrors.InvalidOAuthClientIdOrSecret(clientId);
    throw error;
  }
  if (!auth) throw new KnownErrors.InvalidOAuthClientIdOrSecret(clientId);
  const { project, tenancy } = auth;

  if (required('response_type') !== 'code') throw schemaError('response_type', 'must be code');
  if (query.grant_type !== undefined && query.grant_type !== 'authorization_code') throw schemaError('grant_type', 'must be authorization_code');
  const codeChallenge = required('code_challenge');
  if ((query.code_challenge_method ?? 'S256') !== 'S256') throw schemaError('code_challenge_method', 'must be S256');
  if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) throw schemaError('code_challenge', 'must be a base64url SHA-256 (S256) challenge');
  const outerState = required('state');
  if (outerState.length > 1024) throw schemaError('state', 'must be at most 1024 characters');
  const type = query.type ?? 'authenticate';
  if (type !== 'authenticate' && type !== 'link') throw schemaError('type', 'must be authenticate or link');
  const redirectUri = trusted(project, 'redirect_uri', required('redirect_uri'))!;
  const errorRedirectUrl = trusted(project, 'error_redirect_url', query.error_redirect_url);
  const afterCallbackRedirectUrl = trusted(project, 'after_callback_redirect_url', query.after_callback_redirect_url);

  let tokenUserId: string | null = null;
  let tokenSessionId: string | null = null;
  // Its session must be live: a signed-out token cannot link an account.
  if (auth.user) {
    tokenUserId = (await liveSessionUser(deps, auth)).id;
    tokenSessionId = auth.user.refresh_token_id;
  }
  if (type === 'link' && !tokenUserId) throw schemaError('token', 'is required when type is link');

  const extra = providerScopes(query.provider_scope);
  const provider = await resolveProvider(deps, project, providerParam);
  if (extra.length && provider.shared) throw new KnownErrors.OAuthExtraScopeNotAvailableWithSharedOAuthKeys();
  const scopes = [...new Set([...provider.definition.baseScopes, ...extra])];

  const state = oidc.randomState();
  const codeVerifier = provider.definition.pkce ? oidc.randomPKCECodeVerifier() : null;
  const nonce = provider.definition.oidc ? oidc.randomNonce() : null;
  const cookieSecret = randomSecret();
  const flowId = randomUUID();
  const data: FlowData = {
    projectId: project.id,
    branchId: tenancy.branchId,
    providerId: provider.id,
    codeVerifier,
    nonce,
    scopes,
    outer: { redirectUri, state: outerState, codeChallenge, type, tokenUserId, tokenSessionId, errorRedirectUrl, afterCallbackRedirectUrl },
  };
  await q.insertFlow(deps.db, {
    tenancy_id: tenancy.id,
    id: flowId,
    state_hash: hashSecret(state),
    cookie_hash: hashSecret(cookieSecret),
    provider_config_id: provider.id,
    sealed: seal(deps, data, `${tenancy.id}:${flowId}:flow`),
    expires_at: new Date(Date.now() + OAUTH_FLOW_SECONDS * 1000),
  });
  if (Math.random() < 0.01) await q.deleteExpired(deps.db);

  const config = await clientConfiguration(provider);
  const params: Record<string, string> = {
    redirect_uri: callbackUrl(deps, provider.id),
    scope: scopes.join(' '),
    state,
    response_type: 'code',
    ...provider.definition.authorizeParams?.({ microsoftTenantId: provider.config.microsoft_tenant_id, facebookConfigId: provider.config.facebook_config_id }),
  };
  if (codeVerifier) {
    params.code_challenge = await oidc.calculatePKCECodeChallenge(codeVerifier);
    params.code_challenge_method = 'S256';
  }
  if (nonce) params.nonce = nonce;
  return {
    location: oidc.buildAuthorizationUrl(config, params).toString(),
    cookie: { name: FLOW_COOKIE_PREFIX + state, value: cookieSecret, maxAgeSeconds: OAUTH_FLOW_SECONDS, crossSitePost: provider.definition.formPost === true },
  };
}

/** An error of the callback: where to send the browser (the app's error_redirect_url) when the flow says so. */
export class CallbackError extends Error {
  constructor(
    readonly error: unknown,
    readonly errorRedirectUrl: string | null,
  ) {
    super('OAuth callback failed');
  }
}

/**
 * GET or POST /auth/oauth/callback/{provider}: `params` are the query (and Apple's form body),
 * `cookies` the browser's. Returns where to redirect the browser; throws CallbackError.
 */
export async function handleCallback(
  deps: Deps,
  providerParam: string,
  params: URLSearchParams,
  cookies: Record<string, string>,
  ip: string | null,
): Promise<{ location: string; providerMillis: number }> {
  const state = params.get('state');
  if (!state) throw new CallbackError(new KnownErrors.InvalidAuthorizationCode(), null);
  const flow = await q.findFlowByStateHash(deps.db, hashSecret(state));
  if (!flow || flow.provider_config_id !== providerParam) throw new CallbackError(new KnownErrors.InvalidAuthorizationCode(), null);
  const data = unseal<FlowData>(deps, flow.sealed, `${flow.tenancy_id}:${flow.id}:flow`);
  const errorRedirect = data.outer.errorRedirectUrl;
  // A reloaded callback (or a second tab): the flow was used up.
  if (flow.consumed_at) throw new CallbackError(new KnownErrors.InvalidAuthorizationCode(), errorRedirect);
  if (flow.expires_at.getTime() <= Date.now()) throw new CallbackError(new KnownErrors.OuterOAuthTimeout(), errorRedirect);
  // The browser that started the flow holds its cookie: a callback link replayed in another browser
  // (login CSRF: signing the victim in to the attacker's account) has none.
  const cookie = cookies[FLOW_COOKIE_PREFIX + state];
  if (!cookie || !constantTimeEqual(hashSecret(cookie), flow.cookie_hash)) throw new CallbackError(new KnownErrors.InvalidAuthorizationCode(), errorRedirect);
  if (!(await q.consumeFlow(deps.db, flow.tenancy_id, flow.id))) throw new CallbackError(new KnownErrors.InvalidAuthorizationCode(), errorRedirect);

  try {
    const loaded = await loadProjectTenancy(deps, data.projectId, data.branchId);
    if (!loaded || loaded.tenancy.id !== flow.tenancy_id) throw new KnownErrors.InvalidAuthorizationCode();
    const { project, tenancy } = loaded;
    if (params.get('error')) {
      if (params.get('error') === 'access_denied') throw new KnownErrors.OAuthProviderAccessDenied();
      throw new KnownErrors.OAuthProviderRequestFailed(data.providerId);
    }
    const provider = await resolveProvider(deps, project, data.providerId);
    // Time spent waiting on the provider (discovery, token exchange, profile), reported apart from
    // Latch's own time in the callback's Server-Timing header.
    const providerStart = performance.now();
    const config = await clientConfiguration(provider);
    const currentUrl = new URL(callbackUrl(deps, provider.id));
    for (const [key, value] of params) if (key !== 'user') currentUrl.searchParams.append(key, value);
    let tokens;
    try {
      tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        expectedState: state,
        ...(data.codeVerifier ? { pkceCodeVerifier: data.codeVerifier } : {}),
        ...(data.nonce ? { expectedNonce: data.nonce, idTokenExpected: true } : {}),
      });
    } catch (error) {
      const code = providerErrorCode(error);
      if (code === 'access_denied') throw new KnownErrors.OAuthProviderAccessDenied();
      if (code === 'invalid_grant') throw new KnownErrors.InvalidAuthorizationCode();
      deps.log.warn(`OAuth token exchange with ${provider.id} failed`, { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      throw new KnownErrors.OAuthProviderRequestFailed(provider.id);
    }
    const profile = await fetchProfile(provider, tokens, params.get('user') ?? undefined).catch((error: unknown) => {
      if (error instanceof KnownError) throw error;
      deps.log.warn(`OAuth profile of ${provider.id} unreadable`, { error: error instanceof Error ? error.message : String(error) });
      throw new KnownErrors.OAuthProviderRequestFailed(provider.id);
    });
    const providerMillis = performance.now() - providerStart;

    const code = randomSecret();
    await deps.db.transaction().execute(async (trx) => {
      // The session that started a link (or an anonymous upgrade) may have been signed out while the
      // user was at the provider: the account is then attached to no one.
      const { tokenUserId, tokenSessionId } = data.outer;
      if (tokenUserId && !(tokenSessionId && (await sessionStillLive(trx, tenancy.id, tokenUserId, tokenSessionId)))) {
        throw new KnownErrors.UserAuthenticationRequired();
      }
      const resolved = await resolveAccount(deps, trx, tenancy, project, provider.id, profile, {
        type: data.outer.type,
        tokenUserId: data.outer.tokenUserId,
      });
      await storeProviderTokens(trx, deps, tenancy, resolved.account.id, tokens, data.scopes);
      // Held: for a user with MFA on, the account, its tokens and the attempt code commit, and the
      // code carries the attempt code instead of a session.
      const signedIn = await holdSignInRefusal(trx, () =>
        completeSignIn(deps, trx, {
          tenancy,
          user: resolved.user,
          method: 'oauth',
          isNewUser: resolved.isNewUser,
          ip,
          ...(resolved.provenChannel ? { provenChannel: resolved.provenChannel } : {}),
        }),
      );
      const codeId = randomUUID();
      const codeData: CodeData = signedIn.ok
        ? { ...signedIn.value, after_callback_redirect_url: data.outer.afterCallbackRedirectUrl }
        : { mfa_attempt_code: signedIn.refusal.details.attempt_code, after_callback_redirect_url: data.outer.afterCallbackRedirectUrl };
      await q.insertCode(trx, {
        tenancy_id: tenancy.id,
        id: codeId,
        code_hash: hashSecret(code),
        redirect_uri: data.outer.redirectUri,
        code_challenge: data.outer.codeChallenge,
        sealed: seal(deps, codeData, `${tenancy.id}:${codeId}:code`),
        expires_at: new Date(Date.now() + OAUTH_CODE_MILLIS),
      });
    });
    const back = new URL(data.outer.redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', data.outer.state);
    return { location: back.toString(), providerMillis };
  } catch (error) {
    throw new CallbackError(error, errorRedirect);
  }
}

/** The token response of the authorization_code grant (spec section 7: what the SDK reads). */
export interface OAuthCodeResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: 'openid';
  /** Latch's access token (a JWT signed by the project's key, audience the project: client_id). */
  id_token: string;
  user_id: string;
  is_new_user: boolean;
  after_callback_redirect_url: string | null;
}

/**
 * POST /auth/oauth/token, grant_type=authorization_code, once the client is authenticated as the
 * project: the code is used up first (a wrong verifier burns it too), then redirect_uri and PKCE
 * S256 must match what the authorize request said. Any mismatch is INVALID_AUTHORIZATION_CODE.
 */
export async function redeemAuthorizationCode(
  deps: Deps,
  tenancy: Tenancy,
  input: { code: string; codeVerifier: string; redirectUri: string },
): Promise<OAuthCodeResponse> {
  const row = await q.consumeCode(deps.db, tenancy.id, hashSecret(input.code));
  if (!row) throw new KnownErrors.InvalidAuthorizationCode();
  const challenge = createHash('sha256').update(input.codeVerifier).digest('base64url');
  if (!constantTimeEqual(challenge, row.code_challenge)) throw new KnownErrors.InvalidAuthorizationCode();
  let redirectUri: string;
  try {
    redirectUri = withoutCodeAndState(input.redirectUri);
  } catch {
    throw new KnownErrors.InvalidAuthorizationCode();
  }
  if (redirectUri !== row.redirect_uri) throw new KnownErrors.InvalidAuthorizationCode();
  const data = unseal<CodeData>(deps, row.sealed, `${tenancy.id}:${row.id}:code`);
  if ('mfa_attempt_code' in data) throw new KnownErrors.MultiFactorAuthenticationRequired(data.mfa_attempt_code);
  const { exp, iat } = JSON.parse(Buffer.from(data.access_token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp: number; iat: number };
  return {
    access_token: data.access_token,
    token_type: 'Bearer',
    expires_in: exp - iat,
    refresh_token: data.refresh_token,
    scope: 'openid',
    id_token: data.access_token,
    user_id: data.user_id,
    is_new_user: data.is_new_user,
    after_callback_redirect_url: data.after_callback_redirect_url,
  };
}

export { isProviderId };
