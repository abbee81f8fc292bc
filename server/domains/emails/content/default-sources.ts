/**
 * The built-in themes and templates as TSX sources: what an owner starts from in the editor, and
 * what a project renders until it edits them. They use only what any owner source may use (the
 * email components and `@latch/emails`), so an edited copy behaves exactly like the original.
 * Ids are fixed (version-4 shaped) so every project lists the same built-ins; a project's edit is
 * a row with the same id.
 */

export const DEFAULT_LIGHT_THEME_ID = '1a7c0000-0000-4000-8000-000000000001';
export const DEFAULT_DARK_THEME_ID = '1a7c0000-0000-4000-8000-000000000002';

function themeSource(colors: { background: string; text: string; muted: string; border: string }): string {
  return `import { Body, Container, Head, Hr, Html, Img, Link, Section, Text } from '@react-email/components';

// Logos may be data: URLs in the project settings; only http(s) ones go into an email.
const web = (url) => (url && /^https?:\\/\\//i.test(url) ? url : null);

export function EmailTheme({ children, unsubscribeLink, projectLogos }) {
  const logo = web(projectLogos.fullLogoUrl) || web(projectLogos.logoUrl);
  return (
    <Html lang="en">
      <Head />
      <Body style={{ backgroundColor: '${colors.background}', color: '${colors.text}', fontFamily: '-apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif' }}>
        <Container style={{ maxWidth: '520px', margin: '0 auto', padding: '24px 16px' }}>
          {logo ? (
            <Section>
              <Img src={logo} alt="" height="40" />
            </Section>
          ) : null}
          {children}
          <Hr style={{ borderColor: '${colors.border}', margin: '24px 0 12px' }} />
          <Text style={{ color: '${colors.muted}', fontSize: '13px', lineHeight: '20px', margin: '8px 0' }}>
            If you did not expect this email, you can ignore it.
          </Text>
          {unsubscribeLink ? (
            <Text style={{ fontSize: '13px', margin: '8px 0' }}>
              <Link href={unsubscribeLink} style={{ color: '${colors.muted}' }}>Unsubscribe</Link>
            </Text>
          ) : null}
        </Container>
      </Body>
    </Html>
  );
}
`;
}

export const BUILT_IN_THEMES = [
  {
    id: DEFAULT_LIGHT_THEME_ID,
    displayName: 'Default Light',
    tsxSource: themeSource({ background: '#ffffff', text: '#1f2328', muted: '#59636e', border: '#d1d9e0' }),
  },
  {
    id: DEFAULT_DARK_THEME_ID,
    displayName: 'Default Dark',
    tsxSource: themeSource({ background: '#0d1117', text: '#e6edf3', muted: '#9198a1', border: '#3d444d' }),
  },
] as const;

/** A blank theme for "create theme": the light one, which an owner then edits. */
export const NEW_THEME_SOURCE = BUILT_IN_THEMES[0].tsxSource;

/** Shared pieces of every built-in template: a heading, a paragraph, the button with its link as text. */
function templateSource(options: { schema: string; subject: string; heading: string; body: string; action: string | null; extra?: string }): string {
  return `import { Button, Heading, Link, Section, Text } from '@react-email/components';
import { Subject, NotificationCategory } from '@latch/emails';

export const variablesSchema = ${options.schema};

export function EmailTemplate({ user, project, variables }) {
  return (
    <>
      <Subject value="${options.subject}" />
      <NotificationCategory value="Transactional" />
      <Text style={{ fontSize: '18px', fontWeight: 600, margin: '0' }}>{project.displayName}</Text>
      <Heading as="h1" style={{ fontSize: '22px', fontWeight: 600, margin: '24px 0 12px' }}>
        ${options.heading}
      </Heading>
      <Text style={{ fontSize: '15px', lineHeight: '24px', margin: '12px 0' }}>
        ${options.body}
      </Text>${options.extra ?? ''}${
        options.action === null
          ? ''
          : `
      <Section style={{ margin: '20px 0' }}>
        <Button href={variables.link} style={{ backgroundColor: '#1f2328', color: '#ffffff', borderRadius: '6px', fontSize: '15px', fontWeight: 600, padding: '12px 20px', textDecoration: 'none' }}>
          ${options.action}
        </Button>
      </Section>
      <Text style={{ fontSize: '13px', lineHeight: '20px', margin: '8px 0' }}>
        Or open this link: <Link href={variables.link} style={{ wordBreak: 'break-all' }}>{variables.link}</Link>
      </Text>`
      }
      {variables.expiresAt ? <Text style={{ fontSize: '13px', margin: '8px 0' }}>This link expires on {variables.expiresAt}.</Text> : null}
    </>
  );
}
`;
}

/** The built-in emails an owner can edit, by type (the `type` of a template row). */
export const BUILT_IN_TEMPLATES = {
  email_verification: {
    id: '1a7c0001-0000-4000-8000-000000000001',
    displayName: 'Email verification',
    tsxSource: templateSource({
      schema: "{ link: 'string', expiresAt: 'string?' }",
      subject: 'Verify your email',
      heading: 'Verify your email',
      body: 'Confirm that this email address belongs to you to finish setting up your {project.displayName} account.',
      action: 'Verify email',
    }),
  },
  password_reset: {
    id: '1a7c0001-0000-4000-8000-000000000002',
    displayName: 'Password reset',
    tsxSource: templateSource({
      schema: "{ link: 'string', expiresAt: 'string?' }",
      subject: 'Reset your password',
      heading: 'Reset your password',
      body: 'Someone asked to reset the password of your {project.displayName} account. If it was you, choose a new password here; your other sessions will be signed out. If not, ignore this email.',
      action: 'Reset password',
    }),
  },
  magic_link: {
    id: '1a7c0001-0000-4000-8000-000000000003',
    displayName: 'Magic link / one-time code',
    tsxSource: templateSource({
      schema: "{ link: 'string', otp: 'string', expiresAt: 'string?' }",
      subject: 'Your sign-in code',
      heading: 'Sign in to {project.displayName}',
      body: 'Enter this code on the sign-in page, or sign in with the button below.',
      action: 'Sign in',
      extra: `
      <Text style={{ fontFamily: 'ui-monospace, Menlo, monospace', fontSize: '28px', fontWeight: 700, letterSpacing: '6px', textAlign: 'center', margin: '16px 0' }}>
        {variables.otp}
      </Text>`,
    }),
  },
  team_invitation: {
    id: '1a7c0001-0000-4000-8000-000000000004',
    displayName: 'Team invitation',
    tsxSource: templateSource({
      schema: "{ link: 'string', teamDisplayName: 'string', expiresAt: 'string?' }",
      subject: 'You are invited to join a team',
      heading: 'Join {variables.teamDisplayName}',
      body: 'You have been invited to join the team {variables.teamDisplayName} on {project.displayName}.',
      action: 'Accept the invitation',
    }),
  },
  sign_in_invitation: {
    id: '1a7c0001-0000-4000-8000-000000000005',
    displayName: 'Sign-in invitation',
    tsxSource: templateSource({
      schema: "{ link: 'string' }",
      subject: 'You are invited to sign in',
      heading: 'You are invited to {project.displayName}',
      body: 'You have been invited to sign in to {project.displayName}.',
      action: 'Sign in',
    }),
  },
} as const;

export type BuiltInTemplateType = keyof typeof BUILT_IN_TEMPLATES;
export const BUILT_IN_TEMPLATE_TYPES = Object.keys(BUILT_IN_TEMPLATES) as BuiltInTemplateType[];

/** A new owner template starts as a small example with a variable, to show the shape. */
export const NEW_TEMPLATE_SOURCE = `import { Heading, Text } from '@react-email/components';
import { Subject, NotificationCategory } from '@latch/emails';

export const variablesSchema = { greeting: 'string?' };

export function EmailTemplate({ user, project, variables }) {
  return (
    <>
      <Subject value={'News from ' + project.displayName} />
      <NotificationCategory value="Marketing" />
      <Heading as="h1">{variables.greeting || 'Hello'} {user.displayName || 'there'}</Heading>
      <Text>Write your message here.</Text>
    </>
  );
}
`;
