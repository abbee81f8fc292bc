import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { apiKeySetCreateSchema } from '../../contract/schemas/api-keys.js';
import type { CreatedInternalApiKey, InternalApiKeyCreateInput } from '../../sdk/index.js';
import { type ConfigPatch, saveConfig } from '../components/config.js';
import { NewKeys } from '../components/new-keys.js';
import { KeyStatusBadge } from '../components/key-status.js';
import {
  Card,
  DataTable,
  DialogFooter,
  Empty,
  ErrorMessage,
  Field,
  Modal,
  PageHeader,
  PrimaryButton,
  Switch,
  formatDate,
  useAction,
  useFormAction,
} from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** The project's key sets (last four only), creating (shown once) and revoking; user/team key settings. */
export function ApiKeysPage({ projectId, admin, project }: PageProps) {
  const keys = useQuery(admin.internalApiKeysQuery(), admin.queryClient);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedInternalApiKey | null>(null);
  const saving = useAction((patch: ConfigPatch) => saveConfig(admin, patch));
  const lastFour = (key: { last_four: string } | null) => (key ? <code>…{key.last_four}</code> : <span className="muted">—</span>);
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys your apps use to reach this project."
        actions={<PrimaryButton onClick={() => setCreating(true)}>Create keys</PrimaryButton>}
      />
      <Card title="Project keys">
        <DataTable
          query={keys}
          loadingLabel="Loading keys…"
          empty={<Empty title="No keys">Create a key set to use this project from the SDK.</Empty>}
          label="Project keys"
          columns={[
            { title: 'Description', cell: (key) => key.description || <span className="muted">—</span> },
            { title: 'Publishable', cell: (key) => lastFour(key.publishable_client_key) },
            { title: 'Secret server', cell: (key) => lastFour(key.secret_server_key) },
            { title: 'Admin', cell: (key) => lastFour(key.super_secret_admin_key) },
            { title: 'Created', cell: (key) => formatDate(key.created_at_millis) },
            { title: 'Status', cell: (key) => <KeyStatusBadge revokedAtMillis={key.manually_revoked_at_millis} expiresAtMillis={key.expires_at_millis} /> },
          ]}
          remove={{
            label: 'Revoke',
            title: 'Revoke these keys?',
            hidden: (key) => key.manually_revoked_at_millis !== null,
            message: (key) => (
              <p>
                Apps using keys ending in {key.publishable_client_key?.last_four ?? key.secret_server_key?.last_four ?? key.super_secret_admin_key?.last_four}{' '}
                stop working at once.
              </p>
            ),
            run: (key) => admin.revokeInternalApiKey(key.id),
          }}
        />
      </Card>
      <Card title="User and team API keys">
        <p className="muted" style={{ marginTop: 0 }}>
          Let your users create API keys for themselves or their teams (for your own API).
        </p>
        <Switch label="Allow user API keys" checked={project.config.allow_user_api_keys} onChange={(checked) => saving.run({ allow_user_api_keys: checked })} />
        <Switch label="Allow team API keys" checked={project.config.allow_team_api_keys} onChange={(checked) => saving.run({ allow_team_api_keys: checked })} />
        <ErrorMessage error={saving.error} title="Could not save" />
      </Card>
      <CreateKeysDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(keySet) => {
          setCreating(false);
          setCreated(keySet);
        }}
        admin={admin}
      />
      <Modal title="New keys" open={created !== null} onClose={() => setCreated(null)} wide>
        {created ? <NewKeys projectId={projectId} keys={created} /> : null}
      </Modal>
    </>
  );
}

function CreateKeysDialog({
  open,
  onClose,
  onCreated,
  admin,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (keys: CreatedInternalApiKey) => void;
  admin: PageProps['admin'];
}) {
  const [description, setDescription] = useState('');
  const [publishable, setPublishable] = useState(true);
  const [secret, setSecret] = useState(true);
  const [adminKey, setAdminKey] = useState(false);
  const create = useFormAction(apiKeySetCreateSchema, async (input: InternalApiKeyCreateInput) => {
    onCreated(await admin.createInternalApiKey(input));
    setDescription('');
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create.submit({
      description: description.trim(),
      has_publishable_client_key: publishable,
      has_secret_server_key: secret,
      has_super_secret_admin_key: adminKey,
    });
  };
  return (
    <Modal title="Create keys" open={open} onClose={onClose}>
      <form className="form" onSubmit={submit} noValidate>
        <Field label="Description" error={create.errors.description} hint="Where these keys are used, e.g. “production web app”.">
          {(props) => <input {...props} type="text" value={description} onChange={(event) => setDescription(event.target.value)} />}
        </Field>
        <Switch label="Publishable client key" description="For browsers and mobile apps." checked={publishable} onChange={setPublishable} />
        <Switch label="Secret server key" description="For your backend only." checked={secret} onChange={setSecret} />
        <Switch label="Super secret admin key" description="Full control of the project: for scripts and CI." checked={adminKey} onChange={setAdminKey} />
        <DialogFooter error={create.error} errorTitle="Could not create keys" submitLabel="Create" onCancel={onClose} />
      </form>
    </Modal>
  );
}
