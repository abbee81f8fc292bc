import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { apiKeySetCreateSchema } from '../../contract/schemas/api-keys.js';
import type { CreatedInternalApiKey } from '../../sdk/index.js';
import { saveConfigFrom } from '../components/config.js';
import { NewKeys } from '../components/new-keys.js';
import { Card, ConfirmButton, Empty, ErrorMessage, Field, Modal, PageHeader, QueryView, Switch, fieldErrors, formatDate } from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** The project's key sets (last four only), creating (shown once) and revoking; user/team key settings. */
export function ApiKeysPage({ projectId, admin, project }: PageProps) {
  const keys = useQuery(admin.internalApiKeysQuery(), admin.queryClient);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedInternalApiKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const lastFour = (key: { last_four: string } | null) => (key ? <code>…{key.last_four}</code> : <span className="muted">—</span>);
  return (
    <>
      <PageHeader title="API keys" description="Keys your apps use to reach this project." actions={<button type="button" className="button primary" onClick={() => setCreating(true)}>Create keys</button>} />
      <Card title="Project keys">
        <QueryView query={keys} loadingLabel="Loading keys…">
          {(items) =>
            items.length === 0 ? (
              <Empty title="No keys">Create a key set to use this project from the SDK.</Empty>
            ) : (
              <div className="table-wrap">
                <table aria-label="Project keys">
                  <thead><tr><th scope="col">Description</th><th scope="col">Publishable</th><th scope="col">Secret server</th><th scope="col">Admin</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
                  <tbody>
                    {items.map((key) => {
                      const revoked = key.manually_revoked_at_millis !== null;
                      const expired = key.expires_at_millis !== null && key.expires_at_millis < Date.now();
                      return (
                        <tr key={key.id}>
                          <td>{key.description || <span className="muted">—</span>}</td>
                          <td>{lastFour(key.publishable_client_key)}</td>
                          <td>{lastFour(key.secret_server_key)}</td>
                          <td>{lastFour(key.super_secret_admin_key)}</td>
                          <td>{formatDate(key.created_at_millis)}</td>
                          <td>{revoked ? <span className="badge danger">revoked</span> : expired ? <span className="badge warn">expired</span> : <span className="badge ok">active</span>}</td>
                          <td className="actions end">
                            {revoked ? null : (
                              <ConfirmButton className="button small danger" label="Revoke" title="Revoke these keys?" message={<p>Apps using keys ending in {key.publishable_client_key?.last_four ?? key.secret_server_key?.last_four ?? key.super_secret_admin_key?.last_four} stop working at once.</p>} onConfirm={() => admin.revokeInternalApiKey(key.id)} />
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )
          }
        </QueryView>
      </Card>
      <Card title="User and team API keys">
        <p className="muted" style={{ marginTop: 0 }}>Let your users create API keys for themselves or their teams (for your own API).</p>
        <Switch label="Allow user API keys" checked={project.config.allow_user_api_keys} onChange={(checked) => saveConfigFrom(admin, { allow_user_api_keys: checked }, setError)} />
        <Switch label="Allow team API keys" checked={project.config.allow_team_api_keys} onChange={(checked) => saveConfigFrom(admin, { allow_team_api_keys: checked }, setError)} />
        <ErrorMessage error={error} title="Could not save" />
      </Card>
      <CreateKeysDialog open={creating} onClose={() => setCreating(false)} onCreated={(keySet) => { setCreating(false); setCreated(keySet); }} admin={admin} />
      <Modal title="New keys" open={created !== null} onClose={() => setCreated(null)} wide>
        {created ? <NewKeys projectId={projectId} keys={created} /> : null}
      </Modal>
    </>
  );
}

function CreateKeysDialog({ open, onClose, onCreated, admin }: { open: boolean; onClose: () => void; onCreated: (keys: CreatedInternalApiKey) => void; admin: PageProps['admin'] }) {
  const [description, setDescription] = useState('');
  const [publishable, setPublishable] = useState(true);
  const [secret, setSecret] = useState(true);
  const [adminKey, setAdminKey] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input = { description: description.trim(), has_publishable_client_key: publishable, has_secret_server_key: secret, has_super_secret_admin_key: adminKey };
    const invalid = fieldErrors(apiKeySetCreateSchema, input);
    setErrors(invalid ?? {});
    if (invalid) return;
    try {
      setError(null);
      onCreated(await admin.createInternalApiKey(input));
      setDescription('');
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Modal title="Create keys" open={open} onClose={onClose}>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Description" error={errors.description} hint="Where these keys are used, e.g. “production web app”.">{(props) => <input {...props} type="text" value={description} onChange={(event) => setDescription(event.target.value)} />}</Field>
        <Switch label="Publishable client key" description="For browsers and mobile apps." checked={publishable} onChange={setPublishable} />
        <Switch label="Secret server key" description="For your backend only." checked={secret} onChange={setSecret} />
        <Switch label="Super secret admin key" description="Full control of the project: for scripts and CI." checked={adminKey} onChange={setAdminKey} />
        <ErrorMessage error={error} title="Could not create keys" />
        <div className="actions end">
          <button type="button" className="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="button primary">Create</button>
        </div>
      </form>
    </Modal>
  );
}
