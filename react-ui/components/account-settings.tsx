/**
 * Account settings: profile (display name, image), emails (contact channels), password, two-factor
 * authentication (two-factor.tsx), passkeys, sessions, billing (billing.tsx), teams, connected accounts (OAuth), API keys
 * and account deletion, each section shown when the project allows it. Every
 * change goes through the SDK, which updates or invalidates its cache: the rest of the page (and
 * the user button, and every `useUser`) shows it at once.
 */
import { useSuspenseQuery } from '@tanstack/react-query';
import { type ChangeEvent, type FormEvent, type ReactNode, type SetStateAction, Suspense, useId, useState } from 'react';
import { type ClientUser, KnownErrors } from '../../sdk/index.js';
import { useApp, useLatchContext, useProject, useUser } from '../hooks.js';
import { absoluteUrl } from '../location.js';
import {
  MESSAGES,
  PROFILE_IMAGE_MAX_BYTES,
  validateDisplayName,
  validateEmail,
  validateForm,
  validatePassword,
  validatePasswordConfirmation,
  validateProfileImage,
  validateTeamName,
} from '../validation.js';
import { TwoFactorSettings } from './two-factor.js';
import { PasskeysSection } from './passkeys.js';
import { OAuthProviderIcon, oauthProviderName } from './oauth-buttons.js';
import {
  Alert,
  Avatar,
  Button,
  CurrentPasswordField,
  EmailField,
  Field,
  Link,
  Loading,
  NewPasswordFields,
  Page,
  dataOf,
  errorMessage,
  useNewPassword,
} from './ui.js';
import { ApiKeysSection, Feedback, OneFieldForm, RowButton, Section, SubmitRow, useAction, useOneFieldForm } from './settings-parts.js';
import { TeamManagement } from './team-management.js';
import { BillingSection } from './billing.js';

/** Reads an image file's size and dimensions, for the under-100-KB-and-square rule. */
async function readImage(file: File): Promise<{ dataUrl: string; width: number; height: number }> {
  const dataUrl = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the file.'));
    reader.readAsDataURL(file);
  });
  const image = new Image();
  image.src = dataUrl;
  await image.decode().catch(() => {
    throw new Error(MESSAGES.imageNotImage);
  });
  return { dataUrl, width: image.naturalWidth, height: image.naturalHeight };
}

function ProfileSection({ user }: { user: ClientUser }) {
  const app = useApp();
  const save = useAction();
  const image = useAction();
  const name = useOneFieldForm(save, {
    initial: user.display_name ?? '',
    check: validateDisplayName,
    save: async (trimmed) => {
      await app.updateUser({ display_name: trimmed || null });
      return 'Display name saved.';
    },
  });
  const chooseImage = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    void image.run(async () => {
      if (!file.type.startsWith('image/')) throw new Error(MESSAGES.imageNotImage);
      // Refuse a big file before decoding it.
      if (file.size >= PROFILE_IMAGE_MAX_BYTES) throw new Error(MESSAGES.imageTooLarge);
      const read = await readImage(file);
      const invalid = validateProfileImage({ type: file.type, bytes: file.size, width: read.width, height: read.height });
      if (invalid) throw new Error(invalid);
      await app.updateUser({ profile_image_url: read.dataUrl });
      return 'Profile image saved.';
    });
  };
  const label = user.display_name ?? user.primary_email ?? 'You';
  return (
    <Section title="Profile">
      <div className="latch-row" style={{ marginBottom: 16 }}>
        <Avatar name={label} imageUrl={user.profile_image_url} large />
        <div className="latch-field">
          <label className="latch-button latch-button-secondary latch-button-small latch-file-button">
            Upload image
            <input className="latch-sr-only" type="file" accept="image/*" onChange={chooseImage} disabled={image.pending} aria-describedby="latch-image-hint" />
          </label>
          <p className="latch-hint" id="latch-image-hint">
            Square, under 100 KB.
          </p>
        </div>
        {user.profile_image_url ? (
          <Button
            variant="secondary"
            size="small"
            loading={image.pending}
            onClick={() => void image.run(async () => (await app.updateUser({ profile_image_url: null }), 'Profile image removed.'))}
          >
            Remove image
          </Button>
        ) : null}
      </div>
      <Feedback error={image.error} done={image.done} />
      <OneFieldForm form={name} action={save} label="Display name" submitLabel="Save">
        <Field
          label="Display name"
          name="display-name"
          autoComplete="name"
          value={name.value}
          onChange={(e) => name.onValue(e.target.value)}
          error={name.error}
        />
      </OneFieldForm>
    </Section>
  );
}

function EmailsSection() {
  const app = useApp();
  const { urls } = useLatchContext();
  const channels = useSuspenseQuery(app.contactChannelsQuery()).data;
  const row = useAction();
  const add = useAction();
  const callbackUrl = () => absoluteUrl(urls.emailVerification);
  const email = useOneFieldForm(add, {
    check: validateEmail,
    save: async (trimmed) => {
      const channel = await app.createContactChannel({ type: 'email', value: trimmed, used_for_auth: false });
      await app.sendContactChannelVerificationEmail(channel.id, { callbackUrl: callbackUrl() });
      return `Added ${trimmed}. We sent it a verification link.`;
    },
    emptyOnSave: true,
  });
  return (
    <Section title="Emails">
      <ul className="latch-list">
        {channels.map((channel) => (
          <li key={channel.id} className="latch-list-item">
            <span>
              {channel.value}
              {channel.is_primary ? <span className="latch-badge">Primary</span> : null}
              {channel.is_verified ? <span className="latch-badge latch-badge-success">Verified</span> : <span className="latch-badge">Unverified</span>}
            </span>
            <span className="latch-row">
              {!channel.is_verified ? (
                <RowButton
                  action={row}
                  run={async () => {
                    dataOf(await app.sendContactChannelVerificationEmail(channel.id, { callbackUrl: callbackUrl() }));
                    return `Verification link sent to ${channel.value}.`;
                  }}
                >
                  Send verification link
                </RowButton>
              ) : null}
              {!channel.is_primary && channel.is_verified ? (
                <RowButton
                  action={row}
                  run={async () => (await app.updateContactChannel(channel.id, { is_primary: true }), `${channel.value} is now your primary email.`)}
                >
                  Make primary
                </RowButton>
              ) : null}
              {!channel.is_primary ? (
                <RowButton
                  action={row}
                  label={`Remove ${channel.value}`}
                  run={async () => (await app.deleteContactChannel(channel.id), `Removed ${channel.value}.`)}
                >
                  Remove
                </RowButton>
              ) : null}
            </span>
          </li>
        ))}
      </ul>
      <Feedback error={row.error} done={row.done} />
      <OneFieldForm form={email} action={add} label="Add an email" submitLabel="Add email" secondary>
        <EmailField label="Add an email" name="new-email" value={email.value} onValue={email.onValue} error={email.error} />
      </OneFieldForm>
    </Section>
  );
}

/** The server answers a wrong current password with PASSWORD_CONFIRMATION_MISMATCH ('Passwords do not match.'): say what it means. */
export const WRONG_CURRENT_PASSWORD = 'Your current password is not correct.';

function PasswordSection({ user }: { user: ClientUser }) {
  const app = useApp();
  const [current, setCurrent] = useState('');
  const newPassword = useNewPassword();
  const [errors, setErrors] = useState<{ current?: string; password?: string; confirmation?: string }>({});
  const action = useAction();
  // A field's message goes as soon as it is edited: no red border on a value that may be fine now.
  const edited = (field: 'current' | 'password' | 'confirmation') => setErrors(({ [field]: _, ...rest }) => rest);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateForm({
      current: () => (user.has_password ? validatePassword(current) : null),
      password: () => validatePassword(newPassword.password),
      confirmation: () => validatePasswordConfirmation(newPassword.password, newPassword.confirmation),
    });
    setErrors(found);
    if (Object.keys(found).length) return action.clear();
    void action.run(async () => {
      const result = user.has_password
        ? await app.updatePassword({ old_password: current, new_password: newPassword.password })
        : await app.setPassword({ password: newPassword.password });
      if (result.status === 'error') {
        if (result.error instanceof KnownErrors.PasswordConfirmationMismatch) {
          setErrors({ current: WRONG_CURRENT_PASSWORD });
          return null;
        }
        throw result.error;
      }
      setCurrent('');
      newPassword.clear();
      return user.has_password ? 'Password changed. Your other sessions were signed out.' : 'Password set.';
    });
  };
  const value = {
    ...newPassword,
    setPassword: (next: SetStateAction<string>) => (newPassword.setPassword(next), edited('password')),
    setConfirmation: (next: SetStateAction<string>) => (newPassword.setConfirmation(next), edited('confirmation')),
  };
  return (
    <Section title="Password">
      <form className="latch-form" onSubmit={submit} noValidate aria-label={user.has_password ? 'Change password' : 'Set a password'}>
        {user.has_password ? (
          <CurrentPasswordField
            label="Current password"
            name="current-password"
            value={current}
            onValue={(next) => (setCurrent(next), edited('current'))}
            error={errors.current}
          />
        ) : null}
        <NewPasswordFields label="New password" name="new-password" value={value} errors={errors} />
        <SubmitRow action={action}>{user.has_password ? 'Change password' : 'Set password'}</SubmitRow>
      </form>
    </Section>
  );
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function SessionsSection() {
  const app = useApp();
  const sessions = useSuspenseQuery(app.sessionsQuery()).data;
  const action = useAction();
  return (
    <Section title="Sessions" description="Devices signed in to your account. Revoke any you do not recognise.">
      <ul className="latch-list">
        {sessions.map((session) => (
          <li key={session.id} className="latch-list-item">
            <span>
              Signed in {dateFormat.format(new Date(session.created_at))}
              {session.last_used_at_end_user_ip_info ? ` from ${session.last_used_at_end_user_ip_info.ip}` : ''}
              {session.is_current_session ? <span className="latch-badge latch-badge-success">This device</span> : null}
              {session.last_used_at ? <span className="latch-hint">Last used {dateFormat.format(new Date(session.last_used_at))}</span> : null}
            </span>
            {!session.is_current_session ? (
              <RowButton action={action} run={async () => (await app.revokeSession(session.id), 'Session revoked.')}>
                Revoke
              </RowButton>
            ) : null}
          </li>
        ))}
      </ul>
      <Feedback error={action.error} done={action.done} />
    </Section>
  );
}

function TeamsSection({ user }: { user: ClientUser }) {
  const app = useApp();
  const project = useProject();
  const teams = useSuspenseQuery(app.teamsQuery()).data;
  const row = useAction();
  const create = useAction();
  const [managing, setManaging] = useState<string | null>(null);
  const name = useOneFieldForm(create, {
    check: validateTeamName,
    save: async (trimmed) => {
      const team = await app.createTeam({ display_name: trimmed });
      // Spec: selecting a team after creating one makes it the selected team.
      await app.selectTeam(team.id);
      return `Created ${trimmed}.`;
    },
    emptyOnSave: true,
  });
  return (
    <Section title="Teams">
      {teams.length === 0 ? <p className="latch-hint">You are not in any team yet.</p> : null}
      <ul className="latch-list">
        {teams.map((team) => (
          <li key={team.id} className="latch-list-item">
            <span className="latch-row">
              <Avatar name={team.display_name} imageUrl={team.profile_image_url} />
              {team.display_name}
              {team.id === user.selected_team_id ? <span className="latch-badge latch-badge-success">Selected</span> : null}
            </span>
            <span className="latch-row">
              {team.id !== user.selected_team_id ? (
                <RowButton action={row} run={async () => (await app.selectTeam(team.id), `Switched to ${team.display_name}.`)}>
                  Select
                </RowButton>
              ) : null}
              <Button
                variant="secondary"
                size="small"
                aria-expanded={managing === team.id}
                aria-label={`Manage ${team.display_name}`}
                onClick={() => setManaging(managing === team.id ? null : team.id)}
              >
                Manage
              </Button>
              <RowButton action={row} label={`Leave ${team.display_name}`} run={async () => (await app.leaveTeam(team.id), `You left ${team.display_name}.`)}>
                Leave
              </RowButton>
            </span>
            {managing === team.id ? (
              <Suspense fallback={<Loading />}>
                <TeamManagement teamId={team.id} />
              </Suspense>
            ) : null}
          </li>
        ))}
      </ul>
      <Feedback error={row.error} done={row.done} />
      {project.config.client_team_creation_enabled ? (
        <OneFieldForm form={name} action={create} label="Create a team" submitLabel="Create team" secondary>
          <Field label="New team name" name="team-name" value={name.value} onChange={(e) => name.onValue(e.target.value)} error={name.error} />
        </OneFieldForm>
      ) : null}
    </Section>
  );
}

function UserApiKeysSection() {
  const app = useApp();
  const keys = useSuspenseQuery(app.userApiKeysQuery()).data.filter((key) => key.manually_revoked_at_millis === null);
  return (
    <ApiKeysSection
      text={{
        title: 'API keys',
        description: 'Keys let your scripts act as you. Treat them like passwords.',
        newKeyNote: 'Copy your new key now: it will not be shown again.',
        newKeyLabel: 'New API key',
        formLabel: 'Create an API key',
        descriptionLabel: 'Key description',
        descriptionName: 'api-key-description',
        submitLabel: 'Create key',
      }}
      keys={keys}
      create={(input) => app.createUserApiKey(input)}
      revoke={(key) => app.revokeUserApiKey(key.id)}
    />
  );
}

/**
 * Connected accounts: the user's provider accounts (unlink; use for sign-in, on one account per
 * provider), and a button per enabled provider to connect another. Connecting leaves for the
 * provider and comes back here through the oauth-callback page.
 */
function ConnectedAccountsSection({ providers }: { providers: readonly string[] }) {
  const app = useApp();
  const { urls } = useLatchContext();
  const accounts = useSuspenseQuery(app.oauthProvidersQuery()).data;
  const row = useAction();
  const link = useAction();
  const connect = (id: string) =>
    void link.run(async () => {
      await app.linkOAuthAccount(id, { callbackUrl: absoluteUrl(urls.oauthCallback), afterCallbackRedirectUrl: window.location.href });
    });
  return (
    <Section title="Connected accounts" description="Accounts at other services that you sign in with, or that this app may use for you.">
      {accounts.length ? (
        <ul className="latch-list">
          {accounts.map((account) => {
            const name = oauthProviderName(account.type);
            return (
              <li key={account.id} className="latch-list-item">
                <span>
                  <OAuthProviderIcon id={account.type} /> {name}
                  {account.email ? <span className="latch-hint"> {account.email}</span> : null}
                </span>
                <span style={{ display: 'inline-flex', gap: 10, alignItems: 'center' }}>
                  <label className="latch-hint">
                    <input
                      type="checkbox"
                      // Several accounts share the visible text: the name says which one.
                      aria-label={`Use ${name}${account.email ? ` (${account.email})` : ''} to sign in`}
                      checked={account.allow_sign_in}
                      disabled={row.pending}
                      onChange={(event) => {
                        const allow = event.currentTarget.checked;
                        void row.run(async () => {
                          dataOf(await app.updateOAuthProvider(account.id, { allow_sign_in: allow }));
                          return allow ? `You can now sign in with ${name}.` : `Signing in with ${name} is off.`;
                        });
                      }}
                    />{' '}
                    Use to sign in
                  </label>
                  <RowButton
                    action={row}
                    label={`Disconnect ${name}${account.email ? ` (${account.email})` : ''}`}
                    run={async () => (await app.deleteOAuthProvider(account.id), `${name} disconnected.`)}
                  >
                    Disconnect
                  </RowButton>
                </span>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="latch-hint">No account is connected yet.</p>
      )}
      <Feedback error={row.error} done={row.done} />
      <div style={{ display: 'flex', gap: 8, flexWrap: 'wrap', marginTop: 12 }}>
        {providers.map((id) => (
          <Button key={id} variant="secondary" size="small" loading={link.pending} onClick={() => connect(id)}>
            <OAuthProviderIcon id={id} size={16} />
            {`Connect ${oauthProviderName(id)}`}
          </Button>
        ))}
      </div>
      <Feedback error={link.error} done={null} />
    </Section>
  );
}

/** The user's notification categories; a transactional one shows a toggle that cannot be turned off. */
function NotificationsSection() {
  const app = useApp();
  const categories = useSuspenseQuery(app.notificationCategoriesQuery()).data;
  const action = useAction();
  return (
    <Section title="Email notifications" description="Choose which emails you receive. Emails about your account itself cannot be turned off.">
      <ul className="latch-list">
        {categories.map((category) => (
          <li key={category.notification_category_id} className="latch-list-item">
            <label className="latch-toggle">
              <input
                type="checkbox"
                role="switch"
                checked={category.enabled}
                disabled={!category.can_disable || action.pending}
                aria-label={category.notification_category_name}
                onChange={(event: ChangeEvent<HTMLInputElement>) => {
                  const enabled = event.target.checked;
                  void action.run(async () => {
                    await app.setNotificationEnabled(category.notification_category_id, enabled);
                    return `${category.notification_category_name} emails turned ${enabled ? 'on' : 'off'}.`;
                  });
                }}
              />{' '}
              {category.notification_category_name}
              {!category.can_disable ? <span className="latch-hint"> Always on</span> : null}
            </label>
          </li>
        ))}
      </ul>
      <Feedback error={action.error} done={action.done} />
    </Section>
  );
}

function DeleteAccountSection() {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  return (
    <Section title="Delete account" description="Deleting your account removes your data for good. This cannot be undone.">
      <Feedback error={action.error} done={action.done} />
      {confirming ? (
        <div className="latch-row" role="group" aria-label="Confirm account deletion">
          <Button
            variant="danger"
            loading={action.pending}
            onClick={() => void action.run(async () => (await app.deleteUser(), await navigate(urls.afterSignOut), 'Your account is deleted.'))}
          >
            Yes, delete my account
          </Button>
          {/* Focus lands on the safe choice, not on the destructive one. */}
          <Button variant="secondary" onClick={() => setConfirming(false)} disabled={action.pending} autoFocus>
            Cancel
          </Button>
        </div>
      ) : (
        <Button variant="danger" onClick={() => setConfirming(true)}>
          Delete account
        </Button>
      )}
    </Section>
  );
}

/**
 * The account-settings page of the signed-in user (signed-out visitors are sent to sign-in and
 * brought back).
 *
 * @example
 * <AccountSettings /> // or let <LatchHandler /> serve it at /handler/account-settings
 */
export function AccountSettings() {
  const user = useUser({ or: 'redirect' });
  const project = useProject();
  const { urls } = useLatchContext();
  return (
    <Page title="Account settings" subtitle={user.primary_email ?? undefined} wide>
      <p className="latch-hint">
        <Link href={urls.home}>← Back to the app</Link>
      </p>
      <ProfileSection user={user} key={`profile:${user.id}`} />
      <EmailsSection />
      {project.config.credential_enabled ? <PasswordSection user={user} /> : null}
      <Section title="Two-factor authentication" description="A code from an authenticator app, asked for after your password or email link.">
        <TwoFactorSettings />
      </Section>
      {project.config.passkey_enabled ? <PasskeysSection /> : null}
      <SessionsSection />
      <NotificationsSection />
      <BillingSection />
      <TeamsSection user={user} />
      {project.config.enabled_oauth_providers.length || user.oauth_providers.length ? (
        <ConnectedAccountsSection providers={project.config.enabled_oauth_providers.map((provider) => provider.id)} />
      ) : null}
      {project.config.allow_user_api_keys ? <UserApiKeysSection /> : null}
      {project.config.client_user_deletion_enabled ? <DeleteAccountSection /> : null}
    </Page>
  );
}
