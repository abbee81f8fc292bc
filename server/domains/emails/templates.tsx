import { Body, Button, Container, Head, Heading, Hr, Html, Img, Link, Preview, Section, Text } from '@react-email/components';
import type { ReactNode } from 'react';

/**
 * The built-in emails as React Email components. Everything user-controlled (project and team
 * names, links) goes in as text or attribute values, which React escapes; nothing is injected as
 * raw HTML. compose.tsx (loaded on the first email) turns them into HTML and plain text; a later issue makes them editable.
 */

/** Who the email comes from, shown in the header. */
export interface EmailBranding {
  projectDisplayName: string;
  /** Square logo, shown next to the name. */
  logoUrl: string | null;
  /** Logo with the name in it, shown alone. */
  fullLogoUrl: string | null;
}

/**
 * Only http(s) logos go into emails: a base64 data URL (allowed for logos, up to 1e6 characters)
 * would make every email huge, and most mail clients refuse to show one anyway.
 */
function emailImage(url: string | null): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}

const colors = { text: '#1f2328', muted: '#59636e', border: '#d1d9e0', button: '#1f2328', buttonText: '#ffffff', codeBackground: '#f6f8fa' };

const styles = {
  body: { backgroundColor: '#ffffff', color: colors.text, fontFamily: '-apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif' },
  container: { maxWidth: '520px', margin: '0 auto', padding: '24px 16px' },
  brandName: { fontSize: '18px', fontWeight: 600, margin: '0' },
  heading: { fontSize: '22px', fontWeight: 600, margin: '24px 0 12px' },
  text: { fontSize: '15px', lineHeight: '24px', margin: '12px 0' },
  button: {
    backgroundColor: colors.button,
    color: colors.buttonText,
    borderRadius: '6px',
    fontSize: '15px',
    fontWeight: 600,
    padding: '12px 20px',
    textDecoration: 'none',
  },
  code: {
    backgroundColor: colors.codeBackground,
    borderRadius: '6px',
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace',
    fontSize: '28px',
    fontWeight: 700,
    letterSpacing: '6px',
    padding: '12px 16px',
    textAlign: 'center' as const,
    margin: '16px 0',
  },
  small: { color: colors.muted, fontSize: '13px', lineHeight: '20px', margin: '8px 0' },
  link: { color: colors.muted, wordBreak: 'break-all' as const },
  hr: { borderColor: colors.border, margin: '24px 0 12px' },
};

function Header({ branding }: { branding: EmailBranding }) {
  const fullLogo = emailImage(branding.fullLogoUrl);
  const logo = emailImage(branding.logoUrl);
  if (fullLogo) return <Img src={fullLogo} alt={branding.projectDisplayName} height="40" />;
  return (
    <Section>
      {logo ? (
        <Img src={logo} alt="" width="40" height="40" style={{ display: 'inline-block', verticalAlign: 'middle', marginRight: '10px', borderRadius: '8px' }} />
      ) : null}
      <Text style={{ ...styles.brandName, display: 'inline-block', verticalAlign: 'middle' }}>{branding.projectDisplayName}</Text>
    </Section>
  );
}

function Layout({ branding, preview, title, children }: { branding: EmailBranding; preview: string; title: string; children: ReactNode }) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={styles.body}>
        <Container style={styles.container}>
          <Header branding={branding} />
          <Heading as="h1" style={styles.heading}>
            {title}
          </Heading>
          {children}
          <Hr style={styles.hr} />
          <Text style={styles.small}>You received this email from {branding.projectDisplayName}. If you did not expect it, you can ignore it.</Text>
        </Container>
      </Body>
    </Html>
  );
}

/** The button, then the same link as text for clients that hide buttons. */
function Action({ link, label }: { link: string; label: string }) {
  return (
    <>
      <Section style={{ margin: '20px 0' }}>
        <Button href={link} style={styles.button}>
          {label}
        </Button>
      </Section>
      <Text style={styles.small}>
        Or open this link:{' '}
        <Link href={link} style={styles.link}>
          {link}
        </Link>
      </Text>
    </>
  );
}

function Expiry({ expiresAt }: { expiresAt: Date | null }) {
  return expiresAt ? <Text style={styles.small}>This link expires on {expiresAt.toUTCString()}.</Text> : null;
}

export function EmailVerificationEmail({ branding, link, expiresAt }: { branding: EmailBranding; link: string; expiresAt: Date | null }) {
  return (
    <Layout branding={branding} preview={`Verify your email for ${branding.projectDisplayName}`} title="Verify your email">
      <Text style={styles.text}>Confirm that this email address belongs to you to finish setting up your {branding.projectDisplayName} account.</Text>
      <Action link={link} label="Verify email" />
      <Expiry expiresAt={expiresAt} />
    </Layout>
  );
}

export function PasswordResetEmail({ branding, link, expiresAt }: { branding: EmailBranding; link: string; expiresAt: Date | null }) {
  return (
    <Layout branding={branding} preview={`Reset your password for ${branding.projectDisplayName}`} title="Reset your password">
      <Text style={styles.text}>
        Someone asked to reset the password of your {branding.projectDisplayName} account. If it was you, choose a new password here; your other sessions will
        be signed out.
      </Text>
      <Action link={link} label="Reset password" />
      <Expiry expiresAt={expiresAt} />
      <Text style={styles.small}>If you did not ask for this, ignore this email: your password stays as it is.</Text>
    </Layout>
  );
}

export function MagicLinkEmail({ branding, link, otp, expiresAt }: { branding: EmailBranding; link: string; otp: string; expiresAt: Date | null }) {
  return (
    <Layout branding={branding} preview={`Your sign-in code is ${otp}`} title={`Sign in to ${branding.projectDisplayName}`}>
      <Text style={styles.text}>Enter this code on the sign-in page:</Text>
      <Text style={styles.code}>{otp}</Text>
      <Text style={styles.text}>Or sign in with one click:</Text>
      <Action link={link} label="Sign in" />
      <Expiry expiresAt={expiresAt} />
    </Layout>
  );
}

export function TeamInvitationEmail({
  branding,
  link,
  teamDisplayName,
  expiresAt,
}: {
  branding: EmailBranding;
  link: string;
  teamDisplayName: string;
  expiresAt: Date | null;
}) {
  return (
    <Layout branding={branding} preview={`You are invited to join ${teamDisplayName}`} title={`Join ${teamDisplayName}`}>
      <Text style={styles.text}>
        You have been invited to join the team {teamDisplayName} on {branding.projectDisplayName}.
      </Text>
      <Action link={link} label="Accept the invitation" />
      <Expiry expiresAt={expiresAt} />
    </Layout>
  );
}

export function SignInInvitationEmail({ branding, link }: { branding: EmailBranding; link: string }) {
  return (
    <Layout branding={branding} preview={`You are invited to ${branding.projectDisplayName}`} title={`You are invited to ${branding.projectDisplayName}`}>
      <Text style={styles.text}>You have been invited to sign in to {branding.projectDisplayName}.</Text>
      <Action link={link} label="Sign in" />
    </Layout>
  );
}

export function TestEmail({ branding }: { branding: EmailBranding }) {
  return (
    <Layout branding={branding} preview="Your email server works" title="Your email server works">
      <Text style={styles.text}>This is a test email from {branding.projectDisplayName}. Its email server settings delivered it.</Text>
    </Layout>
  );
}

/**
 * To a project's owners (sent from the deployment's own project, whose name is in the header): one
 * of their webhook endpoints failed for days and was disabled. The endpoint is named by host and
 * path only: a query string may carry the receiver's own token.
 */
export function WebhookEndpointDisabledEmail({
  branding,
  link,
  projectDisplayName,
  endpoint,
  reason,
}: {
  branding: EmailBranding;
  link: string;
  projectDisplayName: string;
  endpoint: string;
  reason: string;
}) {
  return (
    <Layout branding={branding} preview="A webhook endpoint was disabled" title="A webhook endpoint was disabled">
      <Text style={styles.text}>
        The webhook endpoint {endpoint} of your project {projectDisplayName} was disabled.
      </Text>
      <Text style={styles.text}>{reason}</Text>
      <Text style={styles.text}>
        Events that happen while it is disabled are not sent to it. Once it is enabled again, you can replay them from the console.
      </Text>
      <Action link={link} label="Open the webhooks of the project" />
    </Layout>
  );
}
