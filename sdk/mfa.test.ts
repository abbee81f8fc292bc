import { beforeAll, describe, expect, it } from 'vitest';
import { totpClock, totpCode } from '../server/crypto/totp.js';
import { type ProjectFixture, useHarness } from '../server/test/harness.js';
import { AdminApp } from './admin-app.js';
import { ClientApp } from './client-app.js';
import { KnownErrors } from './errors.js';
import { base32ToBase64 } from './test/totp-secret.js';

/**
 * The SDK's MFA feature against a real server: enrolment, the attempt-code flow of
 * signInWithMfa (InvalidTotpCode as a result error, the session stored on success), recovery
 * codes, and an admin app's reset. The TOTP clock is fixed (the server runs in this process).
 */

const h = useHarness();
let project: ProjectFixture;
let now = 30_000 * 63_333_600;
totpClock.now = () => now;
beforeAll(async () => {
  project = await h.createProject();
});

const clientApp = () => new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: h.url, tokenStore: 'memory' });

describe('MfaFeature', () => {
  it('enrols, then turns a MultiFactorAuthenticationRequired sign-in into a session with a TOTP or recovery code', async () => {
    const app = clientApp();
    const email = h.uniqueEmail('mfa-sdk');
    expect((await app.signUpWithPassword({ email, password: 'correct-horse-1' })).status).toBe('ok');

    const started = await app.startTotpEnrollment();
    if (started.status !== 'ok') throw started.error;
    expect(started.data.otpauthUri).toContain(started.data.secretBase32);
    const secret = base32ToBase64(started.data.secretBase32);
    const wrong = await app.confirmTotpEnrollment('000000');
    expect(wrong.status === 'error' && wrong.error).toBeInstanceOf(KnownErrors.InvalidTotpCode);
    const confirmed = await app.confirmTotpEnrollment(await totpCode(secret));
    if (confirmed.status !== 'ok') throw confirmed.error;
    expect(confirmed.data.recoveryCodes).toHaveLength(10);
    expect((await app.getUser({ or: 'throw' })).requires_totp_mfa).toBe(true);
    expect(await app.getMfaStatus()).toMatchObject({ requires_totp_mfa: true, recovery_codes_remaining: 10 });
    now += 30_000;

    // The password is the first step only: the SDK throws the catalogued error with the attempt code.
    const fresh = clientApp();
    const first = await fresh.signInWithPassword({ email, password: 'correct-horse-1' }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(KnownErrors.MultiFactorAuthenticationRequired);
    const attemptCode = (first as InstanceType<typeof KnownErrors.MultiFactorAuthenticationRequired>).details.attempt_code;
    expect(await fresh.getUser()).toBeNull();

    const invalid = await fresh.signInWithMfa({ attemptCode, totp: '000000' });
    expect(invalid.status).toBe('error');
    if (invalid.status === 'error') {
      expect(invalid.error).toBeInstanceOf(KnownErrors.InvalidTotpCode);
      expect(invalid.error.message).toBe('The TOTP code is invalid. Please try again.');
    }
    const ok = await fresh.signInWithMfa({ attemptCode, totp: await totpCode(secret) });
    expect(ok).toEqual({ status: 'ok', data: { user_id: expect.any(String), is_new_user: false } });
    expect((await fresh.getUser())?.primary_email).toBe(email);
    const reused = await fresh.signInWithMfa({ attemptCode, totp: await totpCode(secret) });
    expect(reused.status === 'error' && reused.error).toBeInstanceOf(KnownErrors.VerificationCodeAlreadyUsed);

    // A recovery code instead.
    const third = clientApp();
    const again = (await third.signInWithPassword({ email, password: 'correct-horse-1' }).catch((error: unknown) => error)) as InstanceType<
      typeof KnownErrors.MultiFactorAuthenticationRequired
    >;
    expect((await third.signInWithMfa({ attemptCode: again.details.attempt_code, recoveryCode: confirmed.data.recoveryCodes[0]! })).status).toBe('ok');
    expect((await third.getMfaStatus()).recovery_codes_remaining).toBe(9);

    // The project owner's reset, through an admin app.
    const admin = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl: h.url });
    const userId = ok.status === 'ok' ? ok.data.user_id : '';
    expect(await admin.disableTotp({ userId })).toEqual({ status: 'ok', data: undefined });
    expect((await admin.getMfaStatus({ userId })).requires_totp_mfa).toBe(false);
    expect((await clientApp().signInWithPassword({ email, password: 'correct-horse-1' })).status).toBe('ok');
  });
});
