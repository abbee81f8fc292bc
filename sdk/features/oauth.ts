/**
 * OAuth (spec sections 2, 4 and 7, issue 15): sign-in and account linking with a provider, the
 * callback page's code exchange, provider access tokens of connected accounts, and the user's
 * provider accounts (all levels; server code names any user, and creates accounts).
 *
 * The flow is OAuth 2.0 with PKCE between the app and Latch (Latch then runs its own OAuth with
 * the provider): the app makes a code verifier and a state, keeps them in a cookie named after the
 * state for 3600 s (spec section 9, "OAuth outer state cookie lifetime"), sends the browser to
 * Latch's authorize URL, and on the callback page exchanges the code with the verifier at
 * `/auth/oauth/token`. The cookie is what ties the callback to this browser: a callback whose state
 * has no cookie (a reload, another tab, a forged link) is not exchanged (only a warning, as the
 * spec says).
 *
 * The authorize endpoint is a browser redirect and the token endpoint a form-body HTTP route, so
 * the code exchange goes through {@link OAuthFeature.oauthTokenRequest}; the provider accounts
 * (`/oauth-providers…`) and connected-account tokens are procedures (`oauth.*`) like every call.
 */
import { type LatchQuery } from '../cache.js';
import { AppCore, type SignInResult, USER_DATA } from '../core.js';
import { type ExpectedErrors, KnownErrors, LatchAssertionError, type Result, toResult } from '../errors.js';
import { knownErrorFromBody, knownErrorsByCode } from '../../contract/errors/known-errors.js';
import type { CallbackShared } from './oauth-callback.js';
import type { OAuthProviderId } from '../../contract/config/oauth-providers.js';
import { isAnonymousToken } from '../tokens.js';
import { type RouterInputs, type RouterOutputs, buildHeaders } from '../transport.js';

export type { OAuthProviderId } from '../../contract/config/oauth-providers.js';

/** A provider account of a user (spec section 3, "OAuth provider account"); `account_id` only for server code. */
export type OAuthProviderAccount = RouterOutputs['oauth']['createProvider'];

/** What may change on a provider account (spec section 7: PATCH takes `allow_sign_in` and `allow_connected_accounts`; server code also `email`, `account_id`). */
export type OAuthProviderAccountUpdate = Omit<RouterInputs['oauth']['updateProvider'], 'user_id' | 'provider_id'>;

/** A provider account made by server code (an account known from elsewhere). */
export type OAuthProviderAccountCreateInput = RouterInputs['oauth']['createProvider'];

/** Why a provider account could not be created or updated: another one of this provider signs in with that account. */
export type OAuthProviderAccountError = ExpectedErrors<'OAuthProviderAccountIdAlreadyUsedForSignIn'>;
const PROVIDER_ACCOUNT_ERRORS = [KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn];

/** Options of {@link OAuthFeature.signInWithOAuth} and {@link OAuthFeature.linkOAuthAccount}. */
export interface OAuthFlowOptions {
  /**
   * The app's callback page, which calls {@link OAuthFeature.callOAuthCallback} (default: the
   * `urls.oauthCallback` page, `/handler/oauth-callback`, resolved against the current page).
   * Required outside a browser. It must be on a trusted domain and carry no `code` or `state`.
   */
  callbackUrl?: string;
  /** Where Latch sends the browser when the flow fails (the provider refused, say). Default: the callback URL, whose page shows the error. */
  errorRedirectUrl?: string;
  /** Where the callback page goes after linking (default: the page that started the link). */
  afterCallbackRedirectUrl?: string;
  /** Extra scopes to ask the provider for (needs the project's own client id for that provider). */
  providerScope?: string | readonly string[];
  /**
   * Return the URL (and the verifier to keep) instead of redirecting, even in a browser. Outside a
   * browser the URL is always returned.
   */
  returnUrl?: boolean;
}

/** A started flow: open `url`, keep `codeVerifier`, `redirectUri` and `type` for {@link OAuthFeature.callOAuthCallback}. */
export interface OAuthStart {
  url: string;
  state: string;
  codeVerifier: string;
  redirectUri: string;
  type: 'authenticate' | 'link';
}

/** What the callback page learns from a completed flow (the session's tokens went to the token store). */
export interface OAuthCallbackResult extends SignInResult {
  /** `'link'` when an account was connected to the signed-in user, else `'authenticate'`. */
  type: 'authenticate' | 'link';
  /** The `afterCallbackRedirectUrl` the flow was started with (null when none). */
  after_callback_redirect_url: string | null;
}

/** Options of {@link OAuthFeature.callOAuthCallback}: outside a browser, what the flow's start returned. */
export interface OAuthCallbackOptions {
  /** The callback URL as it arrived (default: the current page). */
  url?: string;
  /** The verifier, redirect URI and type of {@link OAuthStart} (default: read from the state's cookie, in a browser). */
  codeVerifier?: string;
  redirectUri?: string;
  type?: 'authenticate' | 'link';
}

/** Options of {@link OAuthFeature.getConnectedAccount}. */
export interface ConnectedAccountOptions {
  /** Scopes the access token must have (default: none beyond the sign-in's). */
  scopes?: readonly string[];
  /**
   * When the user has no such account, or it lacks the scopes: `'return-null'` (default), `'throw'`
   * the server's error, or `'redirect'` to the provider to (re)connect it asking for the scopes.
   */
  or?: 'redirect' | 'throw' | 'return-null';
  /** Server code: whose account (default: the signed-in user). */
  userId?: string;
}

/** A connected account's provider access token, with the scopes asked for. */
export interface ConnectedAccount {
  provider: string;
  access_token: string;
}

/** The outer state cookie's lifetime (spec section 9). */
export const OAUTH_OUTER_STATE_COOKIE_SECONDS = 3600;
/** The name of the cookie that keeps a flow's verifier, per state. */
export const OAUTH_OUTER_STATE_COOKIE_PREFIX = 'latch-oauth-outer-';
/** The page that completes the flow when the options name none (spec section 2). */
export const DEFAULT_OAUTH_CALLBACK_PAGE = '/handler/oauth-callback';

/** What a change of provider accounts touches: the lists, and the user (`oauth_providers`, member profiles). */
const OAUTH_DATA = ['oauth.', ...USER_DATA] as const;

/** Redirect wait (spec section 9). */
const REDIRECT_WAIT_MS = 2000;

interface OuterState {
  /** code verifier */
  v: string;
  /** redirect URI sent to authorize (the token call must repeat it exactly) */
  r: string;
  /** flow type */
  t: 'authenticate' | 'link';
}

// ─── PKCE (RFC 7636) with Web Crypto: the same code in browsers and Node ≥ 20 ─────────────────────

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes as base64url (43 characters: within RFC 7636's 43–128). */
export function randomOAuthString(): string {
  return base64Url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/** The S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export async function codeChallengeS256(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

/** `url` without its `code` and `state` parameters (spec section 2: OAuth redirect URLs must not carry them). */
export function withoutCodeAndState(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('code');
  parsed.searchParams.delete('state');
  return parsed.href;
}

// ─── The outer-state cookie (browser only) ───────────────────────────────────────────────────────

function hasCookies(): boolean {
  return typeof document !== 'undefined' && typeof document.cookie === 'string';
}

function writeOuterState(state: string, value: OuterState): void {
  const secure = typeof location !== 'undefined' && location.protocol === 'https:' ? '; secure' : '';
  document.cookie = `${OAUTH_OUTER_STATE_COOKIE_PREFIX}${state}=${encodeURIComponent(JSON.stringify(value))}; path=/; max-age=${OAUTH_OUTER_STATE_COOKIE_SECONDS}; samesite=lax${secure}`;
}

const callbackShared: CallbackShared = {
  cookiePrefix: OAUTH_OUTER_STATE_COOKIE_PREFIX,
  knownErrorFromBody,
  knownErrorsByCode,
  accessDenied: () => new KnownErrors.OAuthProviderAccessDenied(),
  assertionError: (message) => new LatchAssertionError(message),
};

/** OAuth: sign-in and linking with a provider, the callback, connected accounts and provider accounts. */
export abstract class OAuthFeature extends AppCore {
  // ─── The flow ──────────────────────────────────────────────────────────────────────────────────

  /**
   * Signs in (or up) with a provider: in a browser, keeps the flow's verifier in a cookie and
   * sends the browser to the provider (through Latch); the callback page then calls
   * {@link callOAuthCallback}. An anonymous user who signs in this way is upgraded in place.
   * Outside a browser (or with `returnUrl`), returns the URL to open and the verifier to keep;
   * `callbackUrl` is then required.
   *
   * @example
   * await app.signInWithOAuth('github'); // the browser leaves for GitHub
   * const { url, codeVerifier, redirectUri } = await app.signInWithOAuth('google', { callbackUrl: 'myapp://oauth', returnUrl: true });
   */
  async signInWithOAuth(provider: OAuthProviderId | string, options: OAuthFlowOptions = {}): Promise<OAuthStart> {
    // An anonymous session's token goes along, so that the account is upgraded instead of replaced.
    const tokens = await this.session.peek();
    const token = tokens.accessToken && isAnonymousToken(tokens.accessToken) ? (await this.session.getTokens()).accessToken : null;
    return this.startOAuthFlow(provider, 'authenticate', token, options, 'signInWithOAuth');
  }

  /**
   * Connects another provider account to the signed-in user (for sign-in or for its access
   * tokens), like {@link signInWithOAuth}. The callback page then goes to `afterCallbackRedirectUrl`
   * (default: this page).
   *
   * @example
   * await app.linkOAuthAccount('google', { providerScope: ['https://www.googleapis.com/auth/drive.readonly'] });
   */
  async linkOAuthAccount(provider: OAuthProviderId | string, options: OAuthFlowOptions = {}): Promise<OAuthStart> {
    const accessToken = await this.getAccessToken();
    if (!accessToken) throw new Error('linkOAuthAccount needs a signed-in user: sign in first, or use signInWithOAuth.');
    const afterCallbackRedirectUrl = options.afterCallbackRedirectUrl ?? (typeof window !== 'undefined' && window.location ? window.location.href : undefined);
    return this.startOAuthFlow(provider, 'link', accessToken, { ...options, afterCallbackRedirectUrl }, 'linkOAuthAccount');
  }

  /**
   * The authorize URL of a flow (spec section 7, every query parameter); in a browser, unless
   * `returnUrl`, also stores the verifier and redirects.
   */
  protected async startOAuthFlow(
    provider: string,
    type: 'authenticate' | 'link',
    token: string | null,
    options: OAuthFlowOptions,
    method: string,
  ): Promise<OAuthStart> {
    const browser = hasCookies() && typeof window !== 'undefined';
    const callbackUrl = options.callbackUrl ?? this.oauthCallbackPage(method);
    // Spec section 2: a redirect URL must not carry code or state; they are removed.
    const redirectUri = withoutCodeAndState(callbackUrl);
    const state = randomOAuthString();
    const codeVerifier = randomOAuthString();
    const query = new URLSearchParams({
      client_id: this.projectId,
      client_secret: this.credentials.publishableClientKey ?? '',
      redirect_uri: redirectUri,
      scope: 'legacy',
      state,
      grant_type: 'authorization_code',
      code_challenge: await codeChallengeS256(codeVerifier),
      code_challenge_method: 'S256',
      response_type: 'code',
      type,
      error_redirect_url: withoutCodeAndState(options.errorRedirectUrl ?? redirectUri),
    });
    if (!this.credentials.publishableClientKey) query.delete('client_secret');
    if (token) query.set('token', token);
    if (options.afterCallbackRedirectUrl) query.set('after_callback_redirect_url', options.afterCallbackRedirectUrl);
    const scopes = typeof options.providerScope === 'string' ? options.providerScope : options.providerScope?.join(' ');
    if (scopes) query.set('provider_scope', scopes);
    const url = `${this.baseUrl}/api/v1/auth/oauth/authorize/${encodeURIComponent(provider)}?${query.toString()}`;
    const start: OAuthStart = { url, state, codeVerifier, redirectUri, type };
    if (!browser || options.returnUrl) return start;

    writeOuterState(state, { v: codeVerifier, r: redirectUri, t: type });
    const redirect = this.options.redirectMethod ?? ((to: string) => window.location.assign(to));
    await redirect(url);
    await new Promise((resolve) => setTimeout(resolve, REDIRECT_WAIT_MS));
    return start;
  }

  /** The absolute callback page (default `/handler/oauth-callback`); an error naming `method` outside a browser. */
  protected oauthCallbackPage(method: string): string {
    const page = this.options.urls?.oauthCallback ?? DEFAULT_OAUTH_CALLBACK_PAGE;
    if (/^https?:\/\//i.test(page)) return page;
    if (typeof window !== 'undefined' && typeof window.location?.href === 'string') return new URL(page, window.location.href).href;
    throw new Error(
      `${method} needs a callbackUrl outside a browser (the absolute URL of your app's ${DEFAULT_OAUTH_CALLBACK_PAGE} page), or an absolute urls.oauthCallback option.`,
    );
  }

  /**
   * Completes a flow on the callback page: reads `code` and `state` from the URL, checks the state
   * against this browser's cookie (consuming it), removes `code` and `state` from the address bar,
   * exchanges the code with the verifier at `/auth/oauth/token` and stores the session. Returns
   * null, with a warning, when the URL has no code and state or the state has no cookie (a
   * reloaded callback, another browser). A failed flow (the provider refused, the code was used)
   * throws the server's error; `MultiFactorAuthenticationRequired` carries `details.attempt_code`.
   *
   * @example
   * const result = await app.callOAuthCallback();
   * if (result) location.assign(result.is_new_user ? '/welcome' : '/');
   */
  async callOAuthCallback(options: OAuthCallbackOptions = {}): Promise<OAuthCallbackResult | null> {
    // Loaded on first use: only the callback page needs it, so it stays out of every other page's bundle.
    const { completeOAuthCallback } = await import('./oauth-callback.js');
    return completeOAuthCallback(options, {
      shared: callbackShared,
      beforeExchange: () => this.session.peek(), // an app without a token store fails here, before the code is spent
      exchange: (form) => this.oauthTokenRequest(form),
      store: async (tokens) => {
        await this.session.setTokens(tokens);
        this.invalidate(['users.', 'sessions.', 'oauth.']);
      },
    });
  }

  // ─── Connected accounts ────────────────────────────────────────────────────────────────────────

  /**
   * A provider access token of the user's connected account that has `scopes` (Latch refreshes it
   * when needed). When the user has no such account or it lacks the scopes (spec section 8: "treated
   * as no token, or a redirect to reconnect if requested"): `or: 'return-null'` (default) gives null,
   * `'throw'` the server's error, `'redirect'` starts {@link linkOAuthAccount} asking for the scopes.
   *
   * @example
   * const google = await app.getConnectedAccount('google', { scopes: ['https://www.googleapis.com/auth/drive.readonly'], or: 'redirect' });
   * await fetch('https://www.googleapis.com/drive/v3/files', { headers: { authorization: `Bearer ${google.access_token}` } });
   */
  getConnectedAccount(provider: string, options: ConnectedAccountOptions & { or: 'redirect' | 'throw' }): Promise<ConnectedAccount>;
  getConnectedAccount(provider: string, options?: ConnectedAccountOptions): Promise<ConnectedAccount | null>;
  async getConnectedAccount(provider: string, options: ConnectedAccountOptions = {}): Promise<ConnectedAccount | null> {
    const scopes = options.scopes ?? [];
    const user = options.userId ?? 'me';
    try {
      const input = { user_id: user, provider_id: provider, scope: scopes.join(' ') };
      const token = await this.call((context) => this.trpc.oauth.connectedAccessToken.mutate(input, { context }), {
        session: this.sessionFor(options.userId),
      });
      return { provider, access_token: token.access_token };
    } catch (error) {
      const missing = error instanceof KnownErrors.OAuthConnectionDoesNotHaveRequiredScope || error instanceof KnownErrors.OAuthConnectionNotConnectedToUser;
      if (!missing) throw error;
      switch (options.or ?? 'return-null') {
        case 'throw':
          throw error;
        case 'redirect':
          if (options.userId !== undefined && options.userId !== 'me') throw error;
          await this.linkOAuthAccount(provider, { providerScope: scopes });
          throw new Error(`Redirected to ${provider} to connect the account, but the page did not leave.`);
        default:
          return null;
      }
    }
  }

  // ─── Provider accounts of a user ──────────────────────────────────────────────────────────────

  /**
   * A user's provider accounts as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.oauthProvidersQuery(), (state) => console.log(state.data?.map((p) => p.type)));
   */
  oauthProvidersQuery(options: { userId?: string } = {}): LatchQuery<OAuthProviderAccount[]> {
    return this.userListQuery(options.userId, 'oauth.listProviders', (input, context) => this.trpc.oauth.listProviders.query(input, { context }));
  }

  /**
   * A user's provider accounts (default: the signed-in user's; server code names any user).
   *
   * @example
   * const github = (await app.listOAuthProviders()).find((p) => p.type === 'github');
   */
  async listOAuthProviders(options: { userId?: string } = {}): Promise<OAuthProviderAccount[]> {
    return this.queryClient.fetchQuery(this.oauthProvidersQuery(options));
  }

  /**
   * Changes whether a provider account signs in (one account per provider may) and whether its
   * tokens may be used (`allow_connected_accounts`). A second sign-in account of the same provider
   * account is a result error.
   *
   * @example
   * const result = await app.updateOAuthProvider(account.id, { allow_sign_in: false });
   */
  async updateOAuthProvider(
    id: string,
    patch: OAuthProviderAccountUpdate,
    options: { userId?: string } = {},
  ): Promise<Result<OAuthProviderAccount, OAuthProviderAccountError>> {
    const input = { ...patch, user_id: options.userId ?? 'me', provider_id: id };
    const update = this.mutate([...OAUTH_DATA], (context) => this.trpc.oauth.updateProvider.mutate(input, { context }), {
      session: this.sessionFor(options.userId),
    });
    return toResult(update, PROVIDER_ACCOUNT_ERRORS);
  }

  /**
   * Disconnects a provider account from a user (its stored provider tokens go with it).
   *
   * @example
   * await app.deleteOAuthProvider(account.id);
   */
  async deleteOAuthProvider(id: string, options: { userId?: string } = {}): Promise<void> {
    const input = { user_id: options.userId ?? 'me', provider_id: id };
    await this.mutate([...OAUTH_DATA], (context) => this.trpc.oauth.deleteProvider.mutate(input, { context }), { session: this.sessionFor(options.userId) });
  }

  // ─── The token endpoint ──────────────────────────────────────────────────────────────────────

  /**
   * A POST of a form to `/auth/oauth/token` (a plain express route, not a procedure: OAuth sends
   * forms) with the app's `x-latch-*` headers and its client credentials (`client_id` = the
   * project, `client_secret` = the publishable key). Latch's error bodies `{code, error, details}`
   * become catalogue errors; an OAuth-style `{error, error_description}` becomes an Error.
   */
  protected async oauthTokenRequest<T>(form: Record<string, string>): Promise<T> {
    const { tokenRequest } = await import('./oauth-callback.js');
    return this.call(
      async (context) =>
        tokenRequest<T>(form, {
          projectId: this.projectId,
          baseUrl: this.baseUrl,
          publishableClientKey: this.credentials.publishableClientKey,
          headers: await buildHeaders(this.credentials, context),
          fetch: this.options.fetch,
          shared: callbackShared,
        }),
      { access: 'client' },
    );
  }
}

/** Provider accounts made by server code. */
export abstract class ServerOAuthFeature extends OAuthFeature {
  /**
   * Connects a provider account to a user without the flow (an account known from elsewhere).
   * Another sign-in account with the same provider account id is a result error.
   *
   * @example
   * await server.createOAuthProvider({ user_id: user.id, provider_config_id: 'github', account_id: '583231', allow_sign_in: true, allow_connected_accounts: false });
   */
  async createOAuthProvider(input: OAuthProviderAccountCreateInput): Promise<Result<OAuthProviderAccount, OAuthProviderAccountError>> {
    const create = this.mutate([...OAUTH_DATA], (context) => this.trpc.oauth.createProvider.mutate(input, { context }));
    return toResult(create, PROVIDER_ACCOUNT_ERRORS);
  }
}
