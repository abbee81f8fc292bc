import type { z } from 'zod';
import type { AuthContext } from '../../access/context.js';
import type { renderEmailResultSchema, renderEmailSchema } from '../../../contract/schemas/emails.js';
import { renderOwnerEmail, SandboxRenderError, toRenderingError } from './sandbox/index.js';

/**
 * Renders owner TSX for a preview (`POST /emails/render-email`). The preview user is a sample, not a
 * real one: the editor shows how the email looks, and no user's data goes into code the owner wrote
 * until it is actually sent to them.
 */
export async function renderEmailPreview(auth: AuthContext, input: z.infer<typeof renderEmailSchema>): Promise<z.infer<typeof renderEmailResultSchema>> {
  try {
    const rendered = await renderOwnerEmail(
      { template: input.template_tsx_source, theme: input.theme_tsx_source ?? null },
      {
        user: { displayName: 'Ada Lovelace', primaryEmail: 'ada@example.com' },
        project: { displayName: auth.project.displayName },
        variables: input.variables ?? {},
        // A preview's link goes nowhere real: it only has to look like one in the theme.
        unsubscribeLink: 'https://example.com/unsubscribe',
        projectLogos: { logoUrl: auth.project.logoUrl, fullLogoUrl: auth.project.fullLogoUrl },
      },
    );
    return { html: rendered.html, text: rendered.text, subject: rendered.subject, notification_category: rendered.notificationCategory };
  } catch (error) {
    if (error instanceof SandboxRenderError) throw toRenderingError(error);
    throw error;
  }
}
