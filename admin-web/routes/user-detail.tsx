import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { serverUserUpdateSchema } from '../../contract/schemas/users.js';
import { contactChannelCreateSchema } from '../../contract/schemas/contact-channels.js';
import type { ServerUser } from '../../sdk/index.js';
import { ApiKeyListCard } from '../components/key-list.js';
import { MetadataEditor } from '../components/metadata-editor.js';
import { MfaCard } from '../components/mfa-card.js';
import { PasskeysCard } from '../components/passkeys-card.js';
import { Link, navigate } from '../components/router.js';
import {
  Card,
  ConfirmButton,
  CopyButton,
  DataTable,
  Empty,
  ErrorMessage,
  Field,
  InlineForm,
  InlineInput,
  Modal,
  PageHeader,
  QueryView,
  SaveFooter,
  SavedCheckbox,
  SmallButton,
  TableCard,
  formatDate,
  useAction,
  useFormAction,
} from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** One user: profile, emails, two-factor status and reset, passkeys, metadata, connected accounts (unlink), sessions (revoke), impersonation and deletion. */
export function UserDetailPage({ projectId, admin, project, userId }: PageProps & { userId: string }) {
  const user = useQuery(admin.userQuery(userId), admin.queryClient);
  return (
    <QueryView query={user} loadingLabel="Loading the user…">
      {(data) =>
        data === null ? (
          <Empty title="No such user">
            <Link href={`/projects/${projectId}/users`}>Back to users</Link>
          </Empty>
        ) : (
          <UserDetail projectId={projectId} admin={admin} project={project} user={data} />
        )
      }
    </QueryView>
  );
}

function UserDetail({ projectId, admin, project, user }: { projectId: string; admin: PageProps['admin']; project: PageProps['project']; user: ServerUser }) {
  const [impersonating, setImpersonating] = useState(false);
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}/users`}>← Users</Link>
      </p>
      <PageHeader
        title={user.display_name || user.primary_email || 'Unnamed user'}
        description={<span className="mono small">{user.id}</span>}
        actions={
          <>
            <button type="button" className="button" onClick={() => setImpersonating(true)}>
              Impersonate
            </button>
            <ConfirmButton
              label="Delete user"
              title="Delete this user?"
              message={
                <p>
                  This deletes <strong>{user.primary_email ?? user.id}</strong>, their sessions, team memberships and API keys. It cannot be undone.
                </p>
              }
              onConfirm={async () => {
                await admin.deleteUserById(user.id);
                navigate(`/projects/${projectId}/users`);
              }}
            />
          </>
        }
      />
      <ImpersonateDialog admin={admin} project={project} user={user} open={impersonating} onClose={() => setImpersonating(false)} />
      <ProfileCard admin={admin} user={user} />
      <EmailsCard admin={admin} user={user} />
      <PasswordCard admin={admin} user={user} />
      <MfaCard admin={admin} user={user} />
      <MetadataEditor values={user} schema={serverUserUpdateSchema} onSave={(patch) => admin.updateUserById(user.id, patch)} />
      <AccessCard projectId={projectId} admin={admin} userId={user.id} />
      {user.oauth_providers.length ? <ConnectedAccountsCard admin={admin} userId={user.id} /> : null}
      <SessionsCard admin={admin} userId={user.id} />
      <PasskeysCard admin={admin} userId={user.id} />
      <UserKeysCard admin={admin} userId={user.id} />
    </>
  );
}

function ProfileCard({ admin, user }: { admin: PageProps['admin']; user: ServerUser }) {
  const [displayName, setDisplayName] = useState(user.display_name ?? '');
  const save = useFormAction(serverUserUpdateSchema, (patch: { display_name: string | null }) => admin.updateUserById(user.id, patch));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.submit({ display_name: displayName.trim() || null });
  };
  return (
    <Card title="Profile">
      <form className="form" onSubmit={submit} noValidate>
        <Field label="Display name" error={save.errors.display_name}>
          {(props) => <input {...props} type="text" value={displayName} onChange={(event) => setDisplayName(event.target.value)} />}
        </Field>
        <dl className="row small muted" style={{ gap: 24, margin: 0 }}>
          <div>
            <dt>Signed up</dt>
            <dd style={{ margin: 0 }}>{formatDate(user.signed_up_at_millis)}</dd>
          </div>
          <div>
            <dt>Last active</dt>
            <dd style={{ margin: 0 }}>{formatDate(user.last_active_at_millis)}</dd>
          </div>
          <div>
            <dt>Password</dt>
            <dd style={{ margin: 0 }}>{user.has_password ? 'set' : 'none'}</dd>
          </div>
          <div>
            <dt>Anonymous</dt>
            <dd style={{ margin: 0 }}>{user.is_anonymous ? 'yes' : 'no'}</dd>
          </div>
        </dl>
        <SaveFooter action={save} label="Save profile" />
      </form>
    </Card>
  );
}

function PasswordCard({ admin, user }: { admin: PageProps['admin']; user: ServerUser }) {
  const [password, setPassword] = useState('');
  const save = useFormAction(serverUserUpdateSchema, async (input: { password: string }) => {
    // The server checks the length rules and signs the user out everywhere.
    await admin.updateUserById(user.id, input);
    setPassword('');
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.submit({ password });
  };
  return (
    <Card title="Password">
      <InlineForm
        onSubmit={submit}
        submitLabel="Set password"
        align="end"
        after={
          save.done ? (
            <span className="muted" role="status">
              Password set.
            </span>
          ) : null
        }
      >
        <InlineInput
          label={user.has_password ? 'Set a new password' : 'Set a password'}
          error={save.errors.password}
          hint="The user is signed out of every session."
          type="password"
          autoComplete="new-password"
          value={password}
          onValue={setPassword}
          style={{ flex: 1, maxWidth: 360 }}
        />
      </InlineForm>
      <ErrorMessage error={save.error} title="Could not set the password" />
    </Card>
  );
}

function EmailsCard({ admin, user }: { admin: PageProps['admin']; user: ServerUser }) {
  const channels = useQuery(admin.contactChannelsQuery({ userId: user.id }), admin.queryClient);
  const [value, setValue] = useState('');
  const adding = useFormAction(contactChannelCreateSchema, async (input: { type: 'email'; value: string; used_for_auth: boolean; is_verified: boolean }) => {
    await admin.createContactChannel(input, { userId: user.id });
    setValue('');
  });
  const add = (event: FormEvent) => {
    event.preventDefault();
    const input = { type: 'email' as const, value: value.trim(), used_for_auth: true, is_verified: false };
    void adding.submit(input, { ...input, user_id: user.id });
  };
  const acting = useAction((action: () => Promise<unknown>) => action());
  const act = acting.run;
  return (
    <Card title="Emails">
      <DataTable
        query={channels}
        loadingLabel="Loading emails…"
        empty={<Empty title="No email addresses" />}
        label="Email addresses"
        columns={[
          { title: 'Address', cell: (channel) => channel.value },
          {
            title: 'Status',
            className: 'row',
            cell: (channel) => (
              <>
                {channel.is_primary ? <span className="badge ok">primary</span> : null}
                {channel.is_verified ? <span className="badge ok">verified</span> : <span className="badge">unverified</span>}
                {channel.used_for_auth ? <span className="badge">sign-in</span> : null}
              </>
            ),
          },
        ]}
        actions={(channel) => (
          <>
            {!channel.is_verified ? (
              <SmallButton onClick={() => void act(() => admin.updateContactChannel(channel.id, { is_verified: true }, { userId: user.id }))}>
                Mark verified
              </SmallButton>
            ) : null}
            {!channel.is_primary ? (
              <SmallButton onClick={() => void act(() => admin.updateContactChannel(channel.id, { is_primary: true }, { userId: user.id }))}>
                Make primary
              </SmallButton>
            ) : null}
          </>
        )}
        remove={{
          label: 'Remove',
          title: 'Remove this email?',
          message: (channel) => <p>{channel.value} will no longer be able to sign in to this account.</p>,
          run: (channel) => admin.deleteContactChannel(channel.id, { userId: user.id }),
        }}
      />
      <InlineForm onSubmit={add} submitLabel="Add email" align="end" spaced>
        <InlineInput label="Add an email" error={adding.errors.value} type="email" value={value} onValue={setValue} style={{ flex: 1, maxWidth: 360 }} />
      </InlineForm>
      <ErrorMessage error={adding.error ?? acting.error} />
    </Card>
  );
}

function SessionsCard({ admin, userId }: { admin: PageProps['admin']; userId: string }) {
  const sessions = useQuery(admin.sessionsQuery({ userId }), admin.queryClient);
  return (
    <TableCard
      title="Sessions"
      query={sessions}
      loadingLabel="Loading sessions…"
      empty={<Empty title="No active sessions">The user is signed out everywhere.</Empty>}
      columns={[
        {
          title: 'Started',
          cell: (session) => (
            <>
              {formatDate(session.created_at)} {session.is_impersonation ? <span className="badge warn">impersonation</span> : null}
            </>
          ),
        },
        { title: 'Last used', cell: (session) => formatDate(session.last_used_at) },
        { title: 'IP', cell: (session) => session.last_used_at_end_user_ip_info?.ip ?? '—', className: 'mono small' },
      ]}
      remove={{
        label: 'Revoke',
        title: 'Revoke this session?',
        message: () => <p>The device using it is signed out at its next refresh (within 10 minutes).</p>,
        run: (session) => admin.revokeSession(session.id, { userId }),
      }}
    />
  );
}

/** The user's OAuth provider accounts (spec section 3): what they sign in with, and unlinking. */
function ConnectedAccountsCard({ admin, userId }: { admin: PageProps['admin']; userId: string }) {
  const accounts = useQuery(admin.oauthProvidersQuery({ userId }), admin.queryClient);
  return (
    <TableCard
      title="Connected accounts"
      query={accounts}
      loadingLabel="Loading connected accounts…"
      empty={<Empty title="No connected accounts">The user has not signed in with an OAuth provider.</Empty>}
      columns={[
        { title: 'Provider', cell: (account) => account.type },
        { title: 'Email', cell: (account) => account.email ?? '—' },
        { title: 'Account ID', cell: (account) => account.account_id ?? '—', className: 'mono small' },
        {
          title: 'Use',
          cell: (account) => (
            <>
              {account.allow_sign_in ? <span className="badge ok">sign-in</span> : null}{' '}
              {account.allow_connected_accounts ? <span className="badge">tokens</span> : null}
            </>
          ),
        },
      ]}
      remove={{
        label: 'Unlink',
        title: (account) => `Unlink this ${account.type} account?`,
        message: () => <p>The user can no longer sign in with it, and its stored provider tokens are deleted.</p>,
        run: (account) => admin.deleteOAuthProvider(account.id, { userId }),
      }}
    />
  );
}

/** The user's teams (links) and project permissions granted directly (grant and revoke here). */
function AccessCard({ projectId, admin, userId }: { projectId: string; admin: PageProps['admin']; userId: string }) {
  const teams = useQuery(admin.teamsQuery({ userId }), admin.queryClient);
  const definitions = useQuery(admin.projectPermissionDefinitionsQuery(), admin.queryClient);
  const granted = useQuery(admin.projectPermissionsQuery({ userId, recursive: false }), admin.queryClient);
  const toggle = useAction((id: string, on: boolean) => (on ? admin.grantProjectPermission(userId, id) : admin.revokeProjectPermission(userId, id)));
  return (
    <Card title="Teams and project permissions">
      <div className="two">
        <div className="stack">
          <strong>Teams</strong>
          <QueryView query={teams} loadingLabel="Loading teams…">
            {(items) =>
              items.length === 0 ? (
                <span className="muted">Not in any team.</span>
              ) : (
                <ul style={{ margin: 0, paddingLeft: 18 }}>
                  {items.map((team) => (
                    <li key={team.id}>
                      <Link href={`/projects/${projectId}/teams/${team.id}`}>{team.display_name}</Link>
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
        </div>
        <fieldset className="stack" style={{ border: 'none', padding: 0, margin: 0 }}>
          <legend>
            <strong>Project permissions</strong>
          </legend>
          <QueryView query={definitions} loadingLabel="Loading permissions…">
            {(items) => (
              <QueryView query={granted}>
                {(grants) => {
                  const held = new Set(grants.map((grant) => grant.id));
                  return items.length === 0 ? (
                    <span className="muted">No project permissions are defined (Permissions page).</span>
                  ) : (
                    <>
                      {items.map((definition) => (
                        <SavedCheckbox
                          key={definition.id}
                          label={<code>{definition.id}</code>}
                          checked={held.has(definition.id)}
                          onChange={(checked) => toggle.run(definition.id, checked)}
                        />
                      ))}
                    </>
                  );
                }}
              </QueryView>
            )}
          </QueryView>
          <ErrorMessage error={toggle.error} title="Could not change the permission" />
        </fieldset>
      </div>
    </Card>
  );
}

function UserKeysCard({ admin, userId }: { admin: PageProps['admin']; userId: string }) {
  const keys = useQuery(admin.userApiKeysQuery({ userId }), admin.queryClient);
  return <ApiKeyListCard admin={admin} title="User API keys" query={keys} enabledBy="allow_user_api_keys" onRevoke={(id) => admin.revokeUserApiKey(id)} />;
}

/** The app pages an impersonation can open: each trusted domain's handler, or a typed one while localhost is allowed. */
function handlerUrls(project: PageProps['project']): string[] {
  return project.config.domains.map((entry) => `${entry.domain.replace(/\/+$/, '')}${entry.handler_path.replace(/\/+$/, '')}`);
}

/**
 * Impersonation (README "Impersonation"): after a confirmation, a single-use 60-second code opens
 * the project's own app at /handler/impersonate in a new tab, signed in as this user with a banner
 * to end it. The console never shows a token. The tab is opened in the click itself (so no popup
 * blocker stops it) and pointed at the app once the code exists; it gets no opener.
 */
function ImpersonateDialog({
  admin,
  project,
  user,
  open,
  onClose,
}: {
  admin: PageProps['admin'];
  project: PageProps['project'];
  user: ServerUser;
  open: boolean;
  onClose: () => void;
}) {
  const choices = handlerUrls(project);
  const [handler, setHandler] = useState(choices[0] ?? 'http://localhost:3000/handler');
  const [opened, setOpened] = useState<string | null>(null);
  const start = useAction(async () => {
    const tab = window.open('about:blank', '_blank');
    try {
      const { code } = await admin.createImpersonationCode(user.id);
      const url = `${handler.replace(/\/+$/, '')}/impersonate?code=${encodeURIComponent(code)}`;
      if (!tab) throw new Error('The browser blocked the new tab. Allow pop-ups for the console and try again.');
      tab.opener = null;
      tab.location.href = url;
      setOpened(handler);
    } catch (error) {
      tab?.close();
      throw error;
    }
  });
  const close = () => {
    setOpened(null);
    onClose();
  };
  return (
    <Modal title="Impersonate this user?" open={open} onClose={close}>
      <div className="stack">
        <p>
          Opens your app in a new tab signed in as <strong>{user.primary_email ?? user.display_name ?? user.id}</strong>, with a banner to end it. Everything
          you do there is done as this user; the session is marked as an impersonation in their session list and lasts at most one hour.
        </p>
        {choices.length > 1 || choices.length === 0 ? (
          <Field label="Your app's handler">
            {(props) =>
              choices.length > 1 ? (
                <select {...props} className="input" value={handler} onChange={(event) => setHandler(event.target.value)}>
                  {choices.map((choice) => (
                    <option key={choice} value={choice}>
                      {choice}
                    </option>
                  ))}
                </select>
              ) : (
                <input {...props} className="input" value={handler} onChange={(event) => setHandler(event.target.value)} />
              )
            }
          </Field>
        ) : (
          <p className="muted small">
            Opens <span className="mono">{choices[0]}/impersonate</span>.
          </p>
        )}
        {choices.length === 0 ? <p className="muted small">The project has no trusted domain yet (Domains): type where your app's handler runs.</p> : null}
        <ErrorMessage error={start.error} title="Could not impersonate" />
        {opened ? <p role="status">Opened {opened}/impersonate in a new tab.</p> : null}
        <div className="actions end">
          <button type="button" className="button" onClick={close}>
            {opened ? 'Done' : 'Cancel'}
          </button>
          <button type="button" className="button primary" disabled={start.pending} onClick={() => void start.run()}>
            Open as this user
          </button>
        </div>
      </div>
    </Modal>
  );
}
