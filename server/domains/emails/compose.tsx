import { toPlainText } from '@react-email/render';
import type { ReactElement } from 'react';
import type { BuiltInEmail } from './render.js';
import { renderStatic } from './static-render.js';
import {
  type EmailBranding,
  EmailVerificationEmail,
  MagicLinkEmail,
  PasswordResetEmail,
  SignInInvitationEmail,
  TeamInvitationEmail,
  TestEmail,
  WebhookEndpointDisabledEmail,
} from './templates.js';

/**
 * React Email and the templates, loaded by render.ts on the first email only: they (and prismjs,
 * which @react-email/components pulls in) cost start-up time and memory in every process otherwise.
 */
/**
 * Subjects are fixed text: no project, team or user name, nothing anyone but the operator wrote.
 * On a shared server anyone who signs up is an owner, and a subject is what a phishing mail lives
 * on ("Your PayPal account is locked" as a project or team name). Names appear in the body, where
 * the template frames them ("You have been invited to join the team … on …").
 */
export const SUBJECTS = {
  'email-verification': 'Verify your email',
  'password-reset': 'Reset your password',
  // Not the code itself: the subject is stored in the outbox in plain text (bodies are sealed),
  // and the code with the nonce its requester holds signs in, so it must not rest readable.
  'magic-link': 'Your sign-in code',
  'team-invitation': 'You are invited to join a team',
  'sign-in-invitation': 'You are invited to sign in',
  test: 'Test email',
  'webhook-endpoint-disabled': 'A webhook endpoint was disabled',
} as const satisfies Record<BuiltInEmail['type'], string>;

export function compose(branding: EmailBranding, email: BuiltInEmail): { subject: string; element: ReactElement } {
  const subject = SUBJECTS[email.type];
  switch (email.type) {
    case 'email-verification':
      return { subject, element: <EmailVerificationEmail branding={branding} link={email.link} expiresAt={email.expiresAt} /> };
    case 'password-reset':
      return { subject, element: <PasswordResetEmail branding={branding} link={email.link} expiresAt={email.expiresAt} /> };
    case 'magic-link':
      return { subject, element: <MagicLinkEmail branding={branding} link={email.link} otp={email.otp} expiresAt={email.expiresAt} /> };
    case 'team-invitation':
      return {
        subject,
        element: <TeamInvitationEmail branding={branding} link={email.link} teamDisplayName={email.teamDisplayName} expiresAt={email.expiresAt} />,
      };
    case 'sign-in-invitation':
      return { subject, element: <SignInInvitationEmail branding={branding} link={email.link} /> };
    case 'test':
      return { subject, element: <TestEmail branding={branding} /> };
    case 'webhook-endpoint-disabled':
      return {
        subject,
        element: (
          <WebhookEndpointDisabledEmail
            branding={branding}
            link={email.link}
            projectDisplayName={email.projectDisplayName}
            endpoint={email.endpoint}
            reason={email.reason}
          />
        ),
      };
  }
}

/**
 * The HTML and plain text of a built-in email: one synchronous React render (the built-in templates
 * never suspend: no Tailwind), the text converted from that HTML as React Email's own plain-text
 * render does. Not React Email's `render`: its streaming renderer would turn on async_hooks' promise
 * hooks for the whole process (static-render.ts).
 */
export function renderElement(element: ReactElement): [string, string] {
  const html = renderStatic(element);
  return [html, toPlainText(html)];
}
