import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_SETTINGS } from '../../env.js';
import { type Harness, type ProjectFixture, startHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus } from '../../test/team-fixtures.js';
import { codeMailedTo } from '../../test/outbox.js';

/**
 * The two switches of magic-link / one-time-code sign-in do what they say (issue 16): the
 * project's magic_link_enabled (the console's "Magic link and email code" switch) and the user's
 * otp_auth_enabled (auth/magic-link.ts).
 */

const CALLBACK = 'http://localhost:3000/handler/magic-link-callback';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ email: { ...DEFAULT_EMAIL_SETTINGS, pollIntervalMs: 25 } });
}, 60_000);
afterAll(async () => h?.close());

const magicLinkCode = (project: ProjectFixture, email: string) =>
  codeMailedTo(h, project, email, () => h.post('/auth/otp/send-sign-in-code', { email, callback_url: CALLBACK }, project.client()));
const otpSignIn = async (project: ProjectFixture, email: string) =>
  h.post('/auth/otp/sign-in', { code: await magicLinkCode(project, email) }, project.client());

describe('magic-link sign-in switches', () => {
  it('the project switch: off, both sending and signing in answer MAGIC_LINK_AUTHENTICATION_NOT_ENABLED', async () => {
    const project = await h.createProject({ config: { magic_link_enabled: true } });
    const email = h.uniqueEmail('switch');
    const code = await magicLinkCode(project, email);
    expectStatus(await h.patch('/internal/projects/current', { config: { magic_link_enabled: false } }, project.admin()), 200);
    expectKnownError(await h.post('/auth/otp/sign-in', { code }, project.client()), 400, 'MAGIC_LINK_AUTHENTICATION_NOT_ENABLED');
    expectKnownError(
      await h.post('/auth/otp/send-sign-in-code', { email, callback_url: CALLBACK }, project.client()),
      400,
      'MAGIC_LINK_AUTHENTICATION_NOT_ENABLED',
    );
    expectStatus(await h.patch('/internal/projects/current', { config: { magic_link_enabled: true } }, project.admin()), 200);
    // The code was not used up by the refusal.
    expectStatus(await h.post('/auth/otp/sign-in', { code }, project.client()), 200);
  });

  it("the user's otp_auth_enabled: once they hold the address, turning it off refuses magic-link sign-in, and on again allows it", async () => {
    const project = await h.createProject({ config: { magic_link_enabled: true } });
    const email = h.uniqueEmail('holder');
    const signedUp = await otpSignIn(project, email);
    expectStatus(signedUp, 200);
    const headers = project.client(signedUp.body.access_token);
    expect((await h.get('/users/me', headers)).body.otp_auth_enabled).toBe(true);

    expectStatus(await h.patch('/users/me', { otp_auth_enabled: false }, headers), 200);
    const refused = await otpSignIn(project, email);
    expectKnownError(refused, 400, 'OTP_AUTHENTICATION_NOT_ENABLED_FOR_USER');
    expect((await h.get(`/auth/sessions?user_id=${signedUp.body.user_id}`, project.server())).body.items).toHaveLength(1);

    expectStatus(await h.patch('/users/me', { otp_auth_enabled: true }, headers), 200);
    const again = await otpSignIn(project, email);
    expectStatus(again, 200);
    expect(again.body.user_id).toBe(signedUp.body.user_id);
  });

  it("an unproven claimant's otp_auth_enabled false does not lock the address's owner out; the owner's sign-in turns it on", async () => {
    const project = await h.createProject({ config: { magic_link_enabled: true } });
    const email = h.uniqueEmail('claimed');
    const claimant = await h.signUpUser(project, { email });
    const claimantHeaders = project.client(claimant.accessToken);
    // A new account with a sign-in email has the way on; the claimant turns it off.
    expect((await h.get('/users/me', claimantHeaders)).body.otp_auth_enabled).toBe(true);
    expectStatus(await h.patch('/users/me', { otp_auth_enabled: false }, claimantHeaders), 200);
    const owner = await otpSignIn(project, email);
    expectStatus(owner, 200);
    expect(owner.body.user_id).toBe(claimant.userId);
    expect((await h.get('/users/me', project.client(owner.body.access_token))).body.otp_auth_enabled).toBe(true);
  });

  it('the server may create a user with it off: a verified address then cannot sign in by magic link', async () => {
    const project = await h.createProject({ config: { magic_link_enabled: true } });
    const email = h.uniqueEmail('server-off');
    const created = await h.post('/users', { primary_email: email, primary_email_verified: true, otp_auth_enabled: false }, project.server());
    expectStatus(created, 201);
    expectKnownError(await otpSignIn(project, email), 400, 'OTP_AUTHENTICATION_NOT_ENABLED_FOR_USER');
    const defaulted = await h.post('/users', { primary_email: h.uniqueEmail('server-default'), primary_email_verified: true }, project.server());
    expect(defaulted.body.otp_auth_enabled).toBe(true);
  });
});
