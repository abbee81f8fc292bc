/**
 * `ClientApp`: what a browser (or any end-user program) uses to sign in and manage the signed-in
 * user. `ServerApp` and `AdminApp` extend it, so everything here works for them too.
 *
 * The pattern every method follows, and every later domain should follow:
 * - a read is a `xxxQuery()` (a cached query: key + function) plus `getXxx()` / `listXxx()` that
 *   fetch it through the cache;
 * - a write calls the procedure through {@link ClientApp.call} and then invalidates the cached
 *   reads it changes (by procedure prefix, e.g. `users.`);
 * - a write whose failures are part of its contract returns a {@link Result}; the rest throw.
 * Wire shapes (snake_case) are returned as the server sends them, typed from `AppRouter`.
 */
import { type QueryClient, type QueryKey, hashKey } from '@tanstack/query-core';
import { type LatchQuery, type QueryState, createQueryClient, defineQuery, subscribeToQuery } from './cache.js';
import {
  KnownErrors,
  type KnownErrorOf,
  type Result,
  UserNotSignedInError,
  isKnownErrorInGroup,
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
  type RouterInputs,
  type RouterOutputs,
  createTransport,
} from './transport.js';

// ─── Wire types, from AppRouter ───────────────────────────────────────────────────────────────────

/** A user as server code sees it (includes `server_metadata`). */
export type ServerUser = RouterOutputs['users']['create'];
/** A user as the signed-in user sees themselves. */
export type ClientUser = Omit<ServerUser, 'server_metadata' | 'last_active_at_millis'>;
/** What a signed-in user may change on themselves. */
export type ClientUserUpdate = Pick<
  RouterInputs['users']['updateMe'],
  'display_name' | 'client_metadata' | 'selected_team_id' | 'totp_secret_base64' | 'profile_image_url' | 'otp_auth_enabled' | 'passkey_auth_enabled'
>;
/** One of a user's sessions. */
export type UserSession = RouterOutputs['sessions']['list']['items'][number];
/** The current project, public view. */
export type ClientProject = RouterOutputs['projects']['current'];
/** A project as its owners see it (returned by the owner calls). */
export type AdminProject = RouterOutputs['projects']['adminCurrent'];
export type PasswordSignUpInput = RouterInputs['auth']['passwordSignUp'];
export type PasswordSignInInput = RouterInputs['auth']['passwordSignIn'];
export type PasswordUpdateInput = RouterInputs['auth']['passwordUpdate'];
export type PasswordSetInput = RouterInputs['auth']['passwordSet'];
export type ProjectCreateInput = RouterInputs['projects']['createOwned'];
export type ProjectTransferInput = RouterInputs['projects']['transfer'];

/** What a successful sign-in or sign-up says (the tokens went to the token store). */
export interface SignInResult {
  user_id: string;
  is_new_user: boolean;
}

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
   * Where the session's tokens live: `'cookie'` (default in browsers), `'memory'` (default
   * elsewhere), your own `{ get, set }` store, fixed `{ accessToken, refreshToken }`, or `null`.
   */
  tokenStore?: TokenStoreInit;
  /** Pages of your app. `signIn` (default `/handler/sign-in`) is where `getUser({ or: 'redirect' })` goes. */
  urls?: { signIn?: string };
  /** How to redirect (default `window.location.assign`); pass your framework's redirect on a server. */
  redirectMethod?: (url: string) => void | Promise<void>;
  /** A fetch to send requests with (default: the global one). */
  fetch?: typeof fetch;
  /** Base of the network-retry backoff in ms (default 1000). For tests. */
  retryBaseDelayMs?: number;
}

/** Options of `getUser`. */
export interface GetUserOptions {
  /**
   * What to do when nobody is signed in (an anonymous user counts as nobody, except with
   * `'anonymous'`): `'return-null'` (default), `'throw'` a {@link UserNotSignedInError},
   * `'redirect'` to the sign-in page, or sign up an `'anonymous'` user.
   */
  or?: 'redirect' | 'throw' | 'anonymous' | 'return-null';
  /** Read the user of these tokens instead of the app's session (server code: a request's tokens). Not cached. */
  tokenStore?: TokenStoreInit;
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

type ExpectedErrors<K extends keyof typeof KnownErrors> = KnownErrorOf<K>;

export type SignUpError = ExpectedErrors<
  'UserWithEmailAlreadyExists' | 'PasswordRequirementsNotMet' | 'PasswordTooShort' | 'PasswordTooLong' | 'SignUpNotEnabled' | 'PasswordAuthenticationNotEnabled' | 'RedirectUrlNotWhitelisted'
>;
export type SignInError = ExpectedErrors<'EmailPasswordMismatch' | 'PasswordAuthenticationNotEnabled'>;
export type PasswordUpdateError = ExpectedErrors<'PasswordConfirmationMismatch' | 'UserDoesNotHavePassword' | 'PasswordRequirementsNotMet' | 'PasswordTooShort' | 'PasswordTooLong'>;
export type PasswordSetError = ExpectedErrors<'UserAlreadyHasPassword' | 'PasswordRequirementsNotMet' | 'PasswordTooShort' | 'PasswordTooLong'>;

const PASSWORD_STRENGTH = [KnownErrors.PasswordRequirementsNotMet, KnownErrors.PasswordTooShort, KnownErrors.PasswordTooLong];
const SIGN_UP_ERRORS = [KnownErrors.UserWithEmailAlreadyExists, ...PASSWORD_STRENGTH, KnownErrors.SignUpNotEnabled, KnownErrors.PasswordAuthenticationNotEnabled, KnownErrors.RedirectUrlNotWhitelisted];
const SIGN_IN_ERRORS = [KnownErrors.EmailPasswordMismatch, KnownErrors.PasswordAuthenticationNotEnabled];
const PASSWORD_UPDATE_ERRORS = [KnownErrors.PasswordConfirmationMismatch, KnownErrors.UserDoesNotHavePassword, ...PASSWORD_STRENGTH];
const PASSWORD_SET_ERRORS = [KnownErrors.UserAlreadyHasPassword, ...PASSWORD_STRENGTH];

/** Redirect wait (spec section 9): how long to wait for the page to leave after a redirect. */
const REDIRECT_WAIT_MS = 2000;

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

function isSignedOutError(error: unknown): boolean {
  return (
    error instanceof KnownErrors.CannotGetOwnUserWithoutUser ||
    error instanceof KnownErrors.UserAuthenticationRequired ||
    isKnownErrorInGroup(error, 'InvalidAccessToken')
  );
}

/**
 * The client app of a project: sign-up, sign-in and sign-out, the signed-in user and their
 * sessions, with tokens refreshed for you and reads cached.
 *
 * @example
 * import { ClientApp } from './sdk/index.js';
 * const app = new ClientApp({ projectId: 'c0ffee…', publishableClientKey: 'pck_…', baseUrl: 'https://auth.example.com' });
 * const result = await app.signInWithPassword({ email: 'ann@example.com', password: 'correct horse' });
 * if (result.status === 'error') console.log(result.error.message); // 'Wrong e-mail or password.'
 * const user = await app.getUser({ or: 'redirect' });
 */
export class ClientApp<U extends ClientUser = ClientUser> {
  /** The project this app talks to. */
  readonly projectId: string;
  /** The base URL of the Latch server. */
  readonly baseUrl: string;
  /** The query client of the cache: bind it with `@tanstack/react-query`'s `QueryClientProvider`. */
  readonly queryClient: QueryClient;
  protected readonly trpc: LatchTrpcClient;
  protected readonly session: TokenSession;
  protected readonly credentials: Credentials;
  readonly #options: ClientAppOptions;
  #sessionGeneration = 0;
  readonly #sessionListeners = new Set<() => void>();
  #anonymousSignUp: Promise<void> | null = null;

  constructor(options: ClientAppOptions = {}) {
    this.#options = options;
    this.credentials = this.resolveCredentials(options);
    this.projectId = this.credentials.projectId;
    this.baseUrl = (options.baseUrl ?? envVar('LATCH_API_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.trpc = createTransport(this.credentials, { baseUrl: this.baseUrl, fetch: options.fetch, retryBaseDelayMs: options.retryBaseDelayMs });
    this.queryClient = createQueryClient();
    const store = resolveTokenStore(options.tokenStore === undefined ? this.defaultTokenStore() : options.tokenStore, this.projectId);
    this.session = this.tokenSessionFor(store, () => this.#sessionChanged());
  }

  // ─── Extension points of ServerApp and AdminApp ────────────────────────────────────────────────

  /** The access level of this app's own calls. */
  protected accessLevel(): AccessLevel {
    return 'client';
  }

  /** The token store when the options name none. */
  protected defaultTokenStore(): TokenStoreInit {
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

  /** A cached read scoped to the current session: a new session never sees the old one's data. */
  protected sessionKey(path: string, input: unknown = {}): QueryKey {
    return [path, input, `session:${this.#sessionGeneration}`];
  }

  /** A cached read of the app (not of a user session). */
  protected appKey(path: string, input: unknown = {}): QueryKey {
    return [path, input, 'app'];
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

  // ─── Sign-up, sign-in, sign-out ──────────────────────────────────────────────────────────────

  async #startSession(response: Promise<RouterOutputs['auth']['passwordSignIn']>): Promise<SignInResult> {
    const { access_token, refresh_token, user_id, is_new_user } = await response;
    await this.session.setTokens({ accessToken: access_token, refreshToken: refresh_token });
    this.invalidate(['users.', 'sessions.']);
    return { user_id, is_new_user };
  }

  /**
   * Creates a user with an email and password and signs them in. A signed-in anonymous user is
   * upgraded in place (keeping their data).
   *
   * @example
   * const result = await app.signUpWithPassword({ email: 'ann@example.com', password: 'correct horse' });
   * if (result.status === 'error' && result.error instanceof KnownErrors.UserWithEmailAlreadyExists) …
   */
  async signUpWithPassword(input: PasswordSignUpInput): Promise<Result<SignInResult, SignUpError>> {
    const tokens = await this.session.peek();
    const upgradeAnonymous = isAnonymousToken(tokens.accessToken) || (tokens.refreshToken !== null && tokens.accessToken === null);
    return toResult(
      this.#startSession(this.call((context) => this.trpc.auth.passwordSignUp.mutate(input, { context }), { access: 'client', session: upgradeAnonymous })),
      SIGN_UP_ERRORS,
    );
  }

  /**
   * Signs in with an email and password. A wrong email or password is returned, not thrown.
   *
   * @example
   * const result = await app.signInWithPassword({ email, password });
   * if (result.status === 'error') showError(result.error.message); // 'Wrong e-mail or password.'
   */
  async signInWithPassword(input: PasswordSignInInput): Promise<Result<SignInResult, SignInError>> {
    await this.session.peek(); // an app without a token store fails here, before a session is made
    return toResult(this.#startSession(this.call((context) => this.trpc.auth.passwordSignIn.mutate(input, { context }), { access: 'client' })), SIGN_IN_ERRORS);
  }

  /**
   * Signs up an anonymous user (when the project allows it) and signs them in. Concurrent calls
   * share one sign-up.
   *
   * @example
   * await app.signUpAnonymously();
   */
  async signUpAnonymously(): Promise<void> {
    await this.session.peek();
    this.#anonymousSignUp ??= this.#startSession(this.call((context) => this.trpc.auth.anonymousSignUp.mutate({}, { context }), { access: 'client' }))
      .then(() => undefined)
      .finally(() => {
        this.#anonymousSignUp = null;
      });
    return this.#anonymousSignUp;
  }

  /**
   * Signs out: ends the session on the server and clears both tokens (they are cleared even if
   * the server cannot be reached).
   *
   * @example
   * await app.signOut();
   */
  async signOut(): Promise<void> {
    const tokens = await this.session.peek();
    if (!tokens.accessToken && !tokens.refreshToken) return;
    try {
      await this.call((context) => this.trpc.sessions.signOut.mutate({}, { context }), { session: true });
    } catch (error) {
      // Already over on the server: nothing left to end.
      if (!(isSignedOutError(error) || isKnownErrorInGroup(error, 'RefreshTokenError'))) throw error;
    } finally {
      await this.session.clear();
    }
  }

  // ─── The signed-in user ──────────────────────────────────────────────────────────────────────

  async #fetchCurrentUser(session: TokenSession): Promise<U | null> {
    const tokens = await session.peek();
    if (!tokens.accessToken && !tokens.refreshToken) return null;
    try {
      return (await this.call((context) => this.trpc.users.getMe.query({}, { context }), { session })) as U;
    } catch (error) {
      // "CannotGetOwnUserWithoutUser: the user is treated as none" (also after a failed refresh).
      if (isSignedOutError(error)) return null;
      throw error;
    }
  }

  /**
   * The signed-in user as a cached query (an anonymous user included), for `useQuery` or
   * {@link ClientApp.subscribe}.
   *
   * @example
   * const stop = app.subscribe(() => app.currentUserQuery(), (state) => console.log(state.data));
   */
  currentUserQuery(): LatchQuery<U | null> {
    return defineQuery(this.sessionKey('users.getMe'), () => this.#fetchCurrentUser(this.session));
  }

  /**
   * The signed-in user (cached). Anonymous users count as signed out unless `or` is
   * `'anonymous'`. When nobody is signed in: `or: 'return-null'` (default) returns null,
   * `'throw'` throws {@link UserNotSignedInError}, `'redirect'` goes to the sign-in page, and
   * `'anonymous'` signs up an anonymous user (one at a time).
   *
   * @example
   * const user = await app.getUser({ or: 'throw' });
   * console.log(user.primary_email);
   */
  getUser(options: GetUserOptions & { or: 'redirect' | 'throw' | 'anonymous' }): Promise<U>;
  getUser(options?: GetUserOptions): Promise<U | null>;
  async getUser(options: GetUserOptions = {}): Promise<U | null> {
    const or = options.or ?? 'return-null';
    const session = options.tokenStore === undefined ? this.session : this.tokenSessionFor(resolveTokenStore(options.tokenStore, this.projectId));
    const read = () => (session === this.session ? this.queryClient.fetchQuery(this.currentUserQuery()) : this.#fetchCurrentUser(session));
    const user = await read();
    if (user && (!user.is_anonymous || or === 'anonymous')) return user;
    switch (or) {
      case 'throw':
        throw new UserNotSignedInError();
      case 'redirect':
        return this.redirectToSignIn();
      case 'anonymous': {
        if (session === this.session) await this.signUpAnonymously();
        else {
          const created = await this.call((context) => this.trpc.auth.anonymousSignUp.mutate({}, { context }), { access: 'client' });
          await session.setTokens({ accessToken: created.access_token, refreshToken: created.refresh_token });
        }
        const anonymous = await read();
        if (!anonymous) throw new UserNotSignedInError();
        return anonymous;
      }
      default:
        return null;
    }
  }

  /**
   * Sends the browser to the sign-in page (`urls.signIn`, default `/handler/sign-in`).
   *
   * @example
   * await app.redirectToSignIn();
   */
  async redirectToSignIn(): Promise<never> {
    const url = this.#options.urls?.signIn ?? '/handler/sign-in';
    const redirect = this.#options.redirectMethod ?? (typeof window === 'undefined' ? null : (to: string) => window.location.assign(to));
    if (!redirect) throw new Error("Cannot redirect outside a browser: pass the redirectMethod option to the Latch app (your framework's redirect), or use getUser({ or: 'throw' }).");
    await redirect(url);
    await new Promise((resolve) => setTimeout(resolve, REDIRECT_WAIT_MS));
    throw new Error(`Redirected to ${url}, but the page did not leave.`);
  }

  /**
   * Updates the signed-in user.
   *
   * @example
   * const user = await app.updateUser({ display_name: 'Ann' });
   */
  async updateUser(patch: ClientUserUpdate): Promise<U> {
    const user = (await this.call((context) => this.trpc.users.updateMe.mutate(patch, { context }), { session: true })) as U;
    const key = this.sessionKey('users.getMe');
    this.queryClient.setQueryData(key, user);
    this.invalidate(['users.'], key);
    return user;
  }

  /**
   * Deletes the signed-in user's account (when the project allows clients to) and clears the session.
   *
   * @example
   * await app.deleteUser();
   */
  async deleteUser(): Promise<void> {
    await this.call((context) => this.trpc.users.deleteMe.mutate({}, { context }), { session: true });
    await this.session.clear();
    this.invalidate(['users.', 'sessions.']);
  }

  /**
   * Changes the signed-in user's password (their other sessions are signed out).
   *
   * @example
   * const result = await app.updatePassword({ old_password: 'old one', new_password: 'a new one' });
   * if (result.status === 'error') console.log(result.error.message); // 'Passwords do not match.'
   */
  async updatePassword(input: PasswordUpdateInput): Promise<Result<void, PasswordUpdateError>> {
    const update = this.call((context) => this.trpc.auth.passwordUpdate.mutate(input, { context }), { session: true }).then(() => {
      this.invalidate(['users.', 'sessions.']);
    });
    return toResult(update, PASSWORD_UPDATE_ERRORS);
  }

  /**
   * Sets a first password for a user who has none (signed up anonymously upgraded by OAuth, or created by the server).
   *
   * @example
   * await app.setPassword({ password: 'correct horse' });
   */
  async setPassword(input: PasswordSetInput): Promise<Result<void, PasswordSetError>> {
    const set = this.call((context) => this.trpc.auth.passwordSet.mutate(input, { context }), { session: true }).then(() => {
      this.invalidate(['users.']);
    });
    return toResult(set, PASSWORD_SET_ERRORS);
  }

  // ─── Sessions ────────────────────────────────────────────────────────────────────────────────

  /** Clients always act as their session's user; server code may name any user without one. */
  #sessionFor(userId: string | undefined): boolean {
    return this.accessLevel() === 'client' || userId === undefined || userId === 'me';
  }

  /**
   * A user's active sessions as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.sessionsQuery(), (state) => console.log(state.data));
   */
  sessionsQuery(options: { userId?: string } = {}): LatchQuery<UserSession[]> {
    const input = { user_id: options.userId ?? 'me' };
    const useSession = this.#sessionFor(options.userId);
    return defineQuery(useSession ? this.sessionKey('sessions.list', input) : this.appKey('sessions.list', input), async () => {
      const list = await this.call((context) => this.trpc.sessions.list.query(input, { context }), { session: useSession });
      return list.items;
    });
  }

  /**
   * A user's active sessions (default: the signed-in user's), `is_current_session` marking this one.
   *
   * @example
   * const sessions = await app.listSessions();
   */
  async listSessions(options: { userId?: string } = {}): Promise<UserSession[]> {
    return this.queryClient.fetchQuery(this.sessionsQuery(options));
  }

  /**
   * Ends another session of a user (the current one: use signOut).
   *
   * @example
   * await app.revokeSession(sessions[1].id);
   */
  async revokeSession(sessionId: string, options: { userId?: string } = {}): Promise<void> {
    await this.call((context) => this.trpc.sessions.revoke.mutate({ id: sessionId, user_id: options.userId ?? 'me' }, { context }), {
      session: this.#sessionFor(options.userId),
    });
    this.invalidate(['sessions.']);
  }

  // ─── The project ─────────────────────────────────────────────────────────────────────────────

  /**
   * The current project as a cached query.
   *
   * @example
   * app.subscribe(() => app.projectQuery(), (state) => console.log(state.data?.display_name));
   */
  projectQuery(): LatchQuery<ClientProject> {
    return defineQuery(this.appKey('projects.current'), () => this.call((context) => this.trpc.projects.current.query({}, { context })));
  }

  /**
   * The current project: its name, logo and the configuration clients need (enabled sign-in methods…).
   *
   * @example
   * const { config } = await app.getProject();
   * if (config.sign_up_enabled) showSignUp();
   */
  async getProject(): Promise<ClientProject> {
    return this.queryClient.fetchQuery(this.projectQuery());
  }

  // ─── Owned projects (the internal project's signed-in owners) ────────────────────────────────

  /**
   * The projects the signed-in owner's teams own, as a cached query. Internal project only.
   *
   * @example
   * app.subscribe(() => app.ownedProjectsQuery(), (state) => console.log(state.data));
   */
  ownedProjectsQuery(): LatchQuery<AdminProject[]> {
    return defineQuery(this.sessionKey('projects.listOwned'), async () => {
      const list = await this.call((context) => this.trpc.projects.listOwned.query({}, { context }), this.ownerCallOptions());
      return list.items;
    });
  }

  /**
   * The projects owned by the signed-in owner (a `ClientApp` of the `internal` project), or by
   * the owner of an `AdminApp`'s admin access token.
   *
   * @example
   * const internal = new ClientApp({ projectId: 'internal' });
   * await internal.signInWithPassword({ email, password });
   * const projects = await internal.listOwnedProjects();
   */
  async listOwnedProjects(): Promise<AdminProject[]> {
    return this.queryClient.fetchQuery(this.ownedProjectsQuery());
  }

  /**
   * Creates a project owned by one of the owner's teams (default: their personal team).
   *
   * @example
   * const project = await internal.createProject({ display_name: 'My app' });
   */
  async createProject(input: ProjectCreateInput): Promise<AdminProject> {
    const project = await this.call((context) => this.trpc.projects.createOwned.mutate(input, { context }), this.ownerCallOptions());
    this.invalidate(['projects.']);
    return project;
  }

  /**
   * Moves a project to another team of the owner.
   *
   * @example
   * await internal.transferProject({ project_id: project.id, new_team_id: teamId });
   */
  async transferProject(input: ProjectTransferInput): Promise<void> {
    await this.call((context) => this.trpc.projects.transfer.mutate(input, { context }), this.ownerCallOptions());
    this.invalidate(['projects.']);
  }
}

