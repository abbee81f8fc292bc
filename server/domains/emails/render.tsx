import { render } from '@react-email/render';
import type { ReactElement } from 'react';
import { KnownErrors } from '../../errors/known-errors.js';
import { type EmailBranding, EmailVerificationEmail, MagicLinkEmail, PasswordResetEmail, SignInInvitationEmail, TeamInvitationEmail, TestEmail } from './templates.js';

export type { EmailBranding } from './templates.js';

/** Every email Latch sends by itself, with what each needs. */
export type BuiltInEmail =
  | { type: 'email-verification'; link: string; expiresAt: Date | null }
  | { type: 'password-reset'; link: string; expiresAt: Date | null }
  | { type: 'magic-link'; link: string; otp: string; expiresAt: Date | null }
  | { type: 'team-invitation'; link: string; teamDisplayName: string; expiresAt: Date | null }
  | { type: 'sign-in-invitation'; link: string }
  | { type: 'test' };

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

function compose(branding: EmailBranding, email: BuiltInEmail): { subject: string; element: ReactElement } {
  const project = branding.projectDisplayName;
  switch (email.type) {
    case 'email-verification':
      return { subject: `Verify your email for ${project}`, element: <EmailVerificationEmail branding={branding} link={email.link} expiresAt={email.expiresAt} /> };
    case 'password-reset':
      return { subject: `Reset your password for ${project}`, element: <PasswordResetEmail branding={branding} link={email.link} expiresAt={email.expiresAt} /> };
    case 'magic-link':
      return { subject: `Your sign-in code for ${project}: ${email.otp}`, element: <MagicLinkEmail branding={branding} link={email.link} otp={email.otp} expiresAt={email.expiresAt} /> };
    case 'team-invitation':
      return { subject: `You are invited to join ${email.teamDisplayName} on ${project}`, element: <TeamInvitationEmail branding={branding} link={email.link} teamDisplayName={email.teamDisplayName} expiresAt={email.expiresAt} /> };
    case 'sign-in-invitation':
      return { subject: `You are invited to sign in to ${project}`, element: <SignInInvitationEmail branding={branding} link={email.link} /> };
    case 'test':
      return { subject: `Test email from ${project}`, element: <TestEmail branding={branding} /> };
  }
}

/**
 * The one place emails are rendered: a built-in email with the project's branding, to a subject,
 * HTML and plain text. Callers never see the templates, so editable TSX themes and templates (a
 * later issue) can replace what happens in here without touching any flow.
 *
 * @example
 * const { subject, html, text } = await renderEmail(
 *   { projectDisplayName: 'Acme', logoUrl: null, fullLogoUrl: null },
 *   { type: 'password-reset', link: 'https://acme.example/handler/password-reset?code=…', expiresAt: null },
 * );
 */
export async function renderEmail(branding: EmailBranding, email: BuiltInEmail): Promise<RenderedEmail> {
  const { subject, element } = compose(branding, email);
  try {
    const [html, text] = await Promise.all([render(element), render(element, { plainText: true })]);
    // A subject is one header line: newlines in a project or team name must not start another header.
    return { subject: subject.replace(/[\r\n]+/g, ' '), html, text };
  } catch (error) {
    throw new KnownErrors.EmailRenderingError(error instanceof Error ? error.message : String(error));
  }
}
