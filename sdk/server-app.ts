/**
 * `ServerApp`: code you trust (your backend) with the project's secret server key. It can do
 * everything a `ClientApp` can (with server views of users), and manage any user of the project.
 * Never ship the secret server key to a browser.
 */
import type { LatchQuery } from './cache.js';
import { defineQuery } from './cache.js';
import {
  type ClientAppOptions,
  ClientApp,
  MEMBERSHIP_DATA,
  USER_DATA,
  type ClientTeamViews,
  type ProjectPermission,
  type ServerTeam,
  type ServerTeamMemberProfile,
  type ServerUser,
  type TeamApiKey,
  type TeamCreateInput,
  type TeamPermission,
  type TeamUpdateInput,
  type UserApiKey,
  envVar,
} from './client-app.js';
import { KnownErrors, type KnownErrorOf, isKnownErrorInGroup } from './errors.js';
import type { TokenStoreInit } from './tokens.js';
import type { AccessLevel, Credentials, RouterInputs, RouterOutputs } from './transport.js';

export type UserCreateInput = RouterInputs['users']['create'];
/** What server code may change on a user (client fields plus metadata, email, password). */
export type ServerUserUpdate = Omit<RouterInputs['users']['update'], 'user_id'>;
export type UserListQuery = RouterInputs['users']['list'];
/** A page of users: `items` and `pagination.next_cursor` (null on the last page). */
export type UserList = RouterOutputs['users']['list'];
export type SessionCreateInput = RouterInputs['sessions']['create'];
/** The tokens of a session created by the server (impersonation, your own sign-in flows). */
export type SessionTokens = RouterOutputs['sessions']['create'];

/** A team or project permission definition (system team permissions have `is_system_permission`). */
export type PermissionDefinition = RouterOutputs['permissions']['getTeamDefinition'];
/** A team membership made by server code. */
export type TeamMembership = RouterOutputs['teams']['addMember'];
/** Why an API key check failed (the `ApiKeyNotValid` family); `details.reason` on revoked and expired keys. */
export type ApiKeyNotValidError = KnownErrorOf<'ApiKeyNotValid' | 'ApiKeyExpired' | 'ApiKeyRevoked' | 'WrongApiKeyType' | 'ApiKeyNotFound' | 'PublicApiKeyCannotBeRevoked'>;

/** Options of the API key checks. */
export interface ApiKeyCheckOptions {
  /**
   * What to do when the key is not valid (not found, mistyped, of the other type, revoked or
   * expired): `'return-null'` (default, the spec's "the check call returns null") or `'throw'` the
   * known error, whose `details.reason` is `manually-revoked` or `expired` for those two.
   */
  or?: 'return-null' | 'throw';
}

/** Server views of teams and member profiles, and the server-only fields on writes. */
export interface ServerTeamViews extends ClientTeamViews {
  team: ServerTeam;
  memberProfile: ServerTeamMemberProfile;
  teamCreate: TeamCreateInput;
  teamUpdate: TeamUpdateInput;
}

export interface ServerAppOptions extends ClientAppOptions {
  /** The project's secret server key. Default: the `LATCH_SECRET_SERVER_KEY` environment variable. */
  secretServerKey?: string;
}

/**
 * The server app of a project: the client app's calls with server access, plus user management.
 * Its token store defaults to none: pass `tokenStore` to act for a session, or
 * `getUser({ tokenStore: { accessToken, refreshToken } })` to read the user of a request.
 *
 * @example
 * import { ServerApp } from './sdk/index.js';
 * const server = new ServerApp({ projectId: 'c0ffee…', secretServerKey: process.env.LATCH_SECRET_SERVER_KEY });
 * const { items } = await server.listUsers({ query: 'ann', limit: 20 });
 * const user = await server.getUser({ tokenStore: { accessToken: req.headers['x-latch-access-token'] } });
 */
export class ServerApp extends ClientApp<ServerUser, ServerTeamViews> {
  constructor(options: ServerAppOptions = {}) {
    super(options);
  }

  protected override accessLevel(): AccessLevel {
    return 'server';
  }

  protected override defaultTokenStore(): TokenStoreInit {
    return null;
  }

  protected override resolveCredentials(options: ServerAppOptions): Credentials {
    const secretServerKey = options.secretServerKey ?? envVar('LATCH_SECRET_SERVER_KEY');
    if (!secretServerKey) throw new Error('No secret server key: pass secretServerKey to the ServerApp, or set the LATCH_SECRET_SERVER_KEY environment variable.');
    return { ...super.resolveCredentials(options), secretServerKey };
  }

  /**
   * A user as a cached query (data null when there is no such user).
   *
   * @example
   * server.subscribe(() => server.userQuery(id), (state) => console.log(state.data));
   */
  userQuery(userId: string): LatchQuery<ServerUser | null> {
    return defineQuery(this.appKey('users.get', { user_id: userId }), async () => {
      try {
        return (await this.call((context) => this.trpc.users.get.query({ user_id: userId }, { context }))) as ServerUser;
      } catch (error) {
        if (error instanceof KnownErrors.UserNotFound) return null;
        throw error;
      }
    });
  }

  /**
   * A user by id, or null when the project has no such user.
   *
   * @example
   * const user = await server.getUserById('3b9f…');
   */
  async getUserById(userId: string): Promise<ServerUser | null> {
    return this.queryClient.fetchQuery(this.userQuery(userId));
  }

  /**
   * A page of users as a cached query.
   *
   * @example
   * server.subscribe(() => server.usersQuery({ limit: 50 }), (state) => console.log(state.data?.items));
   */
  usersQuery(query: UserListQuery = {}): LatchQuery<UserList> {
    return defineQuery(this.appKey('users.list', query), () => this.call((context) => this.trpc.users.list.query(query, { context })));
  }

  /**
   * Users, oldest first by default, cursor-paginated; `query` searches email, name and id.
   * Anonymous users are left out unless `include_anonymous` is true.
   *
   * @example
   * let page = await server.listUsers({ limit: 100 });
   * while (page.pagination.next_cursor) page = await server.listUsers({ limit: 100, cursor: page.pagination.next_cursor });
   */
  async listUsers(query: UserListQuery = {}): Promise<UserList> {
    return this.queryClient.fetchQuery(this.usersQuery(query));
  }

  /**
   * Creates a user (with a password, an imported bcrypt or argon2id `password_hash`, or neither).
   * Works even when the project has sign-up disabled.
   *
   * @example
   * const user = await server.createUser({ primary_email: 'bob@example.com', password: 'correct horse', primary_email_auth_enabled: true });
   */
  async createUser(input: UserCreateInput): Promise<ServerUser> {
    const user = await this.call((context) => this.trpc.users.create.mutate(input, { context }));
    this.invalidate(['users.']);
    return user;
  }

  /**
   * Updates any user; setting a password signs them out everywhere.
   *
   * @example
   * await server.updateUserById(user.id, { server_metadata: { plan: 'pro' } });
   */
  async updateUserById(userId: string, patch: ServerUserUpdate): Promise<ServerUser> {
    const user = (await this.call((context) => this.trpc.users.update.mutate({ ...patch, user_id: userId }, { context }))) as ServerUser;
    this.invalidate(USER_DATA);
    if (patch.password !== undefined || patch.password_hash !== undefined) this.invalidate(['sessions.']);
    return user;
  }

  /**
   * Deletes a user and everything of theirs (sessions included).
   *
   * @example
   * await server.deleteUserById(user.id);
   */
  async deleteUserById(userId: string): Promise<void> {
    await this.call((context) => this.trpc.users.delete.mutate({ user_id: userId }, { context }));
    this.invalidate([...MEMBERSHIP_DATA, 'sessions.']);
  }

  /**
   * Creates a session for a user and returns its tokens (default lifetime 1 year); for
   * impersonation, set `is_impersonation`.
   *
   * @example
   * const { access_token, refresh_token } = await server.createSession({ user_id: user.id, is_impersonation: true });
   */
  async createSession(input: SessionCreateInput): Promise<SessionTokens> {
    const tokens = await this.call((context) => this.trpc.sessions.create.mutate(input, { context }));
    this.invalidate(['sessions.']);
    return tokens;
  }

  // ─── Memberships ─────────────────────────────────────────────────────────────────────────────

  /**
   * Adds a user to a team, with `team_member_default_permissions` (clients join through
   * invitations). Throws TEAM_MEMBERSHIP_ALREADY_EXISTS when they already are a member.
   *
   * @example
   * await server.addTeamMember(team.id, user.id);
   */
  async addTeamMember(teamId: string, userId: string): Promise<TeamMembership> {
    const membership = await this.call((context) => this.trpc.teams.addMember.mutate({ team_id: teamId, user_id: userId }, { context }), { session: userId === 'me' });
    this.invalidate(MEMBERSHIP_DATA);
    return membership;
  }

  // ─── Permission grants ───────────────────────────────────────────────────────────────────────

  /**
   * Grants a team permission (system or custom) to a member of the team; granting it again
   * changes nothing.
   *
   * @example
   * await server.grantTeamPermission(team.id, user.id, '$invite_members');
   */
  async grantTeamPermission(teamId: string, userId: string, permissionId: string): Promise<TeamPermission> {
    const input = { team_id: teamId, user_id: userId, permission_id: permissionId };
    const granted = await this.call((context) => this.trpc.permissions.grantTeamPermission.mutate(input, { context }), { session: userId === 'me' });
    this.invalidate(['permissions.listTeamPermissions']);
    return granted;
  }

  /**
   * Revokes a team permission granted directly to a member (revoking one not granted changes
   * nothing; permissions held through a containing one stay until that one is revoked).
   *
   * @example
   * await server.revokeTeamPermission(team.id, user.id, '$invite_members');
   */
  async revokeTeamPermission(teamId: string, userId: string, permissionId: string): Promise<void> {
    const input = { team_id: teamId, user_id: userId, permission_id: permissionId };
    await this.call((context) => this.trpc.permissions.revokeTeamPermission.mutate(input, { context }), { session: userId === 'me' });
    this.invalidate(['permissions.listTeamPermissions']);
  }

  /**
   * Grants a project permission to a user.
   *
   * @example
   * await server.grantProjectPermission(user.id, 'reports:export');
   */
  async grantProjectPermission(userId: string, permissionId: string): Promise<ProjectPermission> {
    const input = { user_id: userId, permission_id: permissionId };
    const granted = await this.call((context) => this.trpc.permissions.grantProjectPermission.mutate(input, { context }), { session: userId === 'me' });
    this.invalidate(['permissions.listProjectPermissions']);
    return granted;
  }

  /**
   * Revokes a project permission granted directly to a user.
   *
   * @example
   * await server.revokeProjectPermission(user.id, 'reports:export');
   */
  async revokeProjectPermission(userId: string, permissionId: string): Promise<void> {
    const input = { user_id: userId, permission_id: permissionId };
    await this.call((context) => this.trpc.permissions.revokeProjectPermission.mutate(input, { context }), { session: userId === 'me' });
    this.invalidate(['permissions.listProjectPermissions']);
  }

  // ─── Permission definitions (read; AdminApp writes them) ─────────────────────────────────────

  /**
   * The team permission definitions as a cached query, system permissions first.
   *
   * @example
   * server.subscribe(() => server.teamPermissionDefinitionsQuery(), (state) => console.log(state.data));
   */
  teamPermissionDefinitionsQuery(): LatchQuery<PermissionDefinition[]> {
    return defineQuery(this.appKey('permissions.listTeamDefinitions'), async () => (await this.call((context) => this.trpc.permissions.listTeamDefinitions.query({}, { context }))).items);
  }

  /**
   * The team permission definitions: the six system permissions (`$update_team`, …), then the
   * project's own.
   *
   * @example
   * const ids = (await server.listTeamPermissionDefinitions()).map((d) => d.id);
   */
  async listTeamPermissionDefinitions(): Promise<PermissionDefinition[]> {
    return this.queryClient.fetchQuery(this.teamPermissionDefinitionsQuery());
  }

  /**
   * One team permission definition (a system one included), or null when there is none.
   * A project permission's id throws WRONG_PERMISSION_SCOPE.
   *
   * @example
   * const editor = await server.getTeamPermissionDefinition('editor');
   */
  async getTeamPermissionDefinition(permissionId: string): Promise<PermissionDefinition | null> {
    const input = { permission_id: permissionId };
    return this.queryClient.fetchQuery(defineQuery(this.appKey('permissions.getTeamDefinition', input), () => this.#orNullIfNoPermission(this.call((context) => this.trpc.permissions.getTeamDefinition.query(input, { context })))));
  }

  /**
   * The project permission definitions as a cached query.
   *
   * @example
   * server.subscribe(() => server.projectPermissionDefinitionsQuery(), (state) => console.log(state.data));
   */
  projectPermissionDefinitionsQuery(): LatchQuery<PermissionDefinition[]> {
    return defineQuery(this.appKey('permissions.listProjectDefinitions'), async () => (await this.call((context) => this.trpc.permissions.listProjectDefinitions.query({}, { context }))).items);
  }

  /**
   * The project permission definitions.
   *
   * @example
   * const definitions = await server.listProjectPermissionDefinitions();
   */
  async listProjectPermissionDefinitions(): Promise<PermissionDefinition[]> {
    return this.queryClient.fetchQuery(this.projectPermissionDefinitionsQuery());
  }

  /**
   * One project permission definition, or null when there is none. A team permission's id throws
   * WRONG_PERMISSION_SCOPE.
   *
   * @example
   * const definition = await server.getProjectPermissionDefinition('reports:export');
   */
  async getProjectPermissionDefinition(permissionId: string): Promise<PermissionDefinition | null> {
    const input = { permission_id: permissionId };
    return this.queryClient.fetchQuery(defineQuery(this.appKey('permissions.getProjectDefinition', input), () => this.#orNullIfNoPermission(this.call((context) => this.trpc.permissions.getProjectDefinition.query(input, { context })))));
  }

  async #orNullIfNoPermission<T>(read: Promise<T>): Promise<T | null> {
    try {
      return await read;
    } catch (error) {
      if (error instanceof KnownErrors.PermissionNotFound) return null;
      throw error;
    }
  }

  // ─── API key checks ──────────────────────────────────────────────────────────────────────────

  /**
   * Checks a user API key presented to your backend: the key (with its `user_id`), or null when
   * it is not valid (not found or mistyped, a team key, revoked, or expired: revoked is checked
   * first). With `{ or: 'throw' }` the reason is thrown instead.
   *
   * @example
   * const key = await server.checkUserApiKey(req.headers['x-api-key']);
   * if (!key) return res.status(401).end();
   * const user = await server.getUserById(key.user_id);
   */
  checkUserApiKey(apiKey: string, options: { or: 'throw' }): Promise<UserApiKey>;
  checkUserApiKey(apiKey: string, options?: ApiKeyCheckOptions): Promise<UserApiKey | null>;
  async checkUserApiKey(apiKey: string, options: ApiKeyCheckOptions = {}): Promise<UserApiKey | null> {
    return this.#checkApiKey(this.call((context) => this.trpc.userTeamApiKeys.checkUserKey.mutate({ api_key: apiKey }, { context })), options);
  }

  /**
   * Checks a team API key presented to your backend: the key (with its `team_id`), or null when
   * it is not valid (not found or mistyped, a user key, revoked, or expired: revoked is checked
   * first). With `{ or: 'throw' }` the reason is thrown instead: KnownErrors.ApiKeyRevoked
   * (`details.reason` `manually-revoked`), ApiKeyExpired (`expired`), ApiKeyNotFound, WrongApiKeyType.
   *
   * @example
   * const key = await server.checkTeamApiKey(bearerToken);
   * if (!key) return res.status(401).end();
   * try { await server.checkTeamApiKey(bearerToken, { or: 'throw' }); }
   * catch (e) { if (e instanceof KnownErrors.ApiKeyRevoked) console.log(e.details.reason); } // 'manually-revoked'
   */
  checkTeamApiKey(apiKey: string, options: { or: 'throw' }): Promise<TeamApiKey>;
  checkTeamApiKey(apiKey: string, options?: ApiKeyCheckOptions): Promise<TeamApiKey | null>;
  async checkTeamApiKey(apiKey: string, options: ApiKeyCheckOptions = {}): Promise<TeamApiKey | null> {
    return this.#checkApiKey(this.call((context) => this.trpc.userTeamApiKeys.checkTeamKey.mutate({ api_key: apiKey }, { context })), options);
  }

  async #checkApiKey<T>(check: Promise<T>, options: ApiKeyCheckOptions): Promise<T | null> {
    try {
      return await check;
    } catch (error) {
      // "ApiKeyNotValid: the check call returns null" (spec section 8).
      if (options.or !== 'throw' && isKnownErrorInGroup(error, 'ApiKeyNotValid')) return null;
      throw error;
    }
  }
}
