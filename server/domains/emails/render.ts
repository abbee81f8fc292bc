import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { EmailBranding } from './templates.js';

export type { EmailBranding } from './templates.js';

/** Every email Latch sends by itself, with what each needs. */
export type BuiltInEmail =
  | { type: 'email-verification'; link: string; expiresAt: Date | null }
  | { type: 'password-reset'; link: string; expiresAt: Date | null }
  | { type: 'magic-link'; link: string; otp: string; expiresAt: Date | null }
  | { type: 'team-invitation'; link: string; teamDisplayName: string; expiresAt: Date | null }
  | { type: 'sign-in-invitation'; link: string }
  | { type: 'test' }
  /** To a project's owners, from the internal project (server/domains/webhooks/disabled-notice.ts); not owner-editable. */
  | { type: 'webhook-endpoint-disabled'; link: string; projectDisplayName: string; endpoint: string; reason: string };

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

let composer: Promise<typeof import('./compose.js')> | null = null;

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
  composer ??= import('./compose.js');
  const { compose, renderElement } = await composer;
  const { subject, element } = compose(branding, email);
  try {
    const [html, text] = renderElement(element);
    // A subject is one header line: newlines in a project or team name must not start another header.
    return { subject: subject.replace(/[\r\n]+/g, ' '), html, text };
  } catch (error) {
    throw new KnownErrors.EmailRenderingError(error instanceof Error ? error.message : String(error));
  }
}
