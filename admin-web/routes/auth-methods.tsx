import { type FormEvent, useEffect, useState } from 'react';
import type { AdminApp, AdminProject } from '../../sdk/index.js';
import { errorMessage } from '../api.js';
import { OAUTH_CONFIGURABLE_PROVIDER_IDS, OAUTH_GENERIC_OIDC_ID, OAUTH_PROVIDER_DISPLAY_NAMES } from '../../contract/config/oauth.js';
import { oauthProviderInputSchema } from '../../contract/schemas/projects.js';
import { type ConfigPatch, saveConfig } from '../components/config.js';
import { Card, DialogFooter, ErrorMessage, Field, Modal, PageHeader, SmallButton, Switch, Table, useAction, useFormAction } from '../components/ui.js';
import type { PageProps } from './page-props.js';
import { type OAuthTestOutcome, consoleCallbackTrusted, onOAuthTestOutcome, providerCallbackUrl, startOAuthTest } from './oauth-test.js';

type Provider = PageProps['project']['config']['oauth_providers'][number];
type ProviderId = (typeof OAUTH_CONFIGURABLE_PROVIDER_IDS)[number];

const PROVIDER_NAMES: Record<ProviderId, string> = { ...OAUTH_PROVIDER_DISPLAY_NAMES, oidc: 'OpenID Connect (any IdP)' };

const METHODS = [
  { key: 'sign_up_enabled', label: 'Sign-up', description: 'New users can create accounts. When off, only users you create can sign in.' },
  { key: 'credential_enabled', label: 'Email and password', description: 'Users sign in with their email address and a password.' },
  { key: 'magic_link_enabled', label: 'Magic link and email code', description: 'Users get a one-time link or code by email.' },
  {
    key: 'passkey_enabled',
    label: 'Passkeys',
    description: 'Users add passkeys (WebAuthn, several per user) in their account settings and sign in with them. Off: every passkey call is refused.',
  },
  { key: 'anonymous_enabled', label: 'Anonymous users', description: 'Guests get an account they can upgrade later.' },
] as const;

const MERGE_STRATEGIES = ['link_method', 'raise_error', 'allow_duplicates'] as const;

const CAPABILITIES = [
  { key: 'client_user_deletion_enabled', label: 'Users can delete their account', description: 'Signed-in users may delete themselves from your app.' },
  { key: 'client_team_creation_enabled', label: 'Users can create teams', description: 'Otherwise only your server (or this console) creates teams.' },
  { key: 'create_team_on_sign_up', label: 'Create a personal team on sign-up', description: 'Every new user gets a team of their own.' },
] as const;

/** Auth methods: each switch saves at once; OAuth providers open an editor. */
export function AuthMethodsPage({ admin, project }: PageProps) {
  const config = project.config;
  const [editing, setEditing] = useState<ProviderId | null>(null);
  const saving = useAction((patch: ConfigPatch) => saveConfig(admin, patch));
  const save = saving.run;
  const providers = OAUTH_CONFIGURABLE_PROVIDER_IDS.map((id) => config.oauth_providers.find((provider) => provider.id === id) ?? null);

  return (
    <>
      <PageHeader title="Auth methods" description="How users sign up and sign in to this project. Changes apply immediately." />
      <ErrorMessage error={saving.error} title="Could not save" />
      {[
        { title: 'Sign-in methods', switches: METHODS },
        { title: 'What users can do', switches: CAPABILITIES },
      ].map(({ title, switches }) => (
        <Card key={title} title={title}>
          {switches.map(({ key, label, description }) => (
            <Switch key={key} label={label} description={description} checked={config[key]} onChange={(checked) => save({ [key]: checked })} />
          ))}
        </Card>
      ))}
      <Card title="OAuth providers">
        <p className="muted" style={{ marginTop: 0 }}>
          Shared providers use Latch's development credentials; use your own (standard) in production.
        </p>
        <Table
          label="OAuth providers"
          columns={['Provider', 'Status', 'Credentials', null]}
          items={[...OAUTH_CONFIGURABLE_PROVIDER_IDS]}
          row={(id, index) => {
            const provider = providers[index] ?? null;
            return (
              <tr key={id}>
                <td>{PROVIDER_NAMES[id]}</td>
                <td>{provider?.enabled ? <span className="badge ok">enabled</span> : <span className="badge">off</span>}</td>
                <td>{provider ? (provider.type === 'standard' ? `Own app (${provider.client_id ?? ''})` : 'Shared') : '—'}</td>
                <td className="actions end">
                  <SmallButton onClick={() => setEditing(id)}>Configure {PROVIDER_NAMES[id]}</SmallButton>
                </td>
              </tr>
            );
          }}
        />
      </Card>
      <Card title="Account merging">
        <Field
          label="When an OAuth sign-in uses an email that already has an account"
          hint="Link: add the provider to the existing account. Raise error: refuse the sign-in. Allow duplicates: create a second account."
        >
          {(props) => (
            <select
              {...props}
              value={config.oauth_account_merge_strategy}
              onChange={(event) => {
                const strategy = MERGE_STRATEGIES.find((value) => value === event.target.value);
                if (strategy) void save({ oauth_account_merge_strategy: strategy });
              }}
            >
              <option value="link_method">Link to the existing account</option>
              <option value="raise_error">Raise an error</option>
              <option value="allow_duplicates">Allow duplicate accounts</option>
            </select>
          )}
        </Field>
      </Card>
      {editing ? (
        <ProviderDialog
          admin={admin}
          project={project}
          id={editing}
          provider={config.oauth_providers.find((provider) => provider.id === editing) ?? null}
          onClose={() => setEditing(null)}
          onSave={async (next) => {
            const others = config.oauth_providers.filter((provider) => provider.id !== next.id).map(toInput);
            await saveConfig(admin, { oauth_providers: [...others, next] });
            setEditing(null);
          }}
        />
      ) : null}
    </>
  );
}

type ProviderInput = NonNullable<ConfigPatch['oauth_providers']>[number];

function toInput(provider: Provider): ProviderInput {
  return {
    // The secret is write-only: leaving it out keeps the stored one (same provider and client id).
    id: provider.id,
    enabled: provider.enabled,
    type: provider.type,
    client_id: provider.client_id,
    facebook_config_id: provider.facebook_config_id,
    microsoft_tenant_id: provider.microsoft_tenant_id,
    ...(provider.id === OAUTH_GENERIC_OIDC_ID ? { issuer_url: provider.issuer_url ?? null } : {}),
  };
}

function ProviderDialog({
  admin,
  project,
  id,
  provider,
  onClose,
  onSave,
}: {
  admin: AdminApp;
  project: AdminProject;
  id: ProviderId;
  provider: Provider | null;
  onClose: () => void;
  onSave: (provider: ProviderInput) => Promise<void>;
}) {
  const [enabled, setEnabled] = useState(provider?.enabled ?? true);
  const oidc = id === OAUTH_GENERIC_OIDC_ID;
  // The generic OIDC provider has no shared keys: it is always the project's own client.
  const [type, setType] = useState<'shared' | 'standard'>(provider?.type ?? (oidc ? 'standard' : 'shared'));
  const [issuerUrl, setIssuerUrl] = useState(provider?.issuer_url ?? '');
  const [clientId, setClientId] = useState(provider?.client_id ?? '');
  // Never sent back by the server: empty keeps the saved secret (while the client ID stays the same).
  const [clientSecret, setClientSecret] = useState('');
  const [extra, setExtra] = useState(provider?.facebook_config_id ?? provider?.microsoft_tenant_id ?? '');
  const save = useFormAction(oauthProviderInputSchema, onSave);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.submit({
      id,
      enabled,
      type,
      client_id: type === 'standard' ? clientId.trim() || null : null,
      client_secret: type === 'standard' ? clientSecret || null : null,
      facebook_config_id: id === 'facebook' && extra.trim() ? extra.trim() : null,
      microsoft_tenant_id: id === 'microsoft' && extra.trim() ? extra.trim() : null,
      ...(oidc ? { issuer_url: issuerUrl.trim() || null } : {}),
    });
  };
  return (
    <Modal title={`${PROVIDER_NAMES[id]} sign-in`} open onClose={onClose}>
      <form className="form" onSubmit={submit} noValidate>
        <Switch label="Enabled" checked={enabled} onChange={setEnabled} />
        {oidc ? (
          <Field label="Issuer URL" error={save.errors.issuer_url} hint="Your IdP's issuer; Latch reads <issuer>/.well-known/openid-configuration.">
            {(props) => <input {...props} type="url" value={issuerUrl} onChange={(event) => setIssuerUrl(event.target.value)} />}
          </Field>
        ) : null}
        {oidc ? null : (
          <fieldset className="stack" style={{ border: 'none', padding: 0, margin: 0 }}>
            <legend className="muted">Credentials</legend>
            <label className="row">
              <input type="radio" name="type" checked={type === 'shared'} onChange={() => setType('shared')} /> Shared (development only)
            </label>
            <label className="row">
              <input type="radio" name="type" checked={type === 'standard'} onChange={() => setType('standard')} /> My own OAuth app
            </label>
          </fieldset>
        )}
        {type === 'standard' ? (
          <>
            <Field label="Client ID" error={save.errors.client_id}>
              {(props) => <input {...props} type="text" value={clientId} onChange={(event) => setClientId(event.target.value)} />}
            </Field>
            <Field
              label="Client secret"
              error={save.errors.client_secret}
              hint={provider?.has_client_secret ? 'A secret is stored; leave this empty to keep it.' : undefined}
            >
              {(props) => <input {...props} type="password" value={clientSecret} onChange={(event) => setClientSecret(event.target.value)} />}
            </Field>
            {id === 'facebook' ? (
              <Field label="Facebook business config ID (optional)">
                {(props) => <input {...props} type="text" value={extra} onChange={(event) => setExtra(event.target.value)} />}
              </Field>
            ) : null}
            {id === 'microsoft' ? (
              <Field label="Microsoft tenant ID (optional)">
                {(props) => <input {...props} type="text" value={extra} onChange={(event) => setExtra(event.target.value)} />}
              </Field>
            ) : null}
          </>
        ) : null}
        <Field
          label="Callback URL"
          hint={`Paste this into your ${PROVIDER_NAMES[id]} OAuth app as its redirect (callback) URL.${type === 'shared' ? ' Not needed with shared credentials.' : ''}`}
        >
          {(props) => (
            <input {...props} type="text" readOnly value={providerCallbackUrl(window.location.origin, id)} onFocus={(event) => event.currentTarget.select()} />
          )}
        </Field>
        <ProviderTest admin={admin} project={project} id={id} saved={provider} />
        <DialogFooter error={save.error} errorTitle="Could not save" submitLabel="Save" onCancel={onClose} />
      </form>
    </Modal>
  );
}

/** "Test this provider": the real flow in a popup, with the saved settings (see oauth-test.tsx). */
function ProviderTest({ admin, project, id, saved }: { admin: AdminApp; project: AdminProject; id: ProviderId; saved: Provider | null }) {
  const [state, setState] = useState<{ running: boolean; outcome: OAuthTestOutcome | null }>({ running: false, outcome: null });
  useEffect(() => onOAuthTestOutcome((outcome) => setState({ running: false, outcome })), []);
  const trusted = consoleCallbackTrusted(project, window.location.origin);
  const reason = !saved?.enabled
    ? 'Save the provider enabled to test it.'
    : !trusted
      ? `This project does not trust the console's address (${window.location.origin}): add it to the trusted domains to test from here.`
      : null;
  const run = () => {
    // Opened in the click itself, or the browser blocks it; pointed at the flow once it is ready.
    const popup = window.open('about:blank', 'latch-oauth-test', 'popup,width=520,height=700');
    if (!popup) return setState({ running: false, outcome: { ok: false, message: 'The browser blocked the popup: allow popups for the console.' } });
    setState({ running: true, outcome: null });
    startOAuthTest(admin, id, popup).catch((error: unknown) => {
      popup.close();
      setState({ running: false, outcome: { ok: false, message: errorMessage(error) } });
    });
  };
  return (
    <div className="stack">
      <div className="row">
        <button type="button" className="button small" disabled={reason !== null || state.running} onClick={run}>
          {state.running ? 'Testing…' : `Test ${PROVIDER_NAMES[id]} sign-in`}
        </button>
      </div>
      <p className="muted" style={{ margin: 0 }}>
        {reason ?? 'Opens the sign-in in a popup with the saved settings. Signing in makes (or finds) a user for your account in this project.'}
      </p>
      {state.outcome ? (
        <p role={state.outcome.ok ? 'status' : 'alert'} className={state.outcome.ok ? 'badge ok' : 'badge danger'} style={{ margin: 0 }}>
          {state.outcome.ok
            ? `It works: signed in as user ${state.outcome.userId}${state.outcome.isNewUser ? ' (new)' : ''}.`
            : `The test failed: ${state.outcome.message}`}
        </p>
      ) : null}
    </div>
  );
}
