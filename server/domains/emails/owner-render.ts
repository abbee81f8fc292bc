import type { z } from 'zod';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import type { Deps } from '../../deps.js';
import type { renderEmailResultSchema, renderEmailSchema } from '../../../contract/schemas/email-content.js';
import * as q from './content/queries.js';
import { fromThemeColumns, renderOrThrow, sampleInput, type ThemeChoice, themeSourceFor } from './content/render.js';
import { findTemplateRow } from './content/templates.js';

/** What a theme alone is previewed with (no template chosen). */
const THEME_PREVIEW_TEMPLATE =
  'import { Heading, Text } from \'@react-email/components\';\nexport function EmailTemplate({ project }) { return <><Heading as="h1">{project.displayName}</Heading><Text>This is how your emails look with this theme.</Text></>; }';

/** The template source named by the request, and the theme its stored template or draft uses. */
async function templateOf(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof renderEmailSchema>,
): Promise<{ source: string; theme: ThemeChoice | undefined }> {
  if (input.template_tsx_source !== undefined) return { source: input.template_tsx_source, theme: undefined };
  if (input.template_id !== undefined) {
    const found = await findTemplateRow(deps.db, auth.tenancy, input.template_id);
    if (!found) throw new KnownErrors.EmailContentNotFound('template', input.template_id);
    return { source: found.row.tsx_source, theme: fromThemeColumns(found.row) };
  }
  if (input.draft_id !== undefined) {
    const draft = await q.findDraft(deps.db, auth.tenancy.id, input.draft_id);
    if (!draft) throw new KnownErrors.EmailContentNotFound('draft', input.draft_id);
    return { source: draft.tsx_source, theme: fromThemeColumns(draft) };
  }
  return { source: THEME_PREVIEW_TEMPLATE, theme: null };
}

/**
 * Renders owner TSX for a preview (`POST /emails/render-email`): a source or a stored template or
 * draft, through a theme source, a stored theme, or the one the template uses. The preview user is
 * a sample, not a real one: no user's data goes into code the owner wrote until it is sent to them.
 */
export async function renderEmailPreview(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof renderEmailSchema>,
): Promise<z.infer<typeof renderEmailResultSchema>> {
  const template = await templateOf(deps, auth, input);
  let theme: string | null = null;
  if (input.theme_tsx_source !== undefined) theme = input.theme_tsx_source;
  else {
    const choice = input.theme_id !== undefined ? input.theme_id : template.theme;
    // A raw source without any theme argument renders alone, as before theme ids existed.
    if (choice !== undefined) theme = await themeSourceFor(deps.db, auth.tenancy, auth.project, choice);
  }
  const rendered = await renderOrThrow(auth.tenancy.id, template.source, theme, sampleInput(auth.project, input.variables ?? {}));
  return { html: rendered.html, text: rendered.text, subject: rendered.subject, notification_category: rendered.notificationCategory };
}
