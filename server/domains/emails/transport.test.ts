import { describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_SETTINGS, loadEnv } from '../../env.js';
import { isPermanentSmtpFailure, sharedTarget, smtpErrorText, standardTarget } from './transport.js';

const SECRET = 'x'.repeat(48);

describe('LATCH_SMTP_URL and the other email settings', () => {
  it('parses the email settings, with their defaults', () => {
    expect(loadEnv({ LATCH_SECRET: SECRET }).email).toEqual(DEFAULT_EMAIL_SETTINGS);
    expect(loadEnv({ LATCH_SECRET: SECRET, LATCH_SMTP_URL: ' smtp://mailer:p%40ss@mail.example.com:2525 ', LATCH_EMAIL_FROM: 'hello@example.com', LATCH_EMAIL_RATE_LIMIT_PER_HOUR: '0', LATCH_EMAIL_POLL_INTERVAL_MS: '250' }).email).toEqual({
      smtpUrl: 'smtp://mailer:p%40ss@mail.example.com:2525',
      from: 'hello@example.com',
      perProjectPerHour: 0,
      pollIntervalMs: 250,
    });
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
    const target = sharedTarget({ ...DEFAULT_EMAIL_SETTINGS, smtpUrl: 'smtps://mailer:p%40ss@mail.example.com' }, 'https://auth.example.com', 'Acme');
    expect(target?.options).toMatchObject({ host: 'mail.example.com', port: 465, secure: true, auth: { user: 'mailer', pass: 'p@ss' } });
    expect(target?.from).toEqual({ name: 'Acme', address: 'noreply@auth.example.com' });
    expect(target?.key).not.toContain('p@ss');
    const plain = sharedTarget({ ...DEFAULT_EMAIL_SETTINGS, smtpUrl: 'smtp://127.0.0.1:2525', from: 'hi@example.com' }, 'http://localhost:8400', 'Acme');
    expect(plain?.options).toMatchObject({ host: '127.0.0.1', port: 2525, secure: false });
    expect(plain?.options.auth).toBeUndefined();
    expect(plain?.from.address).toBe('hi@example.com');
    expect(sharedTarget(DEFAULT_EMAIL_SETTINGS, 'http://localhost', 'Acme')).toBeNull();
  });

  it("uses a project's own server with TLS on 465, and no target when its password cannot be read", () => {
    const config = { type: 'standard' as const, host: 'smtp.acme.test', port: 465, username: 'u', password: 'v1.sealed', sender_name: 'Acme', sender_email: 'a@acme.test' };
    expect(standardTarget(config, 'secret')?.options).toMatchObject({ host: 'smtp.acme.test', port: 465, secure: true, auth: { user: 'u', pass: 'secret' } });
    const noLogin = standardTarget({ ...config, port: 587, username: '' }, '');
    expect(noLogin?.options.secure).toBe(false);
    expect(noLogin?.options.auth).toBeUndefined();
    expect(standardTarget(config, null)).toBeNull();
  });

  it('tells permanent SMTP refusals from temporary ones, and keeps the error text on one bounded line', () => {
    expect(isPermanentSmtpFailure(Object.assign(new Error('x'), { responseCode: 550 }))).toBe(true);
    expect(isPermanentSmtpFailure(Object.assign(new Error('x'), { responseCode: 451 }))).toBe(false);
    expect(isPermanentSmtpFailure(new Error('connect ECONNREFUSED'))).toBe(false);
    expect(smtpErrorText(new Error('Invalid login:\r\n  535 5.7.8 bad'))).toBe('Invalid login: 535 5.7.8 bad');
    expect(smtpErrorText(new Error('x'.repeat(5000)))).toHaveLength(1000);
  });
});
