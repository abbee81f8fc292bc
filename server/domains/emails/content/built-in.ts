import type { Tenancy } from '../../../access/context.js';
import type { ProjectConfig } from '../../../../contract/config/project-config.js';
import type { Executor } from '../../../db/executor.js';
import type { Logger } from '../../../deps.js';
import { type BuiltInEmail, type EmailBranding, type RenderedEmail, renderEmail } from '../render.js';
import { renderOwnerEmail } from '../sandbox/index.js';
import { BUILT_IN_TEMPLATES, type BuiltInTemplateType, DEFAULT_LIGHT_THEME_ID } from './default-sources.js';
import * as q from './queries.js';
import { fromThemeColumns, themeSourceFor } from './render.js';

/**
 * Emails with no editable template: the console's test email, and the notices the deployment
 * sends project owners from its own project (an owner of another project has no say in them).
 */
type FixedEmail = Extract<BuiltInEmail, { type: 'test' | 'webhook-endpoint-disabled' }>;
const isFixed = (email: BuiltInEmail): email is FixedEmail => email.type === 'test' || email.type === 'webhook-endpoint-disabled';

/** The editable template of each built-in email. */
const TEMPLATE_TYPE: Record<Exclude<BuiltInEmail, FixedEmail>['type'], BuiltInTemplateType> = {
  'email-verification': 'email_verification',
  'password-reset': 'password_reset',
  'magic-link': 'magic_link',
  'team-invitation': 'team_invitation',
  'sign-in-invitation': 'sign_in_invitation',
};

/** What a built-in email gives its template as `variables` (the schema of each default source). */
function variablesOf(email: Exclude<BuiltInEmail, FixedEmail>): Record<string, unknown> {
  const expiresAt = 'expiresAt' in email && email.expiresAt ? { expiresAt: email.expiresAt.toUTCString() } : {};
  switch (email.type) {
    case 'magic-link':
      return { link: email.link, otp: email.otp, ...expiresAt };
    case 'team-invitation':
      return { link: email.link, teamDisplayName: email.teamDisplayName, ...expiresAt };
    default:
      return { link: email.link, ...expiresAt };
  }
}

export interface BuiltInSender {
  tenancy: Tenancy;
  branding: EmailBranding;
  config: Pick<ProjectConfig, 'email_theme'> | null;
}

/**
 * Renders a built-in email with the project's template for it and the project's theme. A project
 * that changed neither renders on the host from the same design (no sandbox round trip on every
 * sign-in). An owner's template or theme that fails to render (a throw, a variable its schema
 * refuses, a limit) is logged and the default email goes out instead: an owner's mistake never
 * blocks a sign-in email. The subject is the template's `<Subject>`, else the fixed one.
 */
export async function renderBuiltInEmail(db: Executor, log: Logger, sender: BuiltInSender, email: BuiltInEmail): Promise<RenderedEmail> {
  if (isFixed(email)) return renderEmail(sender.branding, email);
  const type = TEMPLATE_TYPE[email.type];
  const row = await q.findTemplateByType(db, sender.tenancy.id, type);
  const projectTheme = sender.config?.email_theme ?? null;
  const themeChoice = row ? fromThemeColumns(row) : null;
  if (!row && (projectTheme === null || projectTheme === DEFAULT_LIGHT_THEME_ID)) return renderEmail(sender.branding, email);
  try {
    const project = { config: { email_theme: projectTheme } } as Parameters<typeof themeSourceFor>[2];
    const theme = await themeSourceFor(db, sender.tenancy, project, themeChoice);
    const rendered = await renderOwnerEmail(
      { template: row?.tsx_source ?? BUILT_IN_TEMPLATES[type].tsxSource, theme },
      {
        user: { displayName: null },
        project: { displayName: sender.branding.projectDisplayName },
        variables: variablesOf(email),
        unsubscribeLink: null,
        projectLogos: { logoUrl: sender.branding.logoUrl, fullLogoUrl: sender.branding.fullLogoUrl },
      },
    );
    return { subject: rendered.subject || (await subjectOf(email)), html: rendered.html, text: rendered.text };
  } catch (error) {
    log.warn('owner email template failed, sent the default instead', {
      tenancy_id: sender.tenancy.id,
      template: type,
      error: error instanceof Error ? error.message : String(error),
    });
    return renderEmail(sender.branding, email);
  }
}

async function subjectOf(email: BuiltInEmail): Promise<string> {
  const { SUBJECTS } = await import('../compose.js');
  return SUBJECTS[email.type];
}
