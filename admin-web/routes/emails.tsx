import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { z } from 'zod';
import { emailConfigSchema, emailConfigUpdateSchema } from '../../contract/schemas/projects.js';
import { sendSignInInvitationSchema, sendTestEmailSchema } from '../../contract/schemas/emails.js';
import type { EmailConfig, SendTestEmailResult } from '../../sdk/index.js';
import { saveConfig } from '../components/config.js';
import { InvitationForm, type InvitationInput, InvitationSent, projectHandlerUrl } from '../components/invitation-form.js';
import { Link, navigate } from '../components/router.js';
import {
  Card,
  Empty,
  ErrorMessage,
  Field,
  InlineForm,
  InlineInput,
  Modal,
  PageHeader,
  Pager,
  QueryView,
  SaveFooter,
  Table,
  fieldErrors,
  formatDate,
  useAction,
  useFormAction,
} from '../components/ui.js';
import { useOwner } from '../session.js';
import type { PageProps } from './page-props.js';

const STATE_BADGE = { sent: 'badge ok', pending: 'badge', failed: 'badge danger', 'not-delivered': 'badge warn' } as const;

/**
 * Email server (shared, or the project's own SMTP with a test button showing the server's error),
 * and the outbox: every email the project sent or would have sent. Without an SMTP server the
 * emails stay `not-delivered` here, which makes this the local inbox during development.
 */
export function EmailsPage({ projectId, admin, project, emailId }: PageProps & { emailId: string | null }) {
  return (
    <>
      <PageHeader title="Emails" description="Where emails are sent from, and what was sent." />
      <ServerCard admin={admin} config={project.config.email_config} />
      <InvitationCard admin={admin} domains={project.config.domains} />
      <ScheduledCard projectId={projectId} admin={admin} />
      <OutboxCard projectId={projectId} admin={admin} />
      {emailId ? <EmailDialog projectId={projectId} admin={admin} emailId={emailId} /> : null}
    </>
  );
}

type StoredConfig = PageProps['project']['config']['email_config'];
type EmailConfigUpdate = Extract<NonNullable<Parameters<typeof saveConfig>[1]['email_config']>, object>;

function ServerCard({ admin, config }: { admin: PageProps['admin']; config: StoredConfig }) {
  const owner = useOwner();
  const standard = config.type === 'standard' ? config : null;
  const [type, setType] = useState<'shared' | 'standard'>(config.type);
  const [host, setHost] = useState(standard?.host ?? '');
  const [port, setPort] = useState(String(standard?.port ?? 587));
  const [username, setUsername] = useState(standard?.username ?? '');
  // The saved password is never sent back (has_password says whether there is one): an empty field
  // keeps it, as long as host and username stay the same (the server's rule).
  const [password, setPassword] = useState('');
  const [senderName, setSenderName] = useState(standard?.sender_name ?? '');
  const [senderEmail, setSenderEmail] = useState(standard?.sender_email ?? '');
  const [recipient, setRecipient] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const saving = useAction((value: EmailConfigUpdate) => saveConfig(admin, { email_config: value }));
  const testing = useAction(async (to: string, value: EmailConfig) => setTestResult(await admin.sendTestEmail({ recipientEmail: to, emailConfig: value })));
  const [testResult, setTestResult] = useState<SendTestEmailResult | null>(null);

  const keepsPassword = password === '' && standard?.has_password === true;
  const current = (): EmailConfigUpdate =>
    type === 'shared'
      ? { type: 'shared' }
      : {
          type: 'standard',
          host: host.trim(),
          port: Number(port),
          username,
          ...(keepsPassword ? {} : { password }),
          sender_name: senderName.trim(),
          sender_email: senderEmail.trim(),
        };

  const check = <T,>(schema: z.ZodType<T>, value: EmailConfigUpdate): T | null => {
    const invalid = fieldErrors(schema, value);
    setErrors(invalid ?? {});
    return invalid ? null : (value as T);
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    const value = check<EmailConfigUpdate>(emailConfigUpdateSchema, current());
    if (value) void saving.run(value);
    else saving.reset();
  };

  const test = async () => {
    setTestResult(null);
    if (keepsPassword) {
      setErrors({ password: 'Enter the password to send a test email: the saved one is never sent back to the console.' });
      return;
    }
    const value = check<EmailConfig>(emailConfigSchema, current());
    if (!value) return;
    const to = recipient.trim() || owner.data?.primary_email || '';
    const invalid = fieldErrors(sendTestEmailSchema, { recipient_email: to, email_config: value });
    if (invalid?.recipient_email) {
      setErrors({ recipient: invalid.recipient_email });
      return;
    }
    testing.reset();
    await testing.run(to, value);
  };

  return (
    <Card title="Email server">
      <form className="form" onSubmit={save} noValidate>
        <fieldset className="stack" style={{ border: 'none', padding: 0, margin: 0 }}>
          <legend className="visually-hidden">Email server</legend>
          <label className="choice">
            <input type="radio" name="email-type" checked={type === 'shared'} onChange={() => setType('shared')} />
            <span>Shared — the deployment's default server (or the local inbox below when none is set)</span>
          </label>
          <label className="choice">
            <input type="radio" name="email-type" checked={type === 'standard'} onChange={() => setType('standard')} />
            <span>My own SMTP server</span>
          </label>
        </fieldset>
        {type === 'shared' ? (
          <p className="muted small" style={{ margin: 0 }}>
            A test email tries your own SMTP server, so it needs “My own SMTP server”. With the shared server, send yourself a sign-in invitation below: it goes
            through the deployment's server, or lands in the local inbox when none is set.
          </p>
        ) : null}
        {type === 'standard' ? (
          <>
            <div className="row" style={{ alignItems: 'flex-start' }}>
              <div style={{ flex: 3 }}>
                <Field label="SMTP host" error={errors.host}>
                  {(props) => <input {...props} type="text" value={host} onChange={(event) => setHost(event.target.value)} placeholder="smtp.example.com" />}
                </Field>
              </div>
              <div style={{ flex: 1 }}>
                <Field label="Port" error={errors.port}>
                  {(props) => <input {...props} type="number" value={port} onChange={(event) => setPort(event.target.value)} />}
                </Field>
              </div>
            </div>
            <Field label="Username" error={errors.username}>
              {(props) => <input {...props} type="text" autoComplete="off" value={username} onChange={(event) => setUsername(event.target.value)} />}
            </Field>
            <Field label="Password" error={errors.password} hint={standard?.has_password ? 'A password is stored; leave this empty to keep it.' : undefined}>
              {(props) => (
                <input {...props} type="password" autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />
              )}
            </Field>
            <Field label="Sender name" error={errors.sender_name}>
              {(props) => <input {...props} type="text" value={senderName} onChange={(event) => setSenderName(event.target.value)} />}
            </Field>
            <Field label="Sender email" error={errors.sender_email}>
              {(props) => <input {...props} type="email" value={senderEmail} onChange={(event) => setSenderEmail(event.target.value)} />}
            </Field>
            <div className="row" style={{ alignItems: 'flex-end' }}>
              <div style={{ flex: 1 }}>
                <Field label="Send a test email to" error={errors.recipient} hint={`Default: ${owner.data?.primary_email ?? 'your email'}`}>
                  {(props) => (
                    <input
                      {...props}
                      type="email"
                      value={recipient}
                      onChange={(event) => setRecipient(event.target.value)}
                      placeholder={owner.data?.primary_email ?? ''}
                    />
                  )}
                </Field>
              </div>
              <button type="button" className="button" onClick={() => void test()} disabled={testing.pending}>
                {testing.pending ? 'Sending…' : 'Send test email'}
              </button>
            </div>
            {testResult ? (
              testResult.success ? (
                <div className="alert alert-ok" role="status">
                  <strong>Test email sent.</strong>
                  <span>The SMTP server accepted it.</span>
                </div>
              ) : (
                <div className="alert alert-error" role="alert">
                  <strong>The SMTP server refused the test email</strong>
                  <code>{testResult.error_message}</code>
                </div>
              )
            ) : null}
          </>
        ) : null}
        <ErrorMessage error={testing.error} title="Could not save" />
        <SaveFooter action={saving} label="Save email server" />
      </form>
    </Card>
  );
}

function InvitationCard({ admin, domains }: { admin: PageProps['admin']; domains: PageProps['project']['config']['domains'] }) {
  const signInPage = projectHandlerUrl(domains, 'sign-in');
  const [sent, setSent] = useState<string | null>(null);
  const invite = useFormAction(sendSignInInvitationSchema, async (input: InvitationInput) => {
    await admin.sendSignInInvitation({ email: input.email, callbackUrl: input.callback_url });
    setSent(input.email);
  });
  return (
    <Card title="Invite someone to sign in">
      <InvitationForm
        emailLabel="Email address"
        callbackUrlLabel="Sign-in page of your app"
        callbackUrlHint="A trusted domain of the project (Domains)."
        initialCallbackUrl={signInPage}
        errors={invite.errors}
        send={(input) => (setSent(null), invite.submit(input))}
      />
      <InvitationSent to={sent} />
      <ErrorMessage error={invite.error} title="Could not send the invitation" />
    </Card>
  );
}

function OutboxCard({ projectId, admin }: { projectId: string; admin: PageProps['admin'] }) {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const emails = useQuery(
    {
      ...admin.sentEmailsQuery({ limit: 25, ...(cursor ? { cursor } : {}) }),
      placeholderData: keepPreviousData,
      staleTime: 10_000,
      refetchOnWindowFocus: true,
    },
    admin.queryClient,
  );
  return (
    <Card
      title="Sent emails"
      actions={
        <button type="button" className="button small" onClick={() => void emails.refetch()}>
          Refresh
        </button>
      }
    >
      <p className="muted" style={{ marginTop: 0 }}>
        Emails in state “not delivered” were kept here because no SMTP server is configured: this is your local inbox.
      </p>
      <QueryView query={emails} loadingLabel="Loading emails…">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title="No emails yet">Verification, password reset and magic link emails appear here.</Empty>
          ) : (
            <>
              <Table
                label="Sent emails"
                columns={['To', 'Subject', 'State', 'Sent at', 'Error', 'Created']}
                items={page.items}
                row={(email) => (
                  <tr key={email.id} className="clickable" onClick={() => navigate(`/projects/${projectId}/emails/${email.id}`)}>
                    <td>{email.to}</td>
                    <td>
                      <Link href={`/projects/${projectId}/emails/${email.id}`} onClick={(event) => event.stopPropagation()}>
                        {email.subject}
                      </Link>
                    </td>
                    <td>
                      <span className={STATE_BADGE[email.state]} title={email.error ?? undefined}>
                        {email.state}
                      </span>
                    </td>
                    <td>{formatDate(email.sent_at_millis)}</td>
                    <td className="small">{email.error ?? ''}</td>
                    <td>{formatDate(email.created_at_millis)}</td>
                  </tr>
                )}
              />
              <Pager label="Pages of emails" cursors={cursors} onCursors={setCursors} next={page.pagination.next_cursor} />
            </>
          )
        }
      </QueryView>
    </Card>
  );
}

/** send-email calls scheduled for later (drafts sent from the email editor with "Send later"), until they go out. */
function ScheduledCard({ projectId, admin }: { projectId: string; admin: PageProps['admin'] }) {
  const scheduled = useQuery({ queryKey: ['console', 'email-content', 'scheduled'], queryFn: () => admin.listScheduledEmails() }, admin.queryClient);
  if (!scheduled.data || scheduled.data.length === 0) return null;
  return (
    <Card title="Scheduled">
      <Table
        label="Scheduled emails"
        columns={['Goes out', 'What', 'Recipients']}
        items={scheduled.data}
        row={(send) => (
          <tr key={send.id}>
            <td>
              <span className="badge">scheduled</span> {formatDate(send.scheduled_at_millis)}
            </td>
            <td>
              {send.draft_id ? (
                <Link href={`/projects/${projectId}/email-editor/draft:${send.draft_id}`}>Draft</Link>
              ) : send.template_id ? (
                <Link href={`/projects/${projectId}/email-editor/template:${send.template_id}`}>Template</Link>
              ) : (
                'HTML'
              )}
              {send.subject ? ` · ${send.subject}` : ''}
            </td>
            <td>{send.recipient_count}</td>
          </tr>
        )}
      />
    </Card>
  );
}

function EmailDialog({ projectId, admin, emailId }: { projectId: string; admin: PageProps['admin']; emailId: string }) {
  const email = useQuery({ queryKey: ['console', 'email', emailId], queryFn: () => admin.getSentEmail(emailId) }, admin.queryClient);
  const close = () => navigate(`/projects/${projectId}/emails`);
  return (
    <Modal title={email.data?.subject ?? 'Email'} open onClose={close} wide>
      <QueryView query={email} loadingLabel="Loading the email…">
        {(data) =>
          data === null ? (
            <Empty title="No such email" />
          ) : (
            <div className="stack">
              <div className="small muted">
                To {data.to} · created {formatDate(data.created_at_millis)} · sent {formatDate(data.sent_at_millis)} ·{' '}
                <span className={STATE_BADGE[data.state]}>{data.state}</span>
              </div>
              {data.error ? (
                <div className={data.state === 'not-delivered' ? 'alert alert-warn' : 'alert alert-error'} role="note">
                  <strong>{data.state === 'not-delivered' ? 'Kept in the local inbox' : 'Delivery failed'}</strong>
                  <span>{data.error}</span>
                </div>
              ) : null}
              {/* The email's own HTML, isolated: a sandboxed frame with no scripts and no access to the console. */}
              <iframe className="email-frame" title={`Email: ${data.subject}`} sandbox="" srcDoc={data.html} />
              <details>
                <summary>Plain text</summary>
                <pre className="code">{data.text}</pre>
              </details>
            </div>
          )
        }
      </QueryView>
    </Modal>
  );
}
