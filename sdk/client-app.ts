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

// Teams, memberships, invitations, permissions and user/team API keys.
type TeamWire = RouterOutputs['teams']['get'];
type MemberProfileWire = RouterOutputs['teams']['getMemberProfile'];
/** A team as server code sees it (includes `server_metadata`). */
export type ServerTeam = Extract<TeamWire, { server_metadata: unknown }>;
/** A team as its members see it. */
export type ClientTeam = Omit<ServerTeam, 'server_metadata'>;
/** A member's profile in a team, with the member's user (server view). */
export type ServerTeamMemberProfile = Extract<MemberProfileWire, { user: unknown }>;
/** A member's profile in a team: their name and image there (falling back to the user's own). */
export type ClientTeamMemberProfile = Omit<ServerTeamMemberProfile, 'user'>;
/** What server code may set on a new team (`creator_user_id` joins it as its creator). */
export type TeamCreateInput = RouterInputs['teams']['create'];
/** What a signed-in user may set on a team they create. */
export type ClientTeamCreateInput = Pick<TeamCreateInput, 'display_name' | 'profile_image_url' | 'client_metadata'>;
/** What server code may change on a team (the three metadata fields included). */
export type TeamUpdateInput = Omit<RouterInputs['teams']['update'], 'team_id'>;
/** What a member holding `$update_team` may change on a team. */
export type ClientTeamUpdate = Pick<TeamUpdateInput, 'display_name' | 'profile_image_url' | 'client_metadata'>;
/** A member's own display name and image in one team. */
export type TeamMemberProfileUpdate = Omit<RouterInputs['teams']['updateMemberProfile'], 'team_id' | 'user_id'>;
/** A pending invitation to a team. */
export type TeamInvitation = RouterOutputs['teamInvitations']['list']['items'][number];
/** The team an invitation code is for (what an invitation page shows before accepting). */
export type TeamInvitationDetails = RouterOutputs['teamInvitations']['details'];
/** One team permission a user holds (`id` is the permission's id). */
export type TeamPermission = RouterOutputs['permissions']['listTeamPermissions']['items'][number];
/** One project permission a user holds (`id` is the permission's id). */
export type ProjectPermission = RouterOutputs['permissions']['listProjectPermissions']['items'][number];
/** A user API key (afterwards only `value.last_four`). */
export type UserApiKey = RouterOutputs['userTeamApiKeys']['getUserKey'];
/** A team API key (afterwards only `value.last_four`). */
export type TeamApiKey = RouterOutputs['userTeamApiKeys']['getTeamKey'];
/** A new user API key: `value` is the full key, in this response only. */
export type CreatedUserApiKey = RouterOutputs['userTeamApiKeys']['createUserKey'];
/** A new team API key: `value` is the full key, in this response only. */
export type CreatedTeamApiKey = RouterOutputs['userTeamApiKeys']['createTeamKey'];
// Contact channels and the email/code flows.
/** A contact channel of a user (an email address; one of them is the primary email). */
export type ContactChannel = RouterOutputs['contactChannels']['list']['items'][number];
/** A new contact channel (`is_verified` is for server code only). */
export type ContactChannelCreateInput = Omit<RouterInputs['contactChannels']['create'], 'user_id'>;
/** A change of a contact channel: a new `value` is unverified again; `is_primary` moves the primary email. */
export type ContactChannelUpdateInput = Omit<RouterInputs['contactChannels']['update'], 'user_id' | 'contact_channel_id'>;

/** What a new user or team API key is made with (no `expires_at_millis`: it never expires). */
export type ApiKeyCreateInput = Omit<RouterInputs['userTeamApiKeys']['createUserKey'], 'user_id'>;
/** A change of an API key: description, expiry, or `revoked: true` (for good). */
export type ApiKeyUpdateInput = Omit<RouterInputs['userTeamApiKeys']['updateUserKey'], 'api_key_id'>;

/**
 * The shapes that differ by access level, so a `ServerApp` gets server views of teams and member
 * profiles, and may send the server-only fields, from the same methods.
 */
export interface ClientTeamViews {
  team: ClientTeam;
  memberProfile: ClientTeamMemberProfile;
  teamCreate: ClientTeamCreateInput;
  teamUpdate: ClientTeamUpdate;
}

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
  /**
   * Pages of your app. `signIn` (default `/handler/sign-in`) is where `getUser({ or: 'redirect' })`
   * goes (and the link of sign-in invitations). The links of the emails, when a call is given no
   * callback URL (resolved against the page in a browser; elsewhere they must be absolute):
   * `teamInvitation` (default `/handler/team-invitation`, `inviteUser`), `passwordReset`
   * (`/handler/password-reset`, `sendForgotPasswordEmail`), `magicLinkCallback`
   * (`/handler/magic-link-callback`, `sendMagicLinkEmail`) and `emailVerification`
   * (`/handler/email-verification`, `sendVerificationEmail`, `sendContactChannelVerificationEmail`).
   */
  urls?: { signIn?: string; teamInvitation?: string; passwordReset?: string; magicLinkCallback?: string; emailVerification?: string };
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

/** Why an invitation code did not work: not found (or withdrawn), expired, already used, or out of attempts. */
export type InvitationCodeError = ExpectedErrors<
  'VerificationCodeError' | 'VerificationCodeNotFound' | 'VerificationCodeExpired' | 'VerificationCodeAlreadyUsed' | 'VerificationCodeMaxAttemptsReached'
>;
const INVITATION_CODE_ERRORS = [
  KnownErrors.VerificationCodeError,
  KnownErrors.VerificationCodeNotFound,
  KnownErrors.VerificationCodeExpired,
  KnownErrors.VerificationCodeAlreadyUsed,
  KnownErrors.VerificationCodeMaxAttemptsReached,
];

/** Why an emailed code (reset, magic link, verification) did not work. */
export type VerificationCodeError = InvitationCodeError;
const VERIFICATION_CODE_ERRORS = INVITATION_CODE_ERRORS;
/** Why `sendForgotPasswordEmail` / `sendContactChannelVerificationEmail` did not send: the callback URL is not a trusted domain. */
export type SendEmailError = ExpectedErrors<'RedirectUrlNotWhitelisted'>;
/** Why `sendMagicLinkEmail` did not send: untrusted callback URL, or a new address while sign-up is disabled. */
export type MagicLinkSendError = ExpectedErrors<'RedirectUrlNotWhitelisted' | 'SignUpNotEnabled'>;
/** Why `signInWithMagicLink` failed: the code, or a new address while sign-up is disabled. */
export type MagicLinkSignInError = VerificationCodeError | ExpectedErrors<'SignUpNotEnabled'>;
/** Why `resetPassword` failed: the code, or the new password. */
export type PasswordResetError = VerificationCodeError | ExpectedErrors<'PasswordRequirementsNotMet' | 'PasswordTooShort' | 'PasswordTooLong'>;
/** Why `verifyEmail` failed: the code, or the address is verified already. */
export type VerifyEmailError = VerificationCodeError | ExpectedErrors<'EmailAlreadyVerified'>;
const SEND_EMAIL_ERRORS = [KnownErrors.RedirectUrlNotWhitelisted];
const MAGIC_LINK_SEND_ERRORS = [KnownErrors.RedirectUrlNotWhitelisted, KnownErrors.SignUpNotEnabled];
const MAGIC_LINK_SIGN_IN_ERRORS = [...VERIFICATION_CODE_ERRORS, KnownErrors.SignUpNotEnabled];
const PASSWORD_RESET_ERRORS = [...VERIFICATION_CODE_ERRORS, ...PASSWORD_STRENGTH];
const VERIFY_EMAIL_ERRORS = [...VERIFICATION_CODE_ERRORS, KnownErrors.EmailAlreadyVerified];

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

/** The app's pages by default (spec section 2): the links of the emails and the sign-in page. */
const HANDLER_PAGES = {
  signIn: '/handler/sign-in',
  teamInvitation: '/handler/team-invitation',
  passwordReset: '/handler/password-reset',
  magicLinkCallback: '/handler/magic-link-callback',
  emailVerification: '/handler/email-verification',
} as const;

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
export class ClientApp<U extends ClientUser = ClientUser, V extends ClientTeamViews = ClientTeamViews> {
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
    // A store that sees outside changes (cookies shared by tabs) reports them as session changes.
    // Only the app's own, long-lived store is watched: a per-call store override is not.
    store.subscribe?.(() => this.#sessionChanged());
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
    const url = this.#options.urls?.signIn ?? HANDLER_PAGES.signIn;
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
    this.invalidate(USER_DATA, key);
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

  /**
   * Whether a call about `userId` runs as the session's user. Clients always do; server code when
   * it names `'me'`, or names nobody where the call then means the caller (`omittedMeansMe`).
   */
  #sessionFor(userId: string | undefined, omittedMeansMe = true): boolean {
    return this.accessLevel() === 'client' || userId === 'me' || (userId === undefined && omittedMeansMe);
  }

  /** The cache key of a read that runs as the session's user (keyed by session) or not. */
  #readKey(asSession: boolean, path: string, input: unknown): QueryKey {
    return asSession ? this.sessionKey(path, input) : this.appKey(path, input);
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

  // ─── Teams ───────────────────────────────────────────────────────────────────────────────────

  /**
   * Teams as a cached query: the signed-in user's (client); all of the project's, or the teams of
   * `userId`, for server code.
   *
   * @example
   * app.subscribe(() => app.teamsQuery(), (state) => renderTeamSwitcher(state.data ?? []));
   */
  teamsQuery(options: { userId?: string } = {}): LatchQuery<V['team'][]> {
    const asSession = this.#sessionFor(options.userId, false);
    const input = options.userId === undefined ? {} : { user_id: options.userId };
    return defineQuery(this.#readKey(asSession, 'teams.list', input), async () => {
      const list = await this.call((context) => this.trpc.teams.list.query(input, { context }), { session: asSession });
      return list.items as V['team'][];
    });
  }

  /**
   * The teams the signed-in user is in (client). Server code gets all of the project's teams, or
   * those of one user with `userId`.
   *
   * @example
   * const teams = await app.listTeams();
   * const theirs = await server.listTeams({ userId: user.id });
   */
  async listTeams(options: { userId?: string } = {}): Promise<V['team'][]> {
    return this.queryClient.fetchQuery(this.teamsQuery(options));
  }

  /**
   * A team as a cached query (data null when there is no such team, or, on the client, when the
   * user is not in it).
   *
   * @example
   * app.subscribe(() => app.teamQuery(teamId), (state) => console.log(state.data?.display_name));
   */
  teamQuery(teamId: string): LatchQuery<V['team'] | null> {
    const asSession = this.accessLevel() === 'client';
    const input = { team_id: teamId };
    return defineQuery(this.#readKey(asSession, 'teams.get', input), async () => {
      try {
        return (await this.call((context) => this.trpc.teams.get.query(input, { context }), { session: asSession })) as V['team'];
      } catch (error) {
        if (error instanceof KnownErrors.TeamNotFound) return null;
        throw error;
      }
    });
  }

  /**
   * A team, or null when there is none (clients: null for teams they are not in, so team ids
   * cannot be probed).
   *
   * @example
   * const team = await app.getTeam(user.selected_team_id!);
   */
  async getTeam(teamId: string): Promise<V['team'] | null> {
    return this.queryClient.fetchQuery(this.teamQuery(teamId));
  }

  /**
   * Creates a team. From the client (when the project has `client_team_creation_enabled`) the
   * signed-in user becomes its first member, with `team_creator_default_permissions`, and it
   * becomes their selected team. Server code may also set the server-only metadata and name the
   * creator with `creator_user_id` (a team without one has no members yet).
   *
   * @example
   * const team = await app.createTeam({ display_name: 'Rocket' });
   * const other = await server.createTeam({ display_name: 'Ops', creator_user_id: user.id, server_metadata: { plan: 'pro' } });
   */
  async createTeam(input: V['teamCreate']): Promise<V['team']> {
    const creator = (input as TeamCreateInput).creator_user_id;
    const asSession = this.accessLevel() === 'client' || creator === 'me';
    const team = (await this.call((context) => this.trpc.teams.create.mutate(input, { context }), { session: asSession })) as V['team'];
    this.invalidate(MEMBERSHIP_DATA);
    return team;
  }

  /**
   * Updates a team (clients: with `$update_team`, and only the client fields).
   *
   * @example
   * await app.updateTeam(team.id, { display_name: 'Rocket 2', client_metadata: { color: 'red' } });
   */
  async updateTeam(teamId: string, patch: V['teamUpdate']): Promise<V['team']> {
    const team = (await this.call((context) => this.trpc.teams.update.mutate({ ...patch, team_id: teamId }, { context }), {
      session: this.accessLevel() === 'client',
    })) as V['team'];
    this.invalidate(['teams.']);
    return team;
  }

  /**
   * Deletes a team with its memberships, permission grants, invitations and API keys (clients:
   * with `$delete_team`).
   *
   * @example
   * await app.deleteTeam(team.id);
   */
  async deleteTeam(teamId: string): Promise<void> {
    await this.call((context) => this.trpc.teams.delete.mutate({ team_id: teamId }, { context }), { session: this.accessLevel() === 'client' });
    this.invalidate(MEMBERSHIP_DATA);
  }

  /**
   * Makes a team the signed-in user's selected team (null: none). Returns the updated user.
   *
   * @example
   * await app.selectTeam(team.id);
   */
  async selectTeam(teamId: string | null): Promise<U> {
    return this.updateUser({ selected_team_id: teamId });
  }

  // ─── Memberships and member profiles ─────────────────────────────────────────────────────────

  /**
   * Leaves a team: the signed-in user's membership ends, with their permissions in it (and it is
   * no longer their selected team).
   *
   * @example
   * await app.leaveTeam(team.id);
   */
  async leaveTeam(teamId: string): Promise<void> {
    await this.call((context) => this.trpc.teams.leave.mutate({ team_id: teamId }, { context }), { session: true });
    this.invalidate(MEMBERSHIP_DATA);
  }

  /**
   * Removes a member from a team (clients: themselves, or others with `$remove_members`).
   *
   * @example
   * await app.removeTeamMember(team.id, member.user_id);
   */
  async removeTeamMember(teamId: string, userId: string): Promise<void> {
    await this.call((context) => this.trpc.teams.removeMember.mutate({ team_id: teamId, user_id: userId }, { context }), { session: this.#sessionFor(userId, false) });
    this.invalidate(MEMBERSHIP_DATA);
  }

  /**
   * Member profiles as a cached query, by team and/or user (clients: their own, or a team's with
   * `$read_members`; `userId: 'me'` is the signed-in user).
   *
   * @example
   * app.subscribe(() => app.teamMemberProfilesQuery({ teamId }), (state) => renderMembers(state.data ?? []));
   */
  teamMemberProfilesQuery(filter: { teamId?: string; userId?: string }): LatchQuery<V['memberProfile'][]> {
    const asSession = this.#sessionFor(filter.userId, false);
    const input = { ...(filter.teamId === undefined ? {} : { team_id: filter.teamId }), ...(filter.userId === undefined ? {} : { user_id: filter.userId }) };
    return defineQuery(this.#readKey(asSession, 'teams.listMemberProfiles', input), async () => {
      const list = await this.call((context) => this.trpc.teams.listMemberProfiles.query(input, { context }), { session: asSession });
      return list.items as V['memberProfile'][];
    });
  }

  /**
   * Member profiles by team and/or user: `{ userId: 'me' }` lists the signed-in user's profile in
   * each of their teams.
   *
   * @example
   * const mine = await app.listTeamMemberProfiles({ userId: 'me' });
   */
  async listTeamMemberProfiles(filter: { teamId?: string; userId?: string }): Promise<V['memberProfile'][]> {
    return this.queryClient.fetchQuery(this.teamMemberProfilesQuery(filter));
  }

  /**
   * The members of a team, as their member profiles (clients: with `$read_members`; server code
   * also gets each member's `user`).
   *
   * @example
   * const members = await app.listTeamUsers(team.id);
   * console.log(members.map((m) => m.display_name));
   */
  async listTeamUsers(teamId: string): Promise<V['memberProfile'][]> {
    return this.listTeamMemberProfiles({ teamId });
  }

  /**
   * A member's profile in a team (default: the signed-in user's), or null when they are not a
   * member (clients: also for teams they are not in; others' profiles need `$read_members`).
   *
   * @example
   * const profile = await app.getTeamMemberProfile(team.id);
   */
  async getTeamMemberProfile(teamId: string, options: { userId?: string } = {}): Promise<V['memberProfile'] | null> {
    const input = { team_id: teamId, user_id: options.userId ?? 'me' };
    const asSession = this.#sessionFor(options.userId);
    return this.queryClient.fetchQuery(
      defineQuery(this.#readKey(asSession, 'teams.getMemberProfile', input), async () => {
        try {
          return (await this.call((context) => this.trpc.teams.getMemberProfile.query(input, { context }), { session: asSession })) as V['memberProfile'];
        } catch (error) {
          if (error instanceof KnownErrors.TeamMembershipNotFound || error instanceof KnownErrors.TeamNotFound) return null;
          throw error;
        }
      }),
    );
  }

  /**
   * Sets a member's display name or image in one team (default: the signed-in user's own;
   * someone else's takes server access). null goes back to the user's own name or image.
   *
   * @example
   * await app.updateTeamMemberProfile(team.id, { display_name: 'Ann (design)' });
   */
  async updateTeamMemberProfile(teamId: string, patch: TeamMemberProfileUpdate, options: { userId?: string } = {}): Promise<V['memberProfile']> {
    const input = { ...patch, team_id: teamId, user_id: options.userId ?? 'me' };
    const profile = (await this.call((context) => this.trpc.teams.updateMemberProfile.mutate(input, { context }), { session: this.#sessionFor(options.userId) })) as V['memberProfile'];
    this.invalidate(['teams.listMemberProfiles', 'teams.getMemberProfile']);
    return profile;
  }

  // ─── Team invitations ────────────────────────────────────────────────────────────────────────

  #teamInvitationUrl(): string {
    return this.#handlerUrl('teamInvitation', 'inviteUser needs a callback_url outside a browser (the absolute URL of the page of your app that accepts invitations), or an absolute urls.teamInvitation option.');
  }

  /**
   * Invites someone to a team by email (clients: with `$invite_members`). The email links to
   * `callback_url?code=…` (default: the `urls.teamInvitation` page), which must be a trusted
   * domain of the project (or localhost while allowed); the code is single-use and expires in 7
   * days. Returns the invitation's id.
   *
   * @example
   * await app.inviteUser(team.id, { email: 'bob@example.com', callback_url: 'https://app.example.com/handler/team-invitation' });
   */
  async inviteUser(teamId: string, input: { email: string; callback_url?: string }): Promise<{ id: string }> {
    const body = { email: input.email, team_id: teamId, callback_url: input.callback_url ?? this.#teamInvitationUrl() };
    const sent = await this.call((context) => this.trpc.teamInvitations.sendCode.mutate(body, { context }), { session: this.accessLevel() === 'client' });
    this.invalidate(['teamInvitations.']);
    return { id: sent.id };
  }

  /**
   * A team's pending invitations as a cached query.
   *
   * @example
   * app.subscribe(() => app.teamInvitationsQuery(team.id), (state) => console.log(state.data));
   */
  teamInvitationsQuery(teamId: string): LatchQuery<TeamInvitation[]> {
    const asSession = this.accessLevel() === 'client';
    const input = { team_id: teamId };
    return defineQuery(this.#readKey(asSession, 'teamInvitations.list', input), async () => {
      const list = await this.call((context) => this.trpc.teamInvitations.list.query(input, { context }), { session: asSession });
      return list.items;
    });
  }

  /**
   * A team's pending invitations (clients: with `$read_members` and `$invite_members`).
   *
   * @example
   * const pending = await app.listTeamInvitations(team.id);
   */
  async listTeamInvitations(teamId: string): Promise<TeamInvitation[]> {
    return this.queryClient.fetchQuery(this.teamInvitationsQuery(teamId));
  }

  /**
   * Withdraws an invitation: its code stops working at once (clients: with `$remove_members`).
   *
   * @example
   * await app.revokeTeamInvitation(team.id, invitation.id);
   */
  async revokeTeamInvitation(teamId: string, invitationId: string): Promise<void> {
    await this.call((context) => this.trpc.teamInvitations.revoke.mutate({ invitation_id: invitationId, team_id: teamId }, { context }), {
      session: this.accessLevel() === 'client',
    });
    this.invalidate(['teamInvitations.']);
  }

  /**
   * Accepts an invitation for the signed-in user, who joins the team (with
   * `team_member_default_permissions`). A code that is unknown, withdrawn, expired, used or out of
   * attempts is returned as an error.
   *
   * @example
   * const code = new URL(location.href).searchParams.get('code')!;
   * const result = await app.acceptTeamInvitation(code);
   * if (result.status === 'ok') await app.selectTeam(result.data.team_id);
   * else showError(result.error.message); // e.g. KnownErrors.VerificationCodeExpired
   */
  async acceptTeamInvitation(code: string): Promise<Result<{ team_id: string }, InvitationCodeError>> {
    const accept = this.call((context) => this.trpc.teamInvitations.accept.mutate({ code }, { context }), { session: true }).then((accepted) => {
      this.invalidate(MEMBERSHIP_DATA);
      return { team_id: accepted.team_id };
    });
    return toResult(accept, INVITATION_CODE_ERRORS);
  }

  /**
   * Checks an invitation code without using it (it counts as an attempt).
   *
   * @example
   * const valid = (await app.checkTeamInvitationCode(code)).status === 'ok';
   */
  async checkTeamInvitationCode(code: string): Promise<Result<void, InvitationCodeError>> {
    const check = this.call((context) => this.trpc.teamInvitations.checkCode.mutate({ code }, { context })).then(() => undefined);
    return toResult(check, INVITATION_CODE_ERRORS);
  }

  /**
   * The team an invitation code is for, to show before accepting (counts as an attempt).
   *
   * @example
   * const details = await app.getTeamInvitationDetails(code);
   * if (details.status === 'ok') render(`Join ${details.data.team_display_name}?`);
   */
  async getTeamInvitationDetails(code: string): Promise<Result<TeamInvitationDetails, InvitationCodeError>> {
    return toResult(
      this.call((context) => this.trpc.teamInvitations.details.mutate({ code }, { context })),
      INVITATION_CODE_ERRORS,
    );
  }

  // ─── Permissions ─────────────────────────────────────────────────────────────────────────────

  /**
   * Team permissions held in a team, as a cached query: the signed-in user's (client); server
   * code names the user with `userId`, or gets every member's grants without it. `recursive`
   * (default true) includes the permissions contained in those granted.
   *
   * @example
   * app.subscribe(() => app.teamPermissionsQuery(team.id), (state) => console.log(state.data?.map((p) => p.id)));
   */
  teamPermissionsQuery(teamId: string, options: { userId?: string; recursive?: boolean } = {}): LatchQuery<TeamPermission[]> {
    const asSession = this.#sessionFor(options.userId, false);
    const userId = options.userId ?? (asSession ? 'me' : undefined);
    const input = { team_id: teamId, ...(userId === undefined ? {} : { user_id: userId }), recursive: options.recursive ?? true };
    return defineQuery(this.#readKey(asSession, 'permissions.listTeamPermissions', input), async () => {
      const list = await this.call((context) => this.trpc.permissions.listTeamPermissions.query(input, { context }), { session: asSession });
      return list.items;
    });
  }

  /**
   * The permissions held in a team (default: the signed-in user's), recursively by default:
   * `recursive: false` lists only the direct grants.
   *
   * @example
   * const ids = (await app.listTeamPermissions(team.id)).map((p) => p.id); // ['$invite_members', 'docs:read', …]
   */
  async listTeamPermissions(teamId: string, options: { userId?: string; recursive?: boolean } = {}): Promise<TeamPermission[]> {
    return this.queryClient.fetchQuery(this.teamPermissionsQuery(teamId, options));
  }

  /**
   * Project permissions held, as a cached query: the signed-in user's (client); server code names
   * the user with `userId`, or gets every user's grants without it.
   *
   * @example
   * app.subscribe(() => app.projectPermissionsQuery(), (state) => console.log(state.data));
   */
  projectPermissionsQuery(options: { userId?: string; recursive?: boolean } = {}): LatchQuery<ProjectPermission[]> {
    const asSession = this.#sessionFor(options.userId, false);
    const userId = options.userId ?? (asSession ? 'me' : undefined);
    const input = { ...(userId === undefined ? {} : { user_id: userId }), recursive: options.recursive ?? true };
    return defineQuery(this.#readKey(asSession, 'permissions.listProjectPermissions', input), async () => {
      const list = await this.call((context) => this.trpc.permissions.listProjectPermissions.query(input, { context }), { session: asSession });
      return list.items;
    });
  }

  /**
   * The project permissions held (default: the signed-in user's), recursively by default.
   *
   * @example
   * const ids = (await app.listProjectPermissions()).map((p) => p.id);
   */
  async listProjectPermissions(options: { userId?: string; recursive?: boolean } = {}): Promise<ProjectPermission[]> {
    return this.queryClient.fetchQuery(this.projectPermissionsQuery(options));
  }

  /**
   * Whether a user (default: the signed-in user) holds a permission, directly or through any
   * chain of permissions that contain it: in a team with `teamId`, else in the project. Reads the
   * cached recursive list, so checking several permissions costs one request.
   *
   * @example
   * if (await app.hasPermission('$invite_members', { teamId: team.id })) showInviteButton();
   * const canExport = await server.hasPermission('reports:export', { userId: user.id });
   */
  async hasPermission(permissionId: string, options: { teamId?: string; userId?: string } = {}): Promise<boolean> {
    const scope = { userId: options.userId ?? 'me', recursive: true };
    const held = options.teamId === undefined ? await this.listProjectPermissions(scope) : await this.listTeamPermissions(options.teamId, scope);
    return held.some((permission) => permission.id === permissionId);
  }

  // ─── User and team API keys ──────────────────────────────────────────────────────────────────

  /**
   * A user's API keys as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.userApiKeysQuery(), (state) => console.log(state.data));
   */
  userApiKeysQuery(options: { userId?: string } = {}): LatchQuery<UserApiKey[]> {
    const asSession = this.#sessionFor(options.userId);
    const input = { user_id: options.userId ?? 'me' };
    return defineQuery(this.#readKey(asSession, 'userTeamApiKeys.listUserKeys', input), async () => {
      const list = await this.call((context) => this.trpc.userTeamApiKeys.listUserKeys.query(input, { context }), { session: asSession });
      return list.items;
    });
  }

  /**
   * A user's API keys (default: the signed-in user's), with only the last four characters of each.
   *
   * @example
   * const keys = await app.listUserApiKeys();
   */
  async listUserApiKeys(options: { userId?: string } = {}): Promise<UserApiKey[]> {
    return this.queryClient.fetchQuery(this.userApiKeysQuery(options));
  }

  /**
   * Creates an API key for a user (default: the signed-in user), when the project has
   * `allow_user_api_keys`. The full key is in this response only.
   *
   * @example
   * const key = await app.createUserApiKey({ description: 'CLI on my laptop', expires_at_millis: Date.now() + 90 * 86_400_000 });
   * console.log(key.value); // shown once
   */
  async createUserApiKey(input: ApiKeyCreateInput, options: { userId?: string } = {}): Promise<CreatedUserApiKey> {
    const body = { ...input, user_id: options.userId ?? 'me' };
    const created = await this.call((context) => this.trpc.userTeamApiKeys.createUserKey.mutate(body, { context }), { session: this.#sessionFor(options.userId) });
    this.invalidate(['userTeamApiKeys.']);
    return created;
  }

  /**
   * One user API key, or null when there is none the caller may see.
   *
   * @example
   * const key = await app.getUserApiKey(id);
   */
  async getUserApiKey(apiKeyId: string): Promise<UserApiKey | null> {
    return this.#getApiKey('user', apiKeyId);
  }

  /**
   * Changes a user API key's description or expiry, or revokes it with `revoked: true`.
   *
   * @example
   * await app.updateUserApiKey(key.id, { description: 'old laptop' });
   */
  async updateUserApiKey(apiKeyId: string, patch: ApiKeyUpdateInput): Promise<UserApiKey> {
    const updated = await this.call((context) => this.trpc.userTeamApiKeys.updateUserKey.mutate({ ...patch, api_key_id: apiKeyId }, { context }), {
      session: this.accessLevel() === 'client',
    });
    this.invalidate(['userTeamApiKeys.']);
    return updated;
  }

  /**
   * Revokes a user API key for good (public keys cannot be revoked: expire them instead).
   *
   * @example
   * await app.revokeUserApiKey(key.id);
   */
  async revokeUserApiKey(apiKeyId: string): Promise<UserApiKey> {
    return this.updateUserApiKey(apiKeyId, { revoked: true });
  }

  /**
   * A team's API keys as a cached query.
   *
   * @example
   * app.subscribe(() => app.teamApiKeysQuery(team.id), (state) => console.log(state.data));
   */
  teamApiKeysQuery(teamId: string): LatchQuery<TeamApiKey[]> {
    const asSession = this.accessLevel() === 'client';
    const input = { team_id: teamId };
    return defineQuery(this.#readKey(asSession, 'userTeamApiKeys.listTeamKeys', input), async () => {
      const list = await this.call((context) => this.trpc.userTeamApiKeys.listTeamKeys.query(input, { context }), { session: asSession });
      return list.items;
    });
  }

  /**
   * A team's API keys (clients: with `$manage_api_keys`), last four characters only.
   *
   * @example
   * const keys = await app.listTeamApiKeys(team.id);
   */
  async listTeamApiKeys(teamId: string): Promise<TeamApiKey[]> {
    return this.queryClient.fetchQuery(this.teamApiKeysQuery(teamId));
  }

  /**
   * Creates an API key for a team, when the project has `allow_team_api_keys` (clients: with
   * `$manage_api_keys`). The full key is in this response only.
   *
   * @example
   * const key = await app.createTeamApiKey(team.id, { description: 'deploy bot' });
   * console.log(key.value); // latch_tsk_…, shown once
   */
  async createTeamApiKey(teamId: string, input: ApiKeyCreateInput): Promise<CreatedTeamApiKey> {
    const created = await this.call((context) => this.trpc.userTeamApiKeys.createTeamKey.mutate({ ...input, team_id: teamId }, { context }), {
      session: this.accessLevel() === 'client',
    });
    this.invalidate(['userTeamApiKeys.']);
    return created;
  }

  /**
   * One team API key, or null when there is none the caller may see.
   *
   * @example
   * const key = await app.getTeamApiKey(id);
   */
  async getTeamApiKey(apiKeyId: string): Promise<TeamApiKey | null> {
    return this.#getApiKey('team', apiKeyId);
  }

  /**
   * Changes a team API key's description or expiry, or revokes it with `revoked: true` (clients:
   * with `$manage_api_keys`).
   *
   * @example
   * await app.updateTeamApiKey(key.id, { expires_at_millis: Date.now() + 86_400_000 });
   */
  async updateTeamApiKey(apiKeyId: string, patch: ApiKeyUpdateInput): Promise<TeamApiKey> {
    const updated = await this.call((context) => this.trpc.userTeamApiKeys.updateTeamKey.mutate({ ...patch, api_key_id: apiKeyId }, { context }), {
      session: this.accessLevel() === 'client',
    });
    this.invalidate(['userTeamApiKeys.']);
    return updated;
  }

  /**
   * Revokes a team API key for good: its checks fail with API_KEY_REVOKED (reason `manually-revoked`).
   *
   * @example
   * await app.revokeTeamApiKey(key.id);
   */
  async revokeTeamApiKey(apiKeyId: string): Promise<TeamApiKey> {
    return this.updateTeamApiKey(apiKeyId, { revoked: true });
  }

  // ─── Email links: defaults ───────────────────────────────────────────────────────────────────

  /**
   * The absolute URL of one of the app's pages (`urls[page]`, default `/handler/<route>` as in spec
   * section 2): as given when absolute, resolved against the current page in a browser, an error
   * elsewhere (`message` says what to pass).
   */
  #handlerUrl(page: keyof typeof HANDLER_PAGES, message: string): string {
    const url = this.#options.urls?.[page] ?? HANDLER_PAGES[page];
    if (/^https?:\/\//i.test(url)) return url;
    if (typeof window !== 'undefined' && typeof window.location?.href === 'string') return new URL(url, window.location.href).href;
    throw new Error(message);
  }

  #callbackUrl(given: string | undefined, page: 'passwordReset' | 'magicLinkCallback' | 'emailVerification' | 'signIn', method: string): string {
    return (
      given ??
      this.#handlerUrl(page, `${method} needs a callbackUrl outside a browser (the absolute URL of your app's ${HANDLER_PAGES[page]} page), or an absolute urls.${page} option.`)
    );
  }

  /** The callback URL of a sign-in invitation (default: the `urls.signIn` page). */
  protected signInCallbackUrl(given: string | undefined, method: string): string {
    return this.#callbackUrl(given, 'signIn', method);
  }

  // ─── Password reset ──────────────────────────────────────────────────────────────────────────

  /**
   * Emails a password-reset link to `email` (`callbackUrl?code=…`; default: the
   * `urls.passwordReset` page, which must be a trusted domain of the project). The answer is the
   * same whether or not the address has an account; an untrusted callback URL is returned as an error.
   *
   * @example
   * const result = await app.sendForgotPasswordEmail('ann@example.com', { callbackUrl: 'https://app.example.com/handler/password-reset' });
   * if (result.status === 'error') showError(result.error.message); // KnownErrors.RedirectUrlNotWhitelisted
   */
  async sendForgotPasswordEmail(email: string, options: { callbackUrl?: string } = {}): Promise<Result<void, SendEmailError>> {
    const body = { email, callback_url: this.#callbackUrl(options.callbackUrl, 'passwordReset', 'sendForgotPasswordEmail') };
    const send = this.call((context) => this.trpc.auth.passwordSendResetCode.mutate(body, { context })).then(() => {
      this.invalidate(['emails.']);
    });
    return toResult(send, SEND_EMAIL_ERRORS);
  }

  /**
   * Checks a password-reset code (from the `code` parameter of the emailed link) without using
   * it, e.g. before showing the new-password form. Counts as an attempt.
   *
   * @example
   * const code = new URL(location.href).searchParams.get('code')!;
   * const check = await app.verifyPasswordResetCode(code);
   * if (check.status === 'error') showError(check.error.message); // e.g. KnownErrors.VerificationCodeExpired
   */
  async verifyPasswordResetCode(code: string): Promise<Result<void, VerificationCodeError>> {
    const check = this.call((context) => this.trpc.auth.passwordResetCheckCode.mutate({ code }, { context })).then(() => undefined);
    return toResult(check, VERIFICATION_CODE_ERRORS);
  }

  /**
   * Sets a new password with a reset code. Every session of that user ends (sign in again with
   * the new password), the emailed address counts as verified, and the user's other reset links
   * stop working. A bad code or a password that breaks the rules is returned as an error.
   *
   * @example
   * const result = await app.resetPassword({ code, password: 'a new password' });
   * if (result.status === 'ok') await app.signInWithPassword({ email, password: 'a new password' });
   */
  async resetPassword(input: { code: string; password: string }): Promise<Result<void, PasswordResetError>> {
    const reset = this.call((context) => this.trpc.auth.passwordReset.mutate({ code: input.code, password: input.password }, { context })).then(() => {
      this.invalidate(['users.', 'sessions.', 'contactChannels.']);
    });
    return toResult(reset, PASSWORD_RESET_ERRORS);
  }

  // ─── Magic link / one-time code ──────────────────────────────────────────────────────────────

  /**
   * Emails a sign-in link (`callbackUrl?code=…`; default: the `urls.magicLinkCallback` page) and a
   * 6-character code, when the project has `magic_link_enabled`. An address without an account
   * gets one on sign-in (when sign-up is enabled). Returns the nonce: keep it in this browser, as a
   * typed code is sent with it (`signInWithMagicLink(typed, { nonce })`).
   *
   * @example
   * const sent = await app.sendMagicLinkEmail('ann@example.com', { callbackUrl: 'https://app.example.com/handler/magic-link-callback' });
   * if (sent.status === 'ok') sessionStorage.setItem('latch-nonce', sent.data.nonce);
   */
  async sendMagicLinkEmail(email: string, options: { callbackUrl?: string } = {}): Promise<Result<{ nonce: string }, MagicLinkSendError>> {
    const body = { email, callback_url: this.#callbackUrl(options.callbackUrl, 'magicLinkCallback', 'sendMagicLinkEmail') };
    const send = this.call((context) => this.trpc.auth.otpSendSignInCode.mutate(body, { context }), { access: 'client' }).then((sent) => {
      this.invalidate(['emails.']);
      return { nonce: sent.nonce };
    });
    return toResult(send, MAGIC_LINK_SEND_ERRORS);
  }

  /**
   * Signs in with a magic link's code (the `code` parameter of the link), or with the typed
   * 6-character code and the nonce of `sendMagicLinkEmail`, and stores the session like the other
   * sign-ins. `is_new_user` is true when the address had no account (it has now, verified).
   *
   * @example
   * const result = await app.signInWithMagicLink(new URL(location.href).searchParams.get('code')!);
   * const typed = await app.signInWithMagicLink('A1B2C3', { nonce: sessionStorage.getItem('latch-nonce')! });
   * if (result.status === 'ok' && result.data.is_new_user) showWelcome();
   */
  async signInWithMagicLink(code: string, options: { nonce?: string } = {}): Promise<Result<SignInResult, MagicLinkSignInError>> {
    await this.session.peek(); // an app without a token store fails here, before a session is made
    const body = { code: code + (options.nonce ?? '') };
    return toResult(this.#startSession(this.call((context) => this.trpc.auth.otpSignIn.mutate(body, { context }), { access: 'client' })), MAGIC_LINK_SIGN_IN_ERRORS);
  }

  // ─── Email verification and contact channels ─────────────────────────────────────────────────

  /**
   * Verifies an email address with the code of its verification link (no signed-in user needed).
   * A bad code, or an address verified already, is returned as an error.
   *
   * @example
   * const result = await app.verifyEmail(new URL(location.href).searchParams.get('code')!);
   * render(result.status === 'ok' ? 'Email verified' : result.error.message);
   */
  async verifyEmail(code: string): Promise<Result<void, VerifyEmailError>> {
    const verify = this.call((context) => this.trpc.contactChannels.verify.mutate({ code }, { context })).then(() => {
      this.invalidate(CONTACT_CHANNEL_DATA);
    });
    return toResult(verify, VERIFY_EMAIL_ERRORS);
  }

  /**
   * Emails a verification link for the signed-in user's primary email (`callbackUrl?code=…`;
   * default: the `urls.emailVerification` page). The link's page calls {@link ClientApp.verifyEmail}.
   *
   * @example
   * await app.sendVerificationEmail({ callbackUrl: 'https://app.example.com/handler/email-verification' });
   */
  async sendVerificationEmail(options: { callbackUrl?: string } = {}): Promise<Result<void, SendEmailError>> {
    const callbackUrl = this.#callbackUrl(options.callbackUrl, 'emailVerification', 'sendVerificationEmail');
    const user = await this.getUser({ or: 'throw' });
    if (!user.primary_email) throw new Error('The signed-in user has no primary email to verify.');
    const body = { email: user.primary_email, callback_url: callbackUrl };
    const send = this.call((context) => this.trpc.contactChannels.sendVerificationCode.mutate(body, { context }), { session: true }).then(() => {
      this.invalidate(['emails.']);
    });
    return toResult(send, SEND_EMAIL_ERRORS);
  }

  /**
   * A user's contact channels as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.contactChannelsQuery(), (state) => console.log(state.data?.map((c) => c.value)));
   */
  contactChannelsQuery(options: { userId?: string } = {}): LatchQuery<ContactChannel[]> {
    const asSession = this.#sessionFor(options.userId);
    const input = { user_id: options.userId ?? 'me' };
    return defineQuery(this.#readKey(asSession, 'contactChannels.list', input), async () => {
      const list = await this.call((context) => this.trpc.contactChannels.list.query(input, { context }), { session: asSession });
      return list.items;
    });
  }

  /**
   * A user's contact channels (default: the signed-in user's; server code names any user).
   *
   * @example
   * const unverified = (await app.listContactChannels()).filter((c) => !c.is_verified);
   */
  async listContactChannels(options: { userId?: string } = {}): Promise<ContactChannel[]> {
    return this.queryClient.fetchQuery(this.contactChannelsQuery(options));
  }

  /**
   * Adds an email to a user (default: the signed-in user; clients add unverified channels). A
   * value another user signs in with cannot be `used_for_auth` (a 409); `is_primary` makes it
   * the primary email.
   *
   * @example
   * const channel = await app.createContactChannel({ type: 'email', value: 'ann@work.example', used_for_auth: false });
   * await app.sendContactChannelVerificationEmail(channel.id);
   */
  async createContactChannel(input: ContactChannelCreateInput, options: { userId?: string } = {}): Promise<ContactChannel> {
    const body = { ...input, user_id: options.userId ?? 'me' };
    const created = await this.call((context) => this.trpc.contactChannels.create.mutate(body, { context }), { session: this.#sessionFor(options.userId) });
    this.invalidate(CONTACT_CHANNEL_DATA);
    return created;
  }

  /**
   * Changes a contact channel: a new `value` is unverified again, `is_primary: true` makes it the
   * primary email, `used_for_auth` lets the user sign in with it.
   *
   * @example
   * await app.updateContactChannel(channel.id, { is_primary: true });
   */
  async updateContactChannel(contactChannelId: string, patch: ContactChannelUpdateInput, options: { userId?: string } = {}): Promise<ContactChannel> {
    const body = { ...patch, user_id: options.userId ?? 'me', contact_channel_id: contactChannelId };
    const updated = await this.call((context) => this.trpc.contactChannels.update.mutate(body, { context }), { session: this.#sessionFor(options.userId) });
    this.invalidate(CONTACT_CHANNEL_DATA);
    return updated;
  }

  /**
   * Removes a contact channel (removing the primary one leaves the user without a primary email).
   *
   * @example
   * await app.deleteContactChannel(channel.id);
   */
  async deleteContactChannel(contactChannelId: string, options: { userId?: string } = {}): Promise<void> {
    const body = { user_id: options.userId ?? 'me', contact_channel_id: contactChannelId };
    await this.call((context) => this.trpc.contactChannels.delete.mutate(body, { context }), { session: this.#sessionFor(options.userId) });
    this.invalidate(CONTACT_CHANNEL_DATA);
  }

  /**
   * Emails a verification link for one contact channel (`callbackUrl?code=…`; default: the
   * `urls.emailVerification` page, a trusted domain of the project). A verified channel is a 409
   * (EMAIL_ALREADY_VERIFIED, thrown).
   *
   * @example
   * const sent = await app.sendContactChannelVerificationEmail(channel.id, { callbackUrl: 'https://app.example.com/handler/email-verification' });
   */
  async sendContactChannelVerificationEmail(contactChannelId: string, options: { callbackUrl?: string; userId?: string } = {}): Promise<Result<void, SendEmailError>> {
    const body = {
      user_id: options.userId ?? 'me',
      contact_channel_id: contactChannelId,
      callback_url: this.#callbackUrl(options.callbackUrl, 'emailVerification', 'sendContactChannelVerificationEmail'),
    };
    const send = this.call((context) => this.trpc.contactChannels.sendChannelVerificationCode.mutate(body, { context }), { session: this.#sessionFor(options.userId) }).then(() => {
      this.invalidate(['emails.']);
    });
    return toResult(send, SEND_EMAIL_ERRORS);
  }

  #getApiKey(type: 'user', apiKeyId: string): Promise<UserApiKey | null>;
  #getApiKey(type: 'team', apiKeyId: string): Promise<TeamApiKey | null>;
  #getApiKey(type: 'user' | 'team', apiKeyId: string): Promise<UserApiKey | TeamApiKey | null> {
    const asSession = this.accessLevel() === 'client';
    const input = { api_key_id: apiKeyId };
    const path = type === 'user' ? 'userTeamApiKeys.getUserKey' : 'userTeamApiKeys.getTeamKey';
    return this.queryClient.fetchQuery(
      defineQuery(this.#readKey(asSession, path, input), async (): Promise<UserApiKey | TeamApiKey | null> => {
        try {
          return await this.call<UserApiKey | TeamApiKey>(
            (context) => (type === 'user' ? this.trpc.userTeamApiKeys.getUserKey.query(input, { context }) : this.trpc.userTeamApiKeys.getTeamKey.query(input, { context })),
            { session: asSession },
          );
        } catch (error) {
          if (error instanceof KnownErrors.ApiKeyNotFound) return null;
          throw error;
        }
      }),
    );
  }
}
