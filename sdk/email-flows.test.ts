import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useMailHarness } from '../server/test/mail-harness.js';
import { type ReceivedEmail, SMTP_PASSWORD, SMTP_USER } from '../server/test/smtp-sink.js';
import { AdminApp } from './admin-app.js';
import { ClientApp } from './client-app.js';
import { KnownErrors, type Result } from './errors.js';
import { ServerApp } from './server-app.js';
import { sessionClientApp } from './test/apps.js';

/**
 * The email and code flows through the SDK (issue 5): password reset, magic link / one-time code,
 * email verification and contact channels, and the admin's view of sent emails. The server sends
 * over real SMTP to a local sink (smtp-server), and the test reads the code from what arrived.
 */

const { h, shared: sink, own } = useMailHarness({ perProjectPerHour: 100 });
const PASSWORD = 'correct-horse-battery';

const page = (route: string) => `http://localhost:3000/handler/${route}`;

async function newProject(config?: Record<string, unknown>) {
  const project = await h.createProject(config ? { config } : {});
  const baseUrl = h.url;
  const admin = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl });
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl });
  const clientApp = (urls?: ConstructorParameters<typeof ClientApp>[0] extends infer O ? (O extends { urls?: infer U } ? U : never) : never) =>
    new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl, tokenStore: 'memory', urls });
  /** A user made by the server, signed in with a server-made session (no password hashing: fast). */
  const signedIn = async () => {
    const user = await server.createUser({ primary_email: h.uniqueEmail('member'), primary_email_auth_enabled: true });
    const tokens = await server.createSession({ user_id: user.id });
    const app = sessionClientApp(project, baseUrl, tokens);
    return { user, app };
  };
  return { project, admin, server, clientApp, signedIn };
}

function ok<T, E extends Error>(result: Result<T, E>): T {
  if (result.status !== 'ok') throw result.error;
  return result.data;
}

function errorOf<T, E extends Error>(result: Result<T, E>): E {
  if (result.status !== 'error') throw new Error(`expected an error result, got ${JSON.stringify(result)}`);
  return result.error;
}

const isTo = (address: string) => (mail: ReceivedEmail) => mail.to.some((to) => to.toLowerCase() === address.toLowerCase());

describe('password reset', () => {
  it('forgot password → emailed code → check it → reset: the old session is gone and only the new password works', async () => {
    const { clientApp } = await newProject();
    const email = h.uniqueEmail('ann');
    const ann = clientApp();
    ok(await ann.signUpWithPassword({ email, password: PASSWORD }));
    expect((await ann.getUser({ or: 'throw' })).primary_email).toBe(email);

    // Someone (signed out) asks for a reset link; an unknown address gets the same answer, an untrusted page an error.
    const forgetful = clientApp();
    expect(await forgetful.sendForgotPasswordEmail(email, { callbackUrl: page('password-reset') })).toEqual({ status: 'ok', data: undefined });
    expect(await forgetful.sendForgotPasswordEmail(h.uniqueEmail('nobody'), { callbackUrl: page('password-reset') })).toEqual({
      status: 'ok',
      data: undefined,
    });
    expect(errorOf(await forgetful.sendForgotPasswordEmail(email, { callbackUrl: 'https://evil.example/handler/password-reset' }))).toBeInstanceOf(
      KnownErrors.RedirectUrlNotWhitelisted,
    );

    const mail = await sink.waitForTo(email);
    expect(mail.link?.startsWith(`${page('password-reset')}?code=`)).toBe(true);
    const code = mail.code!;

    expect(await forgetful.verifyPasswordResetCode(code)).toEqual({ status: 'ok', data: undefined });
    expect(errorOf(await forgetful.resetPassword({ code, password: 'short' }))).toBeInstanceOf(KnownErrors.PasswordTooShort);
    const newPassword = 'a-brand-new-password';
    expect(await forgetful.resetPassword({ code, password: newPassword })).toEqual({ status: 'ok', data: undefined });
    expect(errorOf(await forgetful.resetPassword({ code, password: newPassword }))).toBeInstanceOf(KnownErrors.VerificationCodeAlreadyUsed);
    expect(errorOf(await forgetful.verifyPasswordResetCode(code))).toBeInstanceOf(KnownErrors.VerificationCodeAlreadyUsed);

    // Ann's old session was revoked: her refresh fails, the SDK clears the tokens, she reads as signed out.
    ann.queryClient.clear();
    expect(await ann.getUser()).toBeNull();
    expect(await ann.getAuthTokens()).toEqual({ accessToken: null, refreshToken: null });

    expect(errorOf(await clientApp().signInWithPassword({ email, password: PASSWORD }))).toBeInstanceOf(KnownErrors.EmailPasswordMismatch);
    const again = clientApp();
    ok(await again.signInWithPassword({ email, password: newPassword }));
    // The reset link proved the mailbox: the address is verified now.
    expect((await again.getUser({ or: 'throw' })).primary_email_verified).toBe(true);
  });

  it('without a callbackUrl, the default page must be absolute outside a browser', async () => {
    const { clientApp } = await newProject();
    await expect(clientApp().sendForgotPasswordEmail(h.uniqueEmail())).rejects.toThrow(/sendForgotPasswordEmail needs a callbackUrl outside a browser/);
    const withPages = clientApp({ passwordReset: page('password-reset') });
    expect(await withPages.sendForgotPasswordEmail(h.uniqueEmail())).toEqual({ status: 'ok', data: undefined });
  });
});

describe('magic link / one-time code', () => {
  it('a new address signs up with the typed code (is_new_user), then signs in again with the link', async () => {
    const { admin, clientApp } = await newProject();
    const email = h.uniqueEmail('magic');
    const first = clientApp({ magicLinkCallback: page('magic-link-callback') });
    await expect(first.sendMagicLinkEmail(email)).rejects.toBeInstanceOf(KnownErrors.MagicLinkAuthenticationNotEnabled);
    await admin.updateProject({ config: { magic_link_enabled: true } });

    // 1. The typed 6-character code, with the nonce this browser kept.
    const { nonce } = ok(await first.sendMagicLinkEmail(email));
    const mail = await sink.waitFor((m) => isTo(email)(m) && m.code?.endsWith(nonce) === true);
    expect(mail.link?.startsWith(`${page('magic-link-callback')}?code=`)).toBe(true);
    const otp = mail.code!.slice(0, -nonce.length);
    expect(otp).toMatch(/^[A-Z0-9]{6}$/);
    expect(mail.text).toContain(otp);
    const signedUp = ok(await first.signInWithMagicLink(otp, { nonce }));
    expect(signedUp.is_new_user).toBe(true);
    const user = await first.getUser({ or: 'throw' });
    expect({ id: user.id, email: user.primary_email, verified: user.primary_email_verified }).toEqual({ id: signedUp.user_id, email, verified: true });
    expect(errorOf(await clientApp().signInWithMagicLink(otp, { nonce }))).toBeInstanceOf(KnownErrors.VerificationCodeAlreadyUsed);

    // 2. The link (its code) in another browser: the same user, not new.
    const second = clientApp();
    const sent = ok(await second.sendMagicLinkEmail(email, { callbackUrl: page('magic-link-callback') }));
    const link = await sink.waitFor((m) => isTo(email)(m) && m.code?.endsWith(sent.nonce) === true);
    expect(ok(await second.signInWithMagicLink(link.code!))).toEqual({ user_id: user.id, is_new_user: false });
    expect((await second.getUser({ or: 'throw' })).id).toBe(user.id);

    // An untrusted page, or a new address while sign-up is off, is a result error.
    expect(errorOf(await second.sendMagicLinkEmail(email, { callbackUrl: 'https://evil.example/cb' }))).toBeInstanceOf(KnownErrors.RedirectUrlNotWhitelisted);
    await admin.updateProject({ config: { sign_up_enabled: false } });
    expect(errorOf(await second.sendMagicLinkEmail(h.uniqueEmail('new'), { callbackUrl: page('magic-link-callback') }))).toBeInstanceOf(
      KnownErrors.SignUpNotEnabled,
    );
  });
});

describe('email verification and contact channels', () => {
  it('verifies the primary email, adds, verifies, promotes and removes a channel (client), and manages any user’s channels (server)', async () => {
    const { server, clientApp, signedIn } = await newProject();
    const { user, app } = await signedIn();
    expect(user.primary_email_verified).toBe(false);
    const [primary] = await app.listContactChannels();
    expect(primary).toEqual({
      id: expect.any(String),
      user_id: user.id,
      type: 'email',
      value: user.primary_email,
      is_primary: true,
      is_verified: false,
      used_for_auth: true,
    });

    // The primary email: a verification link, opened in another (signed-out) browser.
    ok(await app.sendVerificationEmail({ callbackUrl: page('email-verification') }));
    const verification = await sink.waitForTo(user.primary_email!);
    expect(verification.link?.startsWith(`${page('email-verification')}?code=`)).toBe(true);
    expect(await clientApp().verifyEmail(verification.code!)).toEqual({ status: 'ok', data: undefined });
    app.queryClient.clear(); // verified elsewhere: this app's cache does not know
    expect((await app.getUser({ or: 'throw' })).primary_email_verified).toBe(true);
    expect(errorOf(await app.verifyEmail(verification.code!))).toBeInstanceOf(KnownErrors.VerificationCodeAlreadyUsed);

    // A second address: added unverified, verified by its own link, then made the primary email.
    const workEmail = h.uniqueEmail('work');
    const work = await app.createContactChannel({ type: 'email', value: workEmail, used_for_auth: false });
    expect(work).toMatchObject({ value: workEmail, is_primary: false, is_verified: false, used_for_auth: false });
    expect((await app.listContactChannels()).map((c) => c.value).sort()).toEqual([user.primary_email, workEmail].sort()); // invalidated by the create
    const untrusted = await app.sendContactChannelVerificationEmail(work.id, { callbackUrl: 'https://evil.example/verify' });
    expect(errorOf(untrusted)).toBeInstanceOf(KnownErrors.RedirectUrlNotWhitelisted);
    await expect(app.sendContactChannelVerificationEmail(work.id)).rejects.toThrow(/sendContactChannelVerificationEmail needs a callbackUrl/);
    ok(await app.sendContactChannelVerificationEmail(work.id, { callbackUrl: page('email-verification') }));
    const workMail = await sink.waitForTo(workEmail);
    ok(await app.verifyEmail(workMail.code!));
    expect((await app.listContactChannels()).find((c) => c.id === work.id)?.is_verified).toBe(true); // invalidated by the verify
    await expect(app.sendContactChannelVerificationEmail(work.id, { callbackUrl: page('email-verification') })).rejects.toBeInstanceOf(
      KnownErrors.EmailAlreadyVerified,
    );

    const promoted = await app.updateContactChannel(work.id, { is_primary: true, used_for_auth: true });
    expect(promoted).toMatchObject({ is_primary: true, is_verified: true, used_for_auth: true });
    expect((await app.getUser({ or: 'throw' })).primary_email).toBe(workEmail); // the user was invalidated too
    await app.deleteContactChannel(primary!.id);
    expect((await app.listContactChannels()).map((c) => c.id)).toEqual([work.id]);

    // Server code: any user's channels, verified at once if it says so.
    const other = await server.createUser({ primary_email: h.uniqueEmail('other') });
    const extra = await server.createContactChannel(
      { type: 'email', value: h.uniqueEmail('extra'), used_for_auth: false, is_verified: true },
      { userId: other.id },
    );
    expect(extra).toMatchObject({ user_id: other.id, is_verified: true });
    expect((await server.listContactChannels({ userId: other.id })).length).toBe(2);
    expect(await server.updateContactChannel(extra.id, { used_for_auth: true }, { userId: other.id })).toMatchObject({ used_for_auth: true });
    await server.deleteContactChannel(extra.id, { userId: other.id });
    expect((await server.listContactChannels({ userId: other.id })).map((c) => c.value)).toEqual([other.primary_email]);
    // A client only ever sees its own channels.
    await expect(app.updateContactChannel(extra.id, { used_for_auth: false }, { userId: other.id })).rejects.toThrow();
  });
});

describe('email verification without a primary email', () => {
  it('sendVerificationEmail refuses a user with no primary email before calling the server, and sends once one is set', async () => {
    const { server, project } = await newProject();
    const user = await server.createUser({});
    expect(user.primary_email).toBeNull();
    const tokens = await server.createSession({ user_id: user.id });
    const requests: string[] = [];
    const app = new ClientApp({
      projectId: project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: h.url,
      tokenStore: { accessToken: tokens.access_token, refreshToken: tokens.refresh_token },
      fetch: (input, init) => {
        requests.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      },
    });
    await app.getUser({ or: 'throw' });
    requests.length = 0;
    await expect(app.sendVerificationEmail({ callbackUrl: page('email-verification') })).rejects.toThrow('The signed-in user has no primary email to verify.');
    expect(requests).toEqual([]); // the cached user answered; nothing reached the server

    const address = h.uniqueEmail('later');
    await app.createContactChannel({ type: 'email', value: address, used_for_auth: false, is_primary: true });
    ok(await app.sendVerificationEmail({ callbackUrl: page('email-verification') }));
    expect((await sink.waitForTo(address)).code).toBeTruthy();
  });
});

describe('sent emails (admin)', () => {
  it('lists and reads the project’s emails, sends a sign-in invitation and tries an email server config', async () => {
    const { admin, clientApp } = await newProject();
    const invited = h.uniqueEmail('invited');
    await admin.sendSignInInvitation({ email: invited, callbackUrl: page('sign-in') });
    const invitation = await sink.waitForTo(invited);
    expect(invitation.link).toBe(page('sign-in'));
    await expect(admin.sendSignInInvitation({ email: invited })).rejects.toThrow(/sendSignInInvitation needs a callbackUrl/);

    const forgot = h.uniqueEmail('forgot');
    const client = clientApp();
    ok(await client.signUpWithPassword({ email: forgot, password: PASSWORD }));
    ok(await client.sendForgotPasswordEmail(forgot, { callbackUrl: page('password-reset') }));
    await sink.waitForTo(forgot);

    const page1 = await admin.listSentEmails({ limit: 1 });
    expect(page1.items).toHaveLength(1);
    expect(page1.items[0]).toMatchObject({ to: forgot, subject: expect.any(String) });
    expect(page1.pagination.next_cursor).toEqual(expect.any(String));
    const page2 = await admin.listSentEmails({ cursor: page1.pagination.next_cursor!, limit: 10 });
    expect(page2.items.map((e) => e.to)).toEqual([invited]);
    expect((await admin.listSentEmails()).items.map((e) => e.to)).toEqual([forgot, invited]);

    const detail = await admin.getSentEmail(page1.items[0]!.id);
    expect(detail).toMatchObject({ id: page1.items[0]!.id, to: forgot });
    expect(detail!.text).toContain(`${page('password-reset')}?code=`);
    expect(detail!.html).toContain('<');
    expect(await admin.getSentEmail(randomUUID())).toBeNull();

    const config = {
      type: 'standard' as const,
      host: '127.0.0.1',
      port: own.port,
      username: SMTP_USER,
      password: SMTP_PASSWORD,
      sender_name: 'Acme',
      sender_email: 'support@acme.test',
    };
    const tester = h.uniqueEmail('tester');
    expect(await admin.sendTestEmail({ recipientEmail: tester, emailConfig: config })).toEqual({ success: true, error_message: null });
    expect((await own.waitForTo(tester)).from?.address).toBe('support@acme.test');
    const wrong = await admin.sendTestEmail({ recipientEmail: tester, emailConfig: { ...config, password: 'wrong-password' } });
    expect(wrong.success).toBe(false);
    expect(wrong.error_message).toEqual(expect.any(String));
  });
});
