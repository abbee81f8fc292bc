import { render } from '@react-email/render';
import type { ReactElement } from 'react';
import type { BuiltInEmail } from './render.js';
import { type EmailBranding, EmailVerificationEmail, MagicLinkEmail, PasswordResetEmail, SignInInvitationEmail, TeamInvitationEmail, TestEmail } from './templates.js';

/**
 * React Email and the templates, loaded by render.ts on the first email only: they (and prismjs,
 * which @react-email/components pulls in) cost start-up time and memory in every process otherwise.
 */
export function compose(branding: EmailBranding, email: BuiltInEmail): { subject: string; element: ReactElement } {
  const project = branding.projectDisplayName;
  switch (email.type) {
    case 'email-verification':
      return { subject: `Verify your email for ${project}`, element: <EmailVerificationEmail branding={branding} link={email.link} expiresAt={email.expiresAt} /> };
    case 'password-reset':
      return { subject: `Reset your password for ${project}`, element: <PasswordResetEmail branding={branding} link={email.link} expiresAt={email.expiresAt} /> };
    case 'magic-link':
      // Not the code itself: the subject is stored in the outbox in plain text (bodies are sealed),
      // and the code with the nonce its requester holds signs in, so it must not rest readable.
      return { subject: `Your sign-in code for ${project}`, element: <MagicLinkEmail branding={branding} link={email.link} otp={email.otp} expiresAt={email.expiresAt} /> };
    case 'team-invitation':
      return { subject: `You are invited to join ${email.teamDisplayName} on ${project}`, element: <TeamInvitationEmail branding={branding} link={email.link} teamDisplayName={email.teamDisplayName} expiresAt={email.expiresAt} /> };
    case 'sign-in-invitation':
      return { subject: `You are invited to sign in to ${project}`, element: <SignInInvitationEmail branding={branding} link={email.link} /> };
    case 'test':
      return { subject: `Test email from ${project}`, element: <TestEmail branding={branding} /> };
  }
}


export function renderElement(element: ReactElement): Promise<[string, string]> {
  return Promise.all([render(element), render(element, { plainText: true })]);
}
