import { expect } from 'vitest';
import type { Harness, ProjectFixture, UserSession } from './harness.js';

/** A session as GET /auth/sessions lists it, reduced to what the client-IP tests read. */
export interface ListedSession {
  created_at: number;
  last_used_at_end_user_ip_info: { ip: string } | null;
}

/**
 * Signs the user in with this X-Forwarded-For (the sign-in must succeed) and lists the user's
 * sessions, for the tests of which client IP the server records (env.test.ts, client-ip.test.ts).
 */
export async function sessionsAfterForwardedSignIn(h: Harness, project: ProjectFixture, user: UserSession, forwardedFor: string): Promise<ListedSession[]> {
  const signedIn = await h.post(
    '/auth/password/sign-in',
    { email: user.email, password: user.password },
    { ...project.client(), 'x-forwarded-for': forwardedFor },
  );
  expect(signedIn.status).toBe(200);
  const sessions = await h.get(`/auth/sessions?user_id=${user.userId}`, project.server());
  return sessions.body.items as ListedSession[];
}
