/**
 * `ServerApp`: code you trust (your backend) with the project's secret server key. It can do
 * everything a `ClientApp` can (with server views of users), and manage any user of the project.
 * Never ship the secret server key to a browser.
 */
import type { LatchQuery } from './cache.js';
import { defineQuery } from './cache.js';
import { type ClientAppOptions, ClientApp, type ServerUser, envVar } from './client-app.js';
import { KnownErrors } from './errors.js';
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
export class ServerApp extends ClientApp<ServerUser> {
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
    this.invalidate(['users.']);
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
    this.invalidate(['users.', 'sessions.']);
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
}
