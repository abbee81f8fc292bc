/**
 * The core every Latch app stands on: options and credentials, the call (transport, the session's
 * tokens, error mapping, one retry after a rejected access token), the cache keys and their
 * invalidation, session-change listeners, and the helpers several features share (storing a new
 * session, the default pages of the emailed links). It has no feature methods of its own.
 *
 * Features (`sdk/features/<area>.ts`) are abstract classes extending {@link AppCore} (or another
 * feature they build on); `client-app.ts`, `server-app.ts` and `admin-app.ts` compose them into
 * the apps with {@link composeFeatures} and an interface of the same name, so each app's type
 * lists exactly its features' methods.
 *
 * The pattern every method follows, and every later feature should follow:
 * - a read is a `xxxQuery()` (a cached query: key + function) plus `getXxx()` / `listXxx()` that
 *   fetch it through the cache;
 * - a write calls the procedure through {@link AppCore.call} and then invalidates the cached
 *   reads it changes (by procedure prefix, e.g. `users.`);
 * - a write whose failures are part of its contract returns a {@link Result}; the rest throw.
 * Wire shapes (snake_case) are returned as the server sends them, typed from `AppRouter`.
 */
import { type QueryClient, type QueryKey, hashKey } from '@tanstack/query-core';
import { type LatchQuery, type QueryState, createQueryClient, defineQuery, subscribeToQuery } from './cache.js';
import {
  type KnownErrorClass,
  KnownErrors,
  type Result,
  SEND_EMAIL_ERRORS,
  type SendEmailError,
  isKnownErrorInGroup,
  orNull,
  toLatchError,
  toResult,
} from './errors.js';
import { type TokenPair, type TokenStore, type TokenStoreInit, TokenSession, isAnonymousToken, resolveTokenStore } from './tokens.js';
import {
  type AccessLevel,
  type CallContext,
  type Credentials,
  DEFAULT_BASE_URL,
  type LatchTrpcClient,
  type RouterOutputs,
  createTransport,
} from './transport.js';

// ─── Options ──────────────────────────────────────────────────────────────────────────────────────

export interface ClientAppOptions {
  /** The project's id. Default: the `LATCH_PROJECT_ID` environment variable. */
  projectId?: string;
  /** The project's publishable client key. Default: `LATCH_PUBLISHABLE_CLIENT_KEY`. */
  publishableClientKey?: string;
  /** Where Latch runs. Default: `LATCH_API_URL`, else `http://localhost:8400`. */
  baseUrl?: string;
  /** The project's branch (default `main`). */
  branchId?: string;
  /**
   * A name for this app, unique in the process (spec section 8): a second app made with the same
   * one throws, so two copies of the SDK (or an app made twice by hot reloading) cannot quietly
   * share a cookie store with different settings. Omit it to allow any number of apps.
   */
  uniqueIdentifier?: string;
  /**
   * Where the session's tokens live: `'cookie'` (default in browsers), `'memory'` (default
   * elsewhere), your own `{ get, set }` store, fixed `{ accessToken, refreshToken }`, or `null`.
   */
  tokenStore?: TokenStoreInit;
  /**
   * Pages of your app. `signIn` (default `/handler/sign-in`) is where `getUser({ or: 'redirect' })`
   * goes (and the link of sign-in invitations). The links of the emails, when a call is given no
   * callback URL (resolved against the page in a browser; elsewhere they must be absolute):
   * `teamInvitation` (default `/handler/team-invitation`, `inviteUser`), `passwordReset`
   * (`/handler/password-reset`, `sendForgotPasswordEmail`), `magicLinkCallback`
   * (`/handler/magic-link-callback`, `sendMagicLinkEmail`) and `emailVerification`
   * (`/handler/email-verification`, `sendVerificationEmail`, `sendContactChannelVerificationEmail`).
   * `oauthCallback` (default `/handler/oauth-callback`) is where OAuth flows come back
   * (`signInWithOAuth`, `linkOAuthAccount`).
   */
  urls?: { signIn?: string; teamInvitation?: string; passwordReset?: string; magicLinkCallback?: string; emailVerification?: string; oauthCallback?: string };
  /** How to redirect (default `window.location.assign`); pass your framework's redirect on a server. */
  redirectMethod?: (url: string) => void | Promise<void>;
  /** A fetch to send requests with (default: the global one). */
  fetch?: typeof fetch;
  /** Base of the network-retry backoff in ms (default 1000). For tests. */
  retryBaseDelayMs?: number;
  /**
   * A 429 with Retry-After is waited out and the call repeated when the wait is at most this many
   * ms (default 10000); a longer one throws RATE_LIMITED at once (`details.retry_after_seconds`).
   */
  maxRetryAfterMs?: number;
  /**
   * Ask the server to answer errors with status 200 (the real status in `x-latch-actual-status`),
   * for platforms that hide the body of a non-2xx response from the code that made the request.
   * Errors still reach you as the same known errors. Default false.
   *
   * @example
   * const app = new ClientApp({ projectId, publishableClientKey, overrideErrorStatus: true });
   */
  overrideErrorStatus?: boolean;
}

/** Options of `call`. */
export interface CallOptions {
  /** The access level to call with (default: the app's). */
  access?: AccessLevel;
  /** Send the session's access token (refreshed when needed; retried once if the server rejects it). */
  session?: boolean | TokenSession;
  projectId?: string;
  /** An explicit access token (or a getter of one), when not using the session. */
  accessToken?: string | null | (() => string | null | Promise<string | null>);
  refreshToken?: string | null;
}

/** What a successful sign-in or sign-up says (the tokens went to the token store). */
export interface SignInResult {
  user_id: string;
  is_new_user: boolean;
}

/** The app's pages by default (spec section 2): the links of the emails and the sign-in page. */
export const HANDLER_PAGES = {
  signIn: '/handler/sign-in',
  teamInvitation: '/handler/team-invitation',
  passwordReset: '/handler/password-reset',
  magicLinkCallback: '/handler/magic-link-callback',
  emailVerification: '/handler/email-verification',
} as const;

// ─── What a write touches (cache invalidation shared by several features) ─────────────────────────

/**
 * What a change of membership can touch: teams and member profiles, users (the selected team, the
 * team filter of the user list), permission grants (they go with the membership), invitations and
 * team API keys.
 */
export const MEMBERSHIP_DATA = ['teams.', 'users.', 'permissions.', 'teamInvitations.', 'userTeamApiKeys.'] as const;

/** A user's name and image are the fallback of their member profiles: a change of them reaches those too. */
export const USER_DATA = ['users.', 'teams.listMemberProfiles', 'teams.getMemberProfile'] as const;

/** What a change of contact channels can touch: the channels and the user (primary email and its verification). */
export const CONTACT_CHANNEL_DATA = ['contactChannels.', ...USER_DATA] as const;

// ─── Credentials ──────────────────────────────────────────────────────────────────────────────────

/** An environment variable, where there is an environment (never in a browser bundle). */
export function envVar(name: string): string | undefined {
  return typeof process !== 'undefined' && typeof process.env === 'object' ? process.env[name] || undefined : undefined;
}

/** The credentials every app has: project, branch and (optional) publishable client key. */
export function clientCredentials(options: ClientAppOptions): Credentials {
  const projectId = options.projectId ?? envVar('LATCH_PROJECT_ID');
  if (!projectId) throw new Error('No project id: pass projectId to the Latch app, or set the LATCH_PROJECT_ID environment variable.');
  return { projectId, branchId: options.branchId, publishableClientKey: options.publishableClientKey ?? envVar('LATCH_PUBLISHABLE_CLIENT_KEY') };
}

/** Whether an error means "nobody is signed in" (no user, or a session the server no longer accepts). */
export function isSignedOutError(error: unknown): boolean {
  return (
    error instanceof KnownErrors.CannotGetOwnUserWithoutUser ||
    error instanceof KnownErrors.UserAuthenticationRequired ||
    isKnownErrorInGroup(error, 'InvalidAccessToken')
  );
}

/** The unique identifiers of the apps made in this process (`ClientAppOptions.uniqueIdentifier`). */
const appIdentifiers = new Set<string>();

// ─── The app core ─────────────────────────────────────────────────────────────────────────────────

/**
 * What every app has before any feature: the calls, the session, the cache. `ClientApp` extends
 * it and composes the client features; `ServerApp` and `AdminApp` extend `ClientApp`.
 */
export abstract class AppCore {
  /** The project this app talks to. */
  readonly projectId: string;
  /** The base URL of the Latch server. */
  readonly baseUrl: string;
  /** The query client of the cache: bind it with `@tanstack/react-query`'s `QueryClientProvider`. */
  readonly queryClient: QueryClient;
  protected readonly trpc: LatchTrpcClient;
  protected readonly session: TokenSession;
  protected readonly credentials: Credentials;
  /** The options the app was made with. */
  protected readonly options: ClientAppOptions;
  #sessionGeneration = 0;
  readonly #sessionListeners = new Set<() => void>();

  constructor(options: ClientAppOptions = {}) {
    if (options.uniqueIdentifier !== undefined) {
      if (appIdentifiers.has(options.uniqueIdentifier)) throw new Error(`A Latch app with the unique identifier "${options.uniqueIdentifier}" already exists.`);
      appIdentifiers.add(options.uniqueIdentifier);
    }
    this.options = options;
    this.credentials = this.resolveCredentials(options);
    this.projectId = this.credentials.projectId;
    this.baseUrl = (options.baseUrl ?? envVar('LATCH_API_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    // fetch, retryBaseDelayMs, maxRetryAfterMs and overrideErrorStatus are the transport's options of the same names.
    this.trpc = createTransport(this.credentials, { ...options, baseUrl: this.baseUrl });
    this.queryClient = createQueryClient();
    const store = resolveTokenStore(options.tokenStore === undefined ? this.defaultTokenStore() : options.tokenStore, this.projectId);
    this.session = this.tokenSessionFor(store, () => this.#sessionChanged());
    // A store that sees outside changes (cookies shared by tabs) reports them as session changes.
    // Only the app's own, long-lived store is watched: a per-call store override is not.
    store.subscribe?.(() => this.#sessionChanged());
  }

  // ─── Extension points of ServerApp and AdminApp ────────────────────────────────────────────────

  /** The access level of this app's own calls. */
  protected accessLevel(): AccessLevel {
    return 'client';
  }

  /**
   * The token store when the options name none: a client app keeps its user's session (in cookies
   * in a browser); a server or admin app none, as it acts on the project, not as a user.
   */
  protected defaultTokenStore(): TokenStoreInit {
    if (this.accessLevel() !== 'client') return null;
    return typeof document === 'undefined' ? 'memory' : 'cookie';
  }

  /** Reads and checks the credentials of the options (with environment fallbacks). */
  protected resolveCredentials(options: ClientAppOptions): Credentials {
    return clientCredentials(options);
  }

  /** The owner calls (internal project): here with this app's own session. */
  protected ownerCallOptions(): CallOptions {
    return { access: 'client', session: true };
  }

  // ─── Calls, sessions and the cache ─────────────────────────────────────────────────────────────

  /** A session over a token store; its refreshes use this app's credentials. */
  protected tokenSessionFor(store: TokenStore, onChange?: () => void): TokenSession {
    return new TokenSession(
      store,
      async (refreshToken) => (await this.call((context) => this.trpc.sessions.refresh.mutate({}, { context }), { refreshToken })).access_token,
      onChange,
    );
  }

  /**
   * Sends one procedure call: builds its `x-latch-*` context (the session's fresh access token,
   * and the anonymous flag when it is an anonymous user's), turns failures into the SDK's errors
   * (known errors as their catalogue classes), and when the server rejects the access token,
   * marks it expired and tries once more after a refresh.
   */
  protected async call<T>(run: (context: CallContext) => Promise<T>, options: CallOptions = {}): Promise<T> {
    const session = options.session === true ? this.session : options.session || null;
    for (let attempt = 0; ; attempt++) {
      const explicit = typeof options.accessToken === 'function' ? await options.accessToken() : options.accessToken;
      const accessToken = session ? (await session.getTokens()).accessToken : (explicit ?? null);
      const context: CallContext = {
        access: options.access ?? this.accessLevel(),
        projectId: options.projectId,
        accessToken,
        refreshToken: options.refreshToken ?? null,
        allowAnonymous: isAnonymousToken(accessToken),
      };
      try {
        return await run(context);
      } catch (raw) {
        const error = toLatchError(raw);
        if (session && accessToken && attempt === 0 && isKnownErrorInGroup(error, 'InvalidAccessToken')) {
          await session.markAccessTokenExpired(accessToken);
          continue;
        }
        throw error;
      }
    }
  }

  /** A call that changes data: `call`, then marks stale the cached reads of `prefixes` (see invalidate). */
  protected async mutate<T>(prefixes: readonly string[], run: (context: CallContext) => Promise<T>, options?: CallOptions): Promise<T> {
    const result = await this.call(run, options);
    this.invalidate(prefixes);
    return result;
  }

  /**
   * A call that emails a link (a verification or password-reset link): `mutate` marking the sent
   * emails stale, answered as a Result whose expected error is an untrusted callback URL.
   */
  protected sendLinkEmail(run: (context: CallContext) => Promise<unknown>, options?: CallOptions): Promise<Result<void, SendEmailError>> {
    return toResult(
      this.mutate(['emails.'], run, options).then(() => undefined),
      SEND_EMAIL_ERRORS,
    );
  }

  /** A cached read scoped to the current session: a new session never sees the old one's data. */
  protected sessionKey(path: string, input: unknown = {}): QueryKey {
    return [path, input, `session:${this.#sessionGeneration}`];
  }

  /** A cached read of the app (not of a user session). */
  protected appKey(path: string, input: unknown = {}): QueryKey {
    return [path, input, 'app'];
  }

  /** The cache key of a read that runs as the session's user (keyed by session) or not. */
  protected readKey(asSession: boolean, path: string, input: unknown): QueryKey {
    return asSession ? this.sessionKey(path, input) : this.appKey(path, input);
  }

  /**
   * The cached read of a list procedure (`{ items }` on the wire), as the session's user or not:
   * what every `…Query()` of a list is.
   */
  protected listQuery<T>(asSession: boolean, path: string, input: unknown, list: (context: CallContext) => Promise<{ items: T[] }>): LatchQuery<T[]> {
    return defineQuery(this.readKey(asSession, path, input), async () => (await this.call(list, { session: asSession })).items);
  }

  /**
   * The cached read of one user's list (`user_id`; `'me'`, the session's user, when `userId` is
   * omitted): what every `…Query({ userId })` of a user's things is.
   */
  protected userListQuery<T>(
    userId: string | undefined,
    path: string,
    list: (input: { user_id: string }, context: CallContext) => Promise<{ items: T[] }>,
  ): LatchQuery<T[]> {
    const input = { user_id: userId ?? 'me' };
    return this.listQuery(this.sessionFor(userId), path, input, (context) => list(input, context));
  }

  /**
   * The cached read of one thing, as the session's user or not: what `read` answers, or null when
   * it fails with one of `absent` (the thing is not there). What every `…Query()` or `get…` that
   * answers null is.
   */
  protected findQuery<T>(
    asSession: boolean,
    path: string,
    input: unknown,
    read: (context: CallContext) => Promise<T>,
    absent: readonly KnownErrorClass[],
  ): LatchQuery<T | null> {
    return defineQuery(this.readKey(asSession, path, input), () => orNull(this.call(read, { session: asSession }), absent));
  }

  /**
   * Whether a call about `userId` runs as the session's user. Clients always do; server code when
   * it names `'me'`, or names nobody where the call then means the caller (`omittedMeansMe`).
   */
  protected sessionFor(userId: string | undefined, omittedMeansMe = true): boolean {
    return this.accessLevel() === 'client' || userId === 'me' || (userId === undefined && omittedMeansMe);
  }

  /** Marks stale every cached read of these procedure prefixes (`users.`) or paths; active ones refetch. */
  protected invalidate(prefixes: readonly string[], except?: QueryKey): void {
    const exceptHash = except ? hashKey(except) : null;
    void this.queryClient.invalidateQueries(
      {
        predicate: (query) => query.queryHash !== exceptHash && prefixes.some((prefix) => String(query.queryKey[0]).startsWith(prefix)),
      },
      // Never cancel a fetch someone is awaiting: it would reject with a cancellation.
      { cancelRefetch: false, throwOnError: false },
    );
  }

  #sessionChanged(): void {
    this.#sessionGeneration++;
    for (const listener of [...this.#sessionListeners]) listener();
  }

  /**
   * Calls `listener` whenever the session changes (sign-in, sign-out, a failed refresh).
   *
   * @example
   * const stop = app.onSessionChange(() => console.log('signed in or out'));
   */
  onSessionChange(listener: () => void): () => void {
    this.#sessionListeners.add(listener);
    return () => this.#sessionListeners.delete(listener);
  }

  /**
   * Keeps `listener` told of a cached read: its state now, and again on every change. The data
   * stays cached while anyone is subscribed, and for 5 s after the last one leaves. `query` is a
   * function so that a subscription to a session's data follows a new session.
   *
   * @example
   * const stop = app.subscribe(() => app.currentUserQuery(), (state) => {
   *   if (state.status === 'success') render(state.data?.display_name ?? 'signed out');
   * });
   */
  subscribe<T>(query: () => LatchQuery<T>, listener: (state: QueryState<T>) => void): () => void {
    return subscribeToQuery(this.queryClient, query, listener, (callback) => this.onSessionChange(callback));
  }

  /**
   * Stores the tokens of a new session (every way in ends here: password, anonymous, magic link,
   * and next OAuth and passkeys) and drops the cached reads of the previous one.
   */
  protected async startSession(response: Promise<RouterOutputs['auth']['passwordSignIn']>): Promise<SignInResult> {
    const { access_token, refresh_token, user_id, is_new_user } = await response;
    await this.session.setTokens({ accessToken: access_token, refreshToken: refresh_token });
    this.invalidate(['users.', 'sessions.']);
    return { user_id, is_new_user };
  }

  // ─── Tokens ──────────────────────────────────────────────────────────────────────────────────

  /**
   * The session's tokens, with an access token refreshed if it was about to expire; both null
   * when signed out. Send them to your own backend, which reads the user with a `ServerApp`.
   *
   * @example
   * const { accessToken } = await app.getAuthTokens();
   */
  async getAuthTokens(): Promise<TokenPair> {
    return this.session.getTokens();
  }

  /**
   * A likely-valid access token, or null when signed out.
   *
   * @example
   * const admin = new AdminApp({ projectId, adminAccessToken: () => internalApp.getAccessToken() });
   */
  async getAccessToken(): Promise<string | null> {
    return (await this.session.getTokens()).accessToken;
  }

  /**
   * Headers that carry the session to your own backend (`x-latch-auth`, which Latch also accepts).
   *
   * @example
   * await fetch('/api/orders', { headers: await app.getAuthHeaders() });
   */
  async getAuthHeaders(): Promise<Record<string, string>> {
    const tokens = await this.session.getTokens();
    return { 'x-latch-auth': JSON.stringify({ accessToken: tokens.accessToken ?? undefined, refreshToken: tokens.refreshToken ?? undefined }) };
  }

  // ─── Email links: defaults ───────────────────────────────────────────────────────────────────

  /**
   * The absolute URL of one of the app's pages (`urls[page]`, default `/handler/<route>` as in spec
   * section 2): as given when absolute, resolved against the current page in a browser, an error
   * elsewhere (`message` says what to pass).
   */
  protected handlerUrl(page: keyof typeof HANDLER_PAGES, message: string): string {
    const url = this.options.urls?.[page] ?? HANDLER_PAGES[page];
    if (/^https?:\/\//i.test(url)) return url;
    if (typeof window !== 'undefined' && typeof window.location?.href === 'string') return new URL(url, window.location.href).href;
    throw new Error(message);
  }

  /** The callback URL of an emailed link: `given`, else the app's page (an error naming `method` when it cannot be made absolute). */
  protected callbackUrl(given: string | undefined, page: 'passwordReset' | 'magicLinkCallback' | 'emailVerification' | 'signIn', method: string): string {
    return (
      given ??
      this.handlerUrl(
        page,
        `${method} needs a callbackUrl outside a browser (the absolute URL of your app's ${HANDLER_PAGES[page]} page), or an absolute urls.${page} option.`,
      )
    );
  }

  /** The callback URL of a sign-in invitation (default: the `urls.signIn` page). */
  protected signInCallbackUrl(given: string | undefined, method: string): string {
    return this.callbackUrl(given, 'signIn', method);
  }
}

// ─── Composition ─────────────────────────────────────────────────────────────────────────────────

/**
 * A feature: an abstract class extending {@link AppCore}, or another feature it builds on (then
 * that one is composed into the same app or one it extends). Its methods are copied onto an app's
 * prototype, so a feature's constructor never runs: no instance fields and no `#private` members
 * (keep state in a `WeakMap` keyed by the app, as `anonymous.ts` does), and no `super` calls.
 */
export type Feature = abstract new (...args: never[]) => AppCore;

/**
 * The methods of a list of features, as one type: an app's interface extends it (declaration
 * merging), so the list written once serves both the type and {@link composeFeatures}.
 *
 * @example
 * const SERVER_FEATURES = [ServerUsersFeature, ServerSessionsFeature] as const;
 * export interface ServerApp extends Composed<typeof SERVER_FEATURES> {}
 * composeFeatures(ServerApp, SERVER_FEATURES);
 */
export type Composed<Features extends readonly Feature[]> = IntersectionOf<InstanceType<Features[number]>>;

type IntersectionOf<Union> = (Union extends unknown ? (member: Union) => void : never) extends (member: infer Both) => void ? Both : never;

/**
 * Puts the methods of `features` on `app`'s prototype. The app's type says the same with an
 * interface of the app's name extending the features (declaration merging): `Composed<typeof
 * FEATURES>`, and a generic feature by name, e.g. `export interface ClientApp<U, V> extends
 * Composed<typeof CLIENT_FEATURES>, TeamsFeature<U, V> {}`.
 * Throws when a feature defines a name the app already has (another feature's, the app's class's,
 * or a lower level's: an override belongs in the app's class), or builds on a feature the app
 * does not have: both would be bugs, found at import.
 */
export function composeFeatures(app: abstract new (...args: never[]) => AppCore, features: readonly Feature[]): void {
  for (const feature of features) {
    const { constructor, ...methods } = Object.getOwnPropertyDescriptors(feature.prototype);
    for (const name in methods) if (name in app.prototype) throw new Error(`${app.name}.${name} is defined twice (again by ${feature.name}).`);
    Object.defineProperties(app.prototype, methods);
  }
  for (const feature of features) {
    const base = Object.getPrototypeOf(feature) as Feature;
    if (base !== AppCore && Object.getOwnPropertyNames(base.prototype).some((name) => !(name in app.prototype))) {
      throw new Error(`${feature.name} builds on ${base.name}, which ${app.name} does not have.`);
    }
  }
}
