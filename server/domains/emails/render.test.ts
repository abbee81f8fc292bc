import { describe, expect, it } from 'vitest';
import { type BuiltInEmail, type EmailBranding, renderEmail } from './render.js';

const branding: EmailBranding = { projectDisplayName: 'Acme', logoUrl: null, fullLogoUrl: null };
const link = 'https://app.acme.test/handler/x?code=abc123&next=%2Fhome';
const expiresAt = new Date('2030-01-02T03:04:05Z');

describe('renderEmail: the built-in emails', () => {
  it.each<[BuiltInEmail, string]>([
    [{ type: 'email-verification', link, expiresAt }, 'Verify your email'],
    [{ type: 'password-reset', link, expiresAt }, 'Reset your password'],
    [{ type: 'magic-link', link, otp: 'K7P2QX', expiresAt }, 'Your sign-in code'],
    [{ type: 'team-invitation', link, teamDisplayName: 'Rockets', expiresAt }, 'You are invited to join a team'],
    [{ type: 'sign-in-invitation', link }, 'You are invited to sign in'],
  ])('%s renders a subject, HTML and text, each carrying the link', async (email, subject) => {
    const rendered = await renderEmail(branding, email);
    expect(rendered.subject).toBe(subject);
    expect(rendered.html).toMatch(/^<!DOCTYPE html/);
    expect(rendered.html).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
    expect(rendered.text).toContain(link);
    // The action link is the first link of the text (tests and plain-text readers rely on it).
    expect(/https?:\/\/\S+/.exec(rendered.text)?.[0]).toBe(link);
    expect(rendered.text).not.toContain('<');
    if ('expiresAt' in email) expect(rendered.text).toContain('Wed, 02 Jan 2030 03:04:05 GMT');
  });

  it('puts the one-time code in the HTML and the text, never in the subject (stored unsealed)', async () => {
    const rendered = await renderEmail(branding, { type: 'magic-link', link, otp: 'K7P2QX', expiresAt: null });
    expect(rendered.subject).not.toContain('K7P2QX');
    expect(rendered.html).toContain('K7P2QX');
    expect(rendered.text).toContain('K7P2QX');
  });

  it('escapes user-controlled names, and keeps a subject on one line', async () => {
    const rendered = await renderEmail(
      { projectDisplayName: 'Evil <script>alert(1)</script>\r\nBcc: victim@example.com', logoUrl: null, fullLogoUrl: null },
      { type: 'team-invitation', link, teamDisplayName: '<img src=x onerror=alert(1)>', expiresAt: null },
    );
    expect(rendered.html).not.toContain('<script>');
    expect(rendered.html).not.toContain('<img src=x');
    expect(rendered.html).toContain('&lt;script&gt;');
    expect(rendered.subject).not.toMatch(/[\r\n]/);
    expect(rendered.subject).not.toContain('Bcc');
  });

  it('never puts a project, team or user name in a subject: those are fixed text, and the names are in the body', async () => {
    const branding = { projectDisplayName: 'PayPal Security', logoUrl: null, fullLogoUrl: null };
    const emails: BuiltInEmail[] = [
      { type: 'email-verification', link, expiresAt },
      { type: 'password-reset', link, expiresAt },
      { type: 'magic-link', link, otp: 'K7P2QX', expiresAt },
      { type: 'team-invitation', link, teamDisplayName: 'Your account is locked, act now', expiresAt },
      { type: 'sign-in-invitation', link },
      { type: 'test' },
    ];
    for (const email of emails) {
      const rendered = await renderEmail(branding, email);
      expect(rendered.subject).not.toMatch(/PayPal|locked/);
      expect(rendered.text).toContain('PayPal Security');
      if (email.type === 'team-invitation') expect(rendered.text).toContain('Your account is locked, act now');
    }
  });

  it('shows the project name and an http(s) logo in the header; never a data: URL logo', async () => {
    const withLogo = await renderEmail(
      { projectDisplayName: 'Acme', logoUrl: 'https://cdn.acme.test/logo.png', fullLogoUrl: null },
      { type: 'sign-in-invitation', link },
    );
    expect(withLogo.html).toContain('src="https://cdn.acme.test/logo.png"');
    expect(withLogo.html).toContain('Acme');
    const fullLogo = await renderEmail(
      { projectDisplayName: 'Acme', logoUrl: 'https://cdn.acme.test/logo.png', fullLogoUrl: 'https://cdn.acme.test/full.png' },
      { type: 'sign-in-invitation', link },
    );
    expect(fullLogo.html).toContain('src="https://cdn.acme.test/full.png"');
    expect(fullLogo.html).toContain('alt="Acme"');
    const dataLogo = await renderEmail(
      { projectDisplayName: 'Acme', logoUrl: `data:image/png;base64,${'A'.repeat(5000)}`, fullLogoUrl: null },
      { type: 'sign-in-invitation', link },
    );
    expect(dataLogo.html).not.toContain('data:image');
    expect(dataLogo.html).toContain('Acme');
  });
});
