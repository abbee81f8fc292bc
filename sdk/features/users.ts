/**
 * Users: the signed-in user (all levels) and, for server code, any user of the project. A
 * `ServerApp` reads the server view of users from the same methods (the `U` type parameter).
 */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore, HANDLER_PAGES, MEMBERSHIP_DATA, USER_DATA, isSignedOutError } from '../core.js';
import { KnownErrors, UserNotSignedInError } from '../errors.js';
import { type TokenSession, type TokenStoreInit, resolveTokenStore } from '../tokens.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';
import { AnonymousFeature } from './anonymous.js';

/** A user as server code sees it (includes `server_metadata`). */
export type ServerUser = RouterOutputs['users']['create'];
/** A user as the signed-in user sees themselves. */
export type ClientUser = Omit<ServerUser, 'server_metadata' | 'last_active_at_millis'>;
/** What a signed-in user may change on themselves. */
export type ClientUserUpdate = Pick<
  RouterInputs['users']['updateMe'],
  'display_name' | 'client_metadata' | 'selected_team_id' | 'totp_secret_base64' | 'profile_image_url' | 'otp_auth_enabled' | 'passkey_auth_enabled'
>;
export type UserCreateInput = RouterInputs['users']['create'];
/** What server code may change on a user (client fields plus metadata, email, password). */
export type ServerUserUpdate = Omit<RouterInputs['users']['update'], 'user_id'>;
export type UserListQuery = RouterInputs['users']['list'];
/** A page of users: `items` and `pagination.next_cursor` (null on the last page). */
export type UserList = RouterOutputs['users']['list'];

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

/** Redirect wait (spec section 9): how long to wait for the page to leave after a redirect. */
const REDIRECT_WAIT_MS = 2000;

/** The signed-in user (`getUser({ or: 'anonymous' })` signs one up, hence {@link AnonymousFeature}). */
export abstract class CurrentUserFeature<U extends ClientUser = ClientUser> extends AnonymousFeature {
  private async fetchCurrentUser(session: TokenSession): Promise<U | null> {
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
   * {@link AppCore.subscribe}.
   *
   * @example
   * const stop = app.subscribe(() => app.currentUserQuery(), (state) => console.log(state.data));
   */
  currentUserQuery(): LatchQuery<U | null> {
    return defineQuery(this.sessionKey('users.getMe'), () => this.fetchCurrentUser(this.session));
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
    const read = () => (session === this.session ? this.queryClient.fetchQuery(this.currentUserQuery()) : this.fetchCurrentUser(session));
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
    const url = this.options.urls?.signIn ?? HANDLER_PAGES.signIn;
    const redirect = this.options.redirectMethod ?? (typeof window === 'undefined' ? null : (to: string) => window.location.assign(to));
    if (!redirect)
      throw new Error(
        "Cannot redirect outside a browser: pass the redirectMethod option to the Latch app (your framework's redirect), or use getUser({ or: 'throw' }).",
      );
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
}

/** Any user of the project, for server code. */
export abstract class ServerUsersFeature extends AppCore {
  /**
   * A user as a cached query (data null when there is no such user).
   *
   * @example
   * server.subscribe(() => server.userQuery(id), (state) => console.log(state.data));
   */
  userQuery(userId: string): LatchQuery<ServerUser | null> {
    const input = { user_id: userId };
    return this.findQuery(false, 'users.get', input, (context) => this.trpc.users.get.query(input, { context }) as Promise<ServerUser>, [
      KnownErrors.UserNotFound,
    ]);
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
    return this.mutate(['users.'], (context) => this.trpc.users.create.mutate(input, { context }));
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
    await this.mutate([...MEMBERSHIP_DATA, 'sessions.'], (context) => this.trpc.users.delete.mutate({ user_id: userId }, { context }));
  }
}
