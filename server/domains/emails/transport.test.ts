import { describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_SETTINGS, loadEnv } from '../../env.js';
import { isPermanentSmtpFailure, sharedTarget, smtpErrorText, smtpFailure, standardTarget } from './transport.js';

const SECRET = 'x'.repeat(48);

describe('LATCH_SMTP_URL and the other email settings', () => {
  it('parses the email settings, with their defaults', () => {
    expect(loadEnv({ LATCH_SECRET: SECRET }).email).toEqual(DEFAULT_EMAIL_SETTINGS);
    expect(
      loadEnv({
        LATCH_SECRET: SECRET,
        LATCH_SMTP_URL: ' smtp://mailer:p%40ss@mail.example.com:2525 ',
        LATCH_EMAIL_FROM: 'hello@example.com',
        LATCH_EMAIL_RATE_LIMIT_PER_HOUR: '0',
        LATCH_EMAIL_POLL_INTERVAL_MS: '250',
      }).email,
    ).toEqual({
      ...DEFAULT_EMAIL_SETTINGS,
      smtpUrl: 'smtp://mailer:p%40ss@mail.example.com:2525',
      from: 'hello@example.com',
      perProjectPerHour: 0,
      pollIntervalMs: 250,
    });
    expect(
      loadEnv({
        LATCH_SECRET: SECRET,
        LATCH_EMAIL_FROM: '"Latch Auth" <noreply@auth.example.com>',
        LATCH_SMTP_ALLOW_PRIVATE: 'true',
        LATCH_SHARED_EMAIL: 'p1, p2',
        LATCH_EMAIL_CLIENT_SHARE_PERCENT: '30',
        LATCH_EMAIL_RATE_LIMIT_PER_IP: '5',
        LATCH_EMAIL_RATE_LIMIT_PER_RECIPIENT: '3',
        LATCH_EMAIL_TEST_SENDS_PER_HOUR: '4',
      }).email,
    ).toMatchObject({
      from: 'noreply@auth.example.com',
      fromName: 'Latch Auth',
      allowPrivate: true,
      sharedEmail: ['p1', 'p2'],
      clientSharePercent: 30,
      perIpPerHour: 5,
      perRecipientPerHour: 3,
      testSendsPerHour: 4,
    });
    expect(loadEnv({ LATCH_SECRET: SECRET, LATCH_EMAIL_FROM: 'Latch <noreply@auth.example.com>', LATCH_SHARED_EMAIL: 'all' }).email).toMatchObject({
      from: 'noreply@auth.example.com',
      fromName: 'Latch',
      sharedEmail: 'all',
    });
    // Safe by default: no private SMTP hosts, and the shared server only for the console's own mail.
    expect(DEFAULT_EMAIL_SETTINGS).toMatchObject({ allowPrivate: false, sharedEmail: 'internal' });
  });

  it.each(['Latch <noreply@x.com', 'Evil\r\nBcc: a@b.c <noreply@x.com>', 'no address'])('refuses LATCH_EMAIL_FROM=%j', (from) => {
    expect(() => loadEnv({ LATCH_SECRET: SECRET, LATCH_EMAIL_FROM: from })).toThrow(/LATCH_EMAIL_FROM/);
  });

  it.each(['http://mail.example.com', 'mail.example.com:25', 'smtp://'])('refuses LATCH_SMTP_URL=%s with a clear message', (url) => {
    expect(() => loadEnv({ LATCH_SECRET: SECRET, LATCH_SMTP_URL: url })).toThrow(/LATCH_SMTP_URL must look like smtp:\/\//);
  });

  it('refuses a rate limit that is not a non-negative integer', () => {
    expect(() => loadEnv({ LATCH_SECRET: SECRET, LATCH_EMAIL_RATE_LIMIT_PER_HOUR: '-1' })).toThrow(/LATCH_EMAIL_RATE_LIMIT_PER_HOUR/);
  });
});

describe('SMTP targets', () => {
  it('reads host, port, TLS and percent-encoded credentials from LATCH_SMTP_URL, sending as the project', () => {
    const target = sharedTarget(
      { ...DEFAULT_EMAIL_SETTINGS, smtpUrl: 'smtps://mailer:p%40ss@mail.example.com', fromName: 'Latch' },
      'https://auth.example.com',
    );
    expect(target?.options).toMatchObject({ host: 'mail.example.com', port: 465, secure: true, auth: { user: 'mailer', pass: 'p@ss' } });
    // The operator's name, never the project's.
    expect(target?.from).toEqual({ name: 'Latch', address: 'noreply@auth.example.com' });
    expect(target?.key).not.toContain('p@ss');
    const plain = sharedTarget({ ...DEFAULT_EMAIL_SETTINGS, smtpUrl: 'smtp://127.0.0.1:2525', from: 'hi@example.com' }, 'http://localhost:8400');
    expect(plain?.options).toMatchObject({ host: '127.0.0.1', port: 2525, secure: false });
    expect(plain?.options.auth).toBeUndefined();
    expect(plain?.options.requireTLS).toBeUndefined();
    expect(plain?.from).toEqual({ name: '', address: 'hi@example.com' });
    // A login on 587 requires STARTTLS.
    expect(sharedTarget({ ...DEFAULT_EMAIL_SETTINGS, smtpUrl: 'smtp://u:p@mail.example.com:587' }, 'http://localhost')?.options.requireTLS).toBe(true);
    expect(sharedTarget(DEFAULT_EMAIL_SETTINGS, 'http://localhost')).toBeNull();
  });

  it("uses a project's own server with TLS on 465, and no target when its password cannot be read", () => {
    const config = {
      type: 'standard' as const,
      host: 'smtp.acme.test',
      port: 465,
      username: 'u',
      password: 'v1.sealed',
      sender_name: 'Acme',
      sender_email: 'a@acme.test',
    };
    expect(standardTarget(config, 'secret')?.options).toMatchObject({ host: 'smtp.acme.test', port: 465, secure: true, auth: { user: 'u', pass: 'secret' } });
    expect(standardTarget(config, 'secret')?.options.requireTLS).toBeUndefined();
    const noLogin = standardTarget({ ...config, port: 587, username: '' }, '');
    expect(noLogin?.options.secure).toBe(false);
    expect(noLogin?.options.auth).toBeUndefined();
    expect(noLogin?.options.requireTLS).toBeUndefined();
    // Credentials on a STARTTLS port: never sent unless TLS was set up first.
    expect(standardTarget({ ...config, port: 587 }, 'secret')?.options).toMatchObject({ secure: false, requireTLS: true });
    expect(standardTarget({ ...config, port: 25 }, 'secret')?.options).toMatchObject({ secure: false, requireTLS: true });
    expect(standardTarget(config, null)).toBeNull();
  });

  it('tells permanent SMTP refusals from temporary ones, and keeps the error text on one bounded line', () => {
    expect(isPermanentSmtpFailure(Object.assign(new Error('x'), { responseCode: 550 }))).toBe(true);
    expect(isPermanentSmtpFailure(Object.assign(new Error('x'), { responseCode: 451 }))).toBe(false);
    expect(isPermanentSmtpFailure(new Error('connect ECONNREFUSED'))).toBe(false);
    expect(smtpErrorText(new Error('Invalid login:\r\n  535 5.7.8 bad'))).toBe('Invalid login: 535 5.7.8 bad');
    expect(smtpErrorText(new Error('x'.repeat(5000)))).toHaveLength(1000);
  });

  it("tells admins a generic reason and at most the reply code, never the peer's text", () => {
    const cases: [unknown, string][] = [
      [Object.assign(new Error('Invalid login: 535 5.7.8 secret-banner'), { code: 'EAUTH', responseCode: 535 }), 'auth_failed'],
      [Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:25'), { code: 'ESOCKET' }), 'connection_refused'],
      [Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT' }), 'timed_out'],
      [Object.assign(new Error('Error upgrading connection with STARTTLS: 502 secret-banner'), { code: 'ETLS' }), 'tls_failed'],
      [Object.assign(new Error('Message failed: 451 secret-banner'), { code: 'EMESSAGE', responseCode: 451 }), 'rejected'],
      [Object.assign(new Error('Invalid greeting. response=SSH-2.0-OpenSSH_9.6 secret-banner'), { code: 'EPROTOCOL' }), 'connection_failed'],
    ];
    for (const [error, reason] of cases) {
      const failure = smtpFailure(error);
      expect(failure.reason).toBe(reason);
      expect(failure.message).not.toMatch(/secret-banner|10\.0\.0\.1|SSH/);
    }
    expect(smtpFailure(cases[4]![0]).message).toContain('451');
  });
});
