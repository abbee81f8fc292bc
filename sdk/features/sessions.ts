/** Sessions: signing out, a user's sessions and ending them (all levels); creating one (server). */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore, isSignedOutError, type SignInResult } from '../core.js';
import { isKnownErrorInGroup } from '../errors.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

/** One of a user's sessions. */
export type UserSession = RouterOutputs['sessions']['list']['items'][number];
export type SessionCreateInput = RouterInputs['sessions']['create'];
/** The tokens of a session created by the server (impersonation, your own sign-in flows). */
export type SessionTokens = RouterOutputs['sessions']['create'];
/** A single-use code that opens an impersonation session (`/handler/impersonate?code=…`). */
export type ImpersonationCode = RouterOutputs['auth']['impersonationCreateCode'];

/** Sign-out and the sessions of a user. */
export abstract class SessionsFeature extends AppCore {
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

  /**
   * Signs in with an impersonation code (what the UI kit's /handler/impersonate page does with
   * its `code`): a session of the code's user marked `is_impersonation`, for 1 hour by default.
   * The code works once, within 60 seconds.
   *
   * @example
   * await app.signInWithImpersonationCode(new URL(location.href).searchParams.get('code')!);
   */
  async signInWithImpersonationCode(code: string): Promise<SignInResult> {
    return this.startSession(this.call((context) => this.trpc.auth.impersonationSignIn.mutate({ code }, { context }), { access: 'client' }));
  }

  /**
   * A user's active sessions as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.sessionsQuery(), (state) => console.log(state.data));
   */
  sessionsQuery(options: { userId?: string } = {}): LatchQuery<UserSession[]> {
    return this.userListQuery(options.userId, 'sessions.list', (input, context) => this.trpc.sessions.list.query(input, { context }));
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
    await this.mutate(['sessions.'], (context) => this.trpc.sessions.revoke.mutate({ id: sessionId, user_id: options.userId ?? 'me' }, { context }), {
      session: this.sessionFor(options.userId),
    });
  }
}

/** Sessions made by server code. */
export abstract class ServerSessionsFeature extends AppCore {
  /**
   * Creates a session for a user and returns its tokens (default lifetime 1 year); for
   * impersonation, set `is_impersonation`.
   *
   * @example
   * const { access_token, refresh_token } = await server.createSession({ user_id: user.id, is_impersonation: true });
   */
  async createSession(input: SessionCreateInput): Promise<SessionTokens> {
    return this.mutate(['sessions.'], (context) => this.trpc.sessions.create.mutate(input, { context }));
  }

  /**
   * A single-use code (valid 60 seconds) that opens an impersonation session of a user: open
   * `${yourApp}/handler/impersonate?code=…` in a new tab and the UI kit signs in as that user
   * there, with a banner to end it. No token is shown to anyone.
   *
   * @example
   * const { code } = await admin.createImpersonationCode(user.id);
   * window.open(`https://app.example.com/handler/impersonate?code=${encodeURIComponent(code)}`, '_blank');
   */
  async createImpersonationCode(userId: string, options: { sessionExpiresInMillis?: number } = {}): Promise<ImpersonationCode> {
    const input = { user_id: userId, ...(options.sessionExpiresInMillis === undefined ? {} : { session_expires_in_millis: options.sessionExpiresInMillis }) };
    return this.call((context) => this.trpc.auth.impersonationCreateCode.mutate(input, { context }));
  }
}
