import { describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_SETTINGS } from '../../env.js';
import { type ProjectFixture, useHarness } from '../../test/harness.js';
import { attachUnprovenEmail, expectKnownError, expectStatus, newUser } from '../../test/team-fixtures.js';
import { NOT_DELIVERED_REASON } from '../emails/delivery.js';

/**
 * Contact channels through real HTTP, on a deployment with no SMTP server at all: every email
 * stays in the outbox as not-delivered, and the test reads it the way a developer would, from the
 * console's inbox (GET /internal/emails).
 */

const h = useHarness({ email: { ...DEFAULT_EMAIL_SETTINGS, pollIntervalMs: 25 } });

const PASSWORD = 'correct-horse-battery';
const CALLBACK = 'http://localhost:3000/handler/email-verification';

interface Channel {
  id: string;
  user_id: string;
  type: 'email';
  value: string;
  is_primary: boolean;
  is_verified: boolean;
  used_for_auth: boolean;
}

async function signUp(project: ProjectFixture, email = h.uniqueEmail()) {
  const res = await h.post('/auth/password/sign-up', { email, password: PASSWORD }, project.client());
  expectStatus(res, 200);
  const headers = project.client(res.body.access_token);
  return { email, id: res.body.user_id as string, headers };
}

async function channelsOf(project: ProjectFixture, userId: string): Promise<Channel[]> {
  const res = await h.get(`/contact-channels?user_id=${userId}`, project.server());
  expectStatus(res, 200);
  return res.body.items;
}

/** The user's denormalised copy of the primary channel. */
async function primaryOf(project: ProjectFixture, userId: string) {
  const user = await h.get(`/users/${userId}`, project.server());
  return { primary_email: user.body.primary_email, primary_email_verified: user.body.primary_email_verified, auth_with_email: user.body.auth_with_email };
}

/** The newest email to `to`, read from the console's inbox once the worker has dealt with it; and the code of its link. */
async function inboxEmailTo(project: ProjectFixture, to: string) {
  for (let i = 0; i < 200; i++) {
    const list = await h.get('/internal/emails', project.admin());
    const item = list.body.items.find((e: { to: string; state: string }) => e.to === to && e.state !== 'pending');
    if (item) {
      const detail = await h.get(`/internal/emails/${item.id}`, project.admin());
      const link = /https?:\/\/\S+/.exec(detail.body.text)?.[0];
      return { ...detail.body, code: link ? new URL(link).searchParams.get('code') : null };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no email to ${to} in the inbox`);
}

describe('contact channel CRUD', () => {
  it('lists the sign-up email as the primary auth channel, and adds, promotes and removes channels keeping the user in step', async () => {
    const project = await h.createProject();
    const user = await signUp(project);
    const initial = (await h.get('/contact-channels', user.headers)).body.items as Channel[];
    expect(initial).toEqual([
      { id: expect.any(String), user_id: user.id, type: 'email', value: user.email, is_primary: true, is_verified: false, used_for_auth: true },
    ]);

    // A client adds a second address to itself: unverified, not primary, and not a sign-in address
    // (an unproven address never is: asking for one is EMAIL_NOT_VERIFIED).
    const second = h.uniqueEmail('second');
    const created = await attachUnprovenEmail(h, user.headers, second);
    expect(created.body).toMatchObject({ user_id: user.id, value: second, is_primary: false, is_verified: false, used_for_auth: false });
    expect((await h.get(`/contact-channels/me/${created.body.id}`, user.headers)).body).toEqual(created.body);
    expectKnownError(await h.patch(`/contact-channels/me/${created.body.id}`, { used_for_auth: true }, user.headers), 400, 'EMAIL_NOT_VERIFIED');
    // Once the address is proven (here the server vouches for it), the client may sign in with it.
    expect((await h.patch(`/contact-channels/${user.id}/${created.body.id}`, { is_verified: true }, project.server())).body.is_verified).toBe(true);
    expect((await h.patch(`/contact-channels/me/${created.body.id}`, { used_for_auth: true }, user.headers)).body).toMatchObject({
      used_for_auth: true,
      is_verified: true,
    });
    // Promoting it moves the primary email: exactly one primary, and the user's copy follows.
    const promoted = await h.patch(`/contact-channels/me/${created.body.id}`, { is_primary: true }, user.headers);
    expect(promoted.body.is_primary).toBe(true);
    const after = await channelsOf(project, user.id);
    expect(after.filter((c) => c.is_primary).map((c) => c.value)).toEqual([second]);
    expect(await primaryOf(project, user.id)).toEqual({ primary_email: second, primary_email_verified: true, auth_with_email: true });
    // Both addresses sign in (both are used for auth).
    for (const email of [user.email, second]) expectStatus(await h.post('/auth/password/sign-in', { email, password: PASSWORD }, project.client()), 200);

    // A new value is unverified again: a client may move a sign-in address only by giving up
    // signing in with it until the new one is proven.
    const third = h.uniqueEmail('third');
    expectKnownError(await h.patch(`/contact-channels/me/${created.body.id}`, { value: third }, user.headers), 400, 'EMAIL_NOT_VERIFIED');
    const changed = await h.patch(`/contact-channels/me/${created.body.id}`, { value: third, used_for_auth: false }, user.headers);
    expect(changed.body).toMatchObject({ value: third, is_verified: false, is_primary: true, used_for_auth: false });
    // No longer used for auth: the copy says so, and the address no longer signs in.
    expect(await primaryOf(project, user.id)).toEqual({ primary_email: third, primary_email_verified: false, auth_with_email: false });
    expectKnownError(await h.post('/auth/password/sign-in', { email: third, password: PASSWORD }, project.client()), 400, 'EMAIL_PASSWORD_MISMATCH');

    // Removing the primary leaves the user without one (nothing is promoted behind their back).
    expectStatus(await h.del(`/contact-channels/me/${created.body.id}`, user.headers), 200);
    expect(await primaryOf(project, user.id)).toEqual({ primary_email: null, primary_email_verified: false, auth_with_email: false });
    expect((await channelsOf(project, user.id)).map((c) => c.value)).toEqual([user.email]);
    expectKnownError(await h.del(`/contact-channels/me/${created.body.id}`, user.headers), 404, 'CONTACT_CHANNEL_NOT_FOUND');
  });

  it('refuses an auth address someone else has proven (409), a duplicate of the same user (409), and is_verified from a client', async () => {
    const project = await h.createProject();
    const alice = await signUp(project);
    const bob = await signUp(project);
    await h.patch(`/contact-channels/${alice.id}/${(await channelsOf(project, alice.id))[0]!.id}`, { is_verified: true }, project.server());
    // The same address only as a contact (not for sign-in) is fine.
    const contactOnly = await h.post(
      '/contact-channels',
      { user_id: 'me', type: 'email', value: alice.email.toUpperCase(), used_for_auth: false },
      bob.headers,
    );
    expectStatus(contactOnly, 201);
    // Even proven by Bob too, it cannot become his sign-in address: Alice signs in with it.
    await h.patch(`/contact-channels/${bob.id}/${contactOnly.body.id}`, { is_verified: true }, project.server());
    expectKnownError(
      await h.patch(`/contact-channels/me/${contactOnly.body.id}`, { used_for_auth: true }, bob.headers),
      409,
      'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE',
    );
    const carol = await signUp(project);
    expectKnownError(
      await h.post('/contact-channels', { user_id: carol.id, type: 'email', value: alice.email, used_for_auth: true, is_verified: true }, project.server()),
      409,
      'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE',
    );
    expectKnownError(
      await h.post('/contact-channels', { user_id: 'me', type: 'email', value: bob.email.toUpperCase(), used_for_auth: false }, bob.headers),
      409,
      'CONTACT_CHANNEL_ALREADY_EXISTS',
    );
    const other = await h.post('/contact-channels', { user_id: 'me', type: 'email', value: h.uniqueEmail('other'), used_for_auth: false }, bob.headers);
    expectKnownError(await h.patch(`/contact-channels/me/${other.body.id}`, { value: bob.email }, bob.headers), 409, 'CONTACT_CHANNEL_ALREADY_EXISTS');
    expectKnownError(
      await h.post('/contact-channels', { user_id: 'me', type: 'email', value: h.uniqueEmail(), used_for_auth: false, is_verified: true }, bob.headers),
      400,
      'SCHEMA_ERROR',
    );
    expectKnownError(await h.patch(`/contact-channels/me/${other.body.id}`, { is_verified: true }, bob.headers), 400, 'SCHEMA_ERROR');
    // The server may create it verified and primary.
    const byServer = await h.post(
      '/contact-channels',
      { user_id: bob.id, type: 'email', value: h.uniqueEmail('server'), used_for_auth: false, is_verified: true, is_primary: true },
      project.server(),
    );
    expect(byServer.body).toMatchObject({ is_verified: true, is_primary: true });
    expect(await primaryOf(project, bob.id)).toEqual({ primary_email: byServer.body.value, primary_email_verified: true, auth_with_email: false });
    expect((await channelsOf(project, bob.id)).filter((c) => c.is_primary)).toHaveLength(1);
  });
});

describe('email verification', () => {
  it('emails a verification link for the primary email (kept in the inbox without SMTP); the code verifies it once', async () => {
    const project = await h.createProject();
    const user = await signUp(project);
    expectKnownError(
      await h.post('/contact-channels/send-verification-code', { email: h.uniqueEmail('not-mine'), callback_url: CALLBACK }, user.headers),
      400,
      'EMAIL_NOT_ASSOCIATED_WITH_USER',
    );
    expectKnownError(
      await h.post('/contact-channels/send-verification-code', { email: user.email, callback_url: 'https://evil.example.com/verify' }, user.headers),
      400,
      'REDIRECT_URL_NOT_WHITELISTED',
    );
    expectKnownError(
      await h.post('/contact-channels/send-verification-code', { email: user.email, callback_url: CALLBACK }, project.client()),
      401,
      'USER_AUTHENTICATION_REQUIRED',
    );
    expectStatus(await h.post('/contact-channels/send-verification-code', { email: user.email, callback_url: CALLBACK }, user.headers), 200);

    const mail = await inboxEmailTo(project, user.email);
    expect(mail).toMatchObject({ subject: 'Verify your email', state: 'not-delivered', error: NOT_DELIVERED_REASON, sent_at_millis: null });
    expect(mail.text).toContain(`${CALLBACK}?code=`);
    expectStatus(await h.post('/contact-channels/verify', { code: mail.code }, project.client()), 200);
    expect(await primaryOf(project, user.id)).toMatchObject({ primary_email_verified: true });
    expectKnownError(await h.post('/contact-channels/verify', { code: mail.code }, project.client()), 409, 'ALREADY_USED');
    expectKnownError(await h.post('/contact-channels/verify', { code: 'not-a-code' }, project.client()), 404, 'CODE_NOT_FOUND');
    expectKnownError(
      await h.post('/contact-channels/send-verification-code', { email: user.email, callback_url: CALLBACK }, user.headers),
      409,
      'EMAIL_ALREADY_VERIFIED',
    );
  });

  it("refuses a verification email for an address that is not the user's, or not the primary one, and for a user with no primary email", async () => {
    const project = await h.createProject();
    // Another user's address is not associated with this user, even though it exists in the project.
    const other = await signUp(project);
    const user = await newUser(h, project, { primary_email: null });
    expectKnownError(
      await h.post('/contact-channels/send-verification-code', { email: other.email, callback_url: CALLBACK }, user.client),
      400,
      'EMAIL_NOT_ASSOCIATED_WITH_USER',
    );
    // A secondary address of the user's own, while the user has no primary email at all.
    const secondary = h.uniqueEmail('secondary');
    expectStatus(await h.post('/contact-channels', { user_id: 'me', type: 'email', value: secondary, used_for_auth: false }, user.client), 201);
    expect((await primaryOf(project, user.id)).primary_email).toBeNull();
    const refused = await h.post('/contact-channels/send-verification-code', { email: secondary.toUpperCase(), callback_url: CALLBACK }, user.client);
    expectKnownError(refused, 400, 'EMAIL_IS_NOT_PRIMARY_EMAIL');
    expect(refused.body.details).toEqual({ email: secondary.toUpperCase(), primary_email: '(none)' });

    // Once it is the primary email, the same call sends the link (the address matches case-insensitively).
    const channel = (await channelsOf(project, user.id)).find((c) => c.value === secondary)!;
    expectStatus(await h.patch(`/contact-channels/me/${channel.id}`, { is_primary: true }, user.client), 200);
    expectStatus(await h.post('/contact-channels/send-verification-code', { email: secondary.toUpperCase(), callback_url: CALLBACK }, user.client), 200);
    expect((await inboxEmailTo(project, secondary)).code).toBeTruthy();
    // Nothing was queued for the refused calls: the inbox holds only the one link.
    const list = await h.get('/internal/emails', project.admin());
    expect(list.body.items.filter((e: { to: string }) => e.to === secondary || e.to === other.email)).toHaveLength(1);
  });

  it('verifies one channel by id (a secondary one leaves the primary as it was); a changed address voids the link', async () => {
    const project = await h.createProject();
    const user = await signUp(project);
    const secondary = await h.post(
      '/contact-channels',
      { user_id: user.id, type: 'email', value: h.uniqueEmail('secondary'), used_for_auth: false },
      project.server(),
    );
    expectStatus(await h.post(`/contact-channels/${user.id}/${secondary.body.id}/send-verification-code`, { callback_url: CALLBACK }, project.server()), 200);
    const mail = await inboxEmailTo(project, secondary.body.value);
    expectStatus(await h.post('/contact-channels/verify', { code: mail.code }, project.client()), 200);
    expect((await h.get(`/contact-channels/${user.id}/${secondary.body.id}`, project.server())).body.is_verified).toBe(true);
    expect((await primaryOf(project, user.id)).primary_email_verified).toBe(false);
    expectKnownError(
      await h.post(`/contact-channels/me/${secondary.body.id}/send-verification-code`, { callback_url: CALLBACK }, user.headers),
      409,
      'EMAIL_ALREADY_VERIFIED',
    );

    // The primary: the link is sent, then the address changes before it is opened.
    const primary = (await channelsOf(project, user.id)).find((c) => c.is_primary)!;
    expectStatus(await h.post(`/contact-channels/me/${primary.id}/send-verification-code`, { callback_url: CALLBACK }, user.headers), 200);
    const stale = await inboxEmailTo(project, user.email);
    expectStatus(await h.patch(`/contact-channels/me/${primary.id}`, { value: h.uniqueEmail('moved'), used_for_auth: false }, user.headers), 200);
    expectKnownError(await h.post('/contact-channels/verify', { code: stale.code }, project.client()), 404, 'CODE_NOT_FOUND');
    expect((await primaryOf(project, user.id)).primary_email_verified).toBe(false);
  });
});

describe('tenant isolation', () => {
  it("keeps one user's channels from another user, another project, and another project's codes", async () => {
    const a = await h.createProject();
    const b = await h.createProject();
    const u1 = await signUp(a);
    const u2 = await signUp(a);
    const channel = (await channelsOf(a, u1.id))[0]!;
    const before = await channelsOf(a, u1.id);

    // U2 (a client of A) against U1.
    expectKnownError(await h.get(`/contact-channels?user_id=${u1.id}`, u2.headers), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.get(`/contact-channels/${u1.id}/${channel.id}`, u2.headers), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.patch(`/contact-channels/${u1.id}/${channel.id}`, { value: h.uniqueEmail('pwned') }, u2.headers), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.del(`/contact-channels/${u1.id}/${channel.id}`, u2.headers), 404, 'USER_NOT_FOUND');
    expectKnownError(
      await h.post(`/contact-channels/${u1.id}/${channel.id}/send-verification-code`, { callback_url: CALLBACK }, u2.headers),
      404,
      'USER_NOT_FOUND',
    );
    expectKnownError(
      await h.post('/contact-channels', { user_id: u1.id, type: 'email', value: h.uniqueEmail(), used_for_auth: false }, u2.headers),
      404,
      'USER_NOT_FOUND',
    );
    // U1's channel id under U2's own user is not found.
    expectKnownError(await h.get(`/contact-channels/me/${channel.id}`, u2.headers), 404, 'CONTACT_CHANNEL_NOT_FOUND');
    expectKnownError(await h.patch(`/contact-channels/me/${channel.id}`, { is_primary: false }, u2.headers), 404, 'CONTACT_CHANNEL_NOT_FOUND');

    // Project B's server key, on B, naming A's user and channel.
    expectKnownError(await h.get(`/contact-channels?user_id=${u1.id}`, b.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.patch(`/contact-channels/${u1.id}/${channel.id}`, { is_verified: true }, b.server()), 404, 'USER_NOT_FOUND');
    // Project B's keys presented to A.
    expectKnownError(await h.get(`/contact-channels?user_id=${u1.id}`, { ...b.server(), 'x-latch-project-id': a.id }), 401, 'INVALID_SECRET_SERVER_KEY');

    // A code sent in A does not verify anything from B.
    expectStatus(await h.post('/contact-channels/send-verification-code', { email: u1.email, callback_url: CALLBACK }, u1.headers), 200);
    const mail = await inboxEmailTo(a, u1.email);
    expectKnownError(await h.post('/contact-channels/verify', { code: mail.code }, b.client()), 404, 'CODE_NOT_FOUND');
    // B's admin sees none of A's emails.
    expect((await h.get('/internal/emails', b.admin())).body.items).toEqual([]);
    expect(await channelsOf(a, u1.id)).toEqual(before);
  });
});
