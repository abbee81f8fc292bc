import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { definitionCreateSchema } from '../../contract/schemas/permissions.js';
import type { PermissionDefinition } from '../../sdk/index.js';
import { type ConfigPatch, saveConfig } from '../components/config.js';
import { allowedChildren } from '../components/permission-graph.js';
import {
  Card,
  ConfirmButton,
  DialogFooter,
  Empty,
  ErrorMessage,
  Field,
  Modal,
  PageHeader,
  QueryView,
  SavedCheckbox,
  SmallButton,
  Table,
  useAction,
  useFormAction,
} from '../components/ui.js';
import type { PageProps } from './page-props.js';

type Scope = 'team' | 'project';

/** Team and project permission definitions, their nesting (cycles never offered), and the defaults. */
export function PermissionsPage({ admin, project }: PageProps) {
  const team = useQuery(admin.teamPermissionDefinitionsQuery(), admin.queryClient);
  const projectDefs = useQuery(admin.projectPermissionDefinitionsQuery(), admin.queryClient);
  return (
    <>
      <PageHeader
        title="Permissions"
        description="Team permissions apply inside one team; project permissions apply to a user everywhere. A permission can contain others."
      />
      <QueryView query={team} loadingLabel="Loading team permissions…">
        {(definitions) => <DefinitionsCard scope="team" admin={admin} definitions={definitions} />}
      </QueryView>
      <QueryView query={projectDefs} loadingLabel="Loading project permissions…">
        {(definitions) => <DefinitionsCard scope="project" admin={admin} definitions={definitions} />}
      </QueryView>
      {team.data && projectDefs.data ? <DefaultsCard admin={admin} config={project.config} team={team.data} projectDefs={projectDefs.data} /> : null}
    </>
  );
}

function DefinitionsCard({ scope, admin, definitions }: { scope: Scope; admin: PageProps['admin']; definitions: PermissionDefinition[] }) {
  const [editing, setEditing] = useState<PermissionDefinition | 'new' | null>(null);
  const title = scope === 'team' ? 'Team permissions' : 'Project permissions';
  const remove = (id: string) => (scope === 'team' ? admin.deleteTeamPermissionDefinition(id) : admin.deleteProjectPermissionDefinition(id));
  return (
    <Card
      title={title}
      actions={
        <button type="button" className="button small primary" onClick={() => setEditing('new')}>
          New {scope} permission
        </button>
      }
    >
      {definitions.length === 0 ? (
        <Empty title={`No ${scope} permissions yet`} />
      ) : (
        <Table
          label={title}
          columns={['ID', 'Description', 'Contains', null]}
          items={definitions}
          row={(definition) => (
            <tr key={definition.id}>
              <td>
                <code>{definition.id}</code> {definition.is_system_permission ? <span className="badge">system</span> : null}
              </td>
              <td>{definition.description ?? <span className="muted">—</span>}</td>
              <td className="small">
                {definition.contained_permission_ids.length ? (
                  definition.contained_permission_ids.map((id) => (
                    <code key={id} style={{ marginRight: 6 }}>
                      {id}
                    </code>
                  ))
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="actions end">
                {definition.is_system_permission ? null : (
                  <>
                    <SmallButton onClick={() => setEditing(definition)}>Edit</SmallButton>
                    <ConfirmButton
                      className="button small danger"
                      label="Delete"
                      title={`Delete ${definition.id}?`}
                      message={
                        <p>
                          Every grant of <code>{definition.id}</code> is removed with it.
                        </p>
                      }
                      onConfirm={() => remove(definition.id)}
                    />
                  </>
                )}
              </td>
            </tr>
          )}
        />
      )}
      {editing ? (
        <DefinitionDialog scope={scope} admin={admin} definitions={definitions} editing={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
      ) : null}
    </Card>
  );
}

function DefinitionDialog({
  scope,
  admin,
  definitions,
  editing,
  onClose,
}: {
  scope: Scope;
  admin: PageProps['admin'];
  definitions: PermissionDefinition[];
  editing: PermissionDefinition | null;
  onClose: () => void;
}) {
  const [id, setId] = useState(editing?.id ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [contained, setContained] = useState<string[]>(editing?.contained_permission_ids ?? []);
  // A new permission contains nothing yet, so nothing can close a cycle through it.
  const choices = editing ? allowedChildren(definitions, editing.id) : definitions.map((definition) => definition.id);

  const save = useFormAction(definitionCreateSchema(scope), async (input: { id: string; description: string | null; contained_permission_ids: string[] }) => {
    if (editing) {
      const patch = { ...(input.id !== editing.id ? { id: input.id } : {}), description: input.description, contained_permission_ids: contained };
      if (scope === 'team') await admin.updateTeamPermissionDefinition(editing.id, patch);
      else await admin.updateProjectPermissionDefinition(editing.id, patch);
    } else if (scope === 'team') await admin.createTeamPermissionDefinition(input);
    else await admin.createProjectPermissionDefinition(input);
    onClose();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.submit({ id: id.trim(), description: description.trim() || null, contained_permission_ids: contained });
  };

  return (
    <Modal title={editing ? `Edit ${editing.id}` : `New ${scope} permission`} open onClose={onClose}>
      <form className="form" onSubmit={submit} noValidate>
        <Field label="Permission ID" error={save.errors.id} hint="Lowercase letters, numbers, “:” and “_”, e.g. docs:write">
          {(props) => <input {...props} type="text" value={id} onChange={(event) => setId(event.target.value)} />}
        </Field>
        <Field label="Description" error={save.errors.description}>
          {(props) => <input {...props} type="text" value={description} onChange={(event) => setDescription(event.target.value)} />}
        </Field>
        <fieldset className="stack" style={{ border: '1px solid var(--border)', borderRadius: 8, padding: 12 }}>
          <legend>Contains</legend>
          {choices.length === 0 ? <span className="muted small">No other permission can be nested here.</span> : null}
          {choices.map((choice) => (
            <label key={choice} className="row">
              <input
                type="checkbox"
                checked={contained.includes(choice)}
                onChange={(event) => setContained(event.target.checked ? [...contained, choice] : contained.filter((c) => c !== choice))}
              />
              <code>{choice}</code>
            </label>
          ))}
          {editing ? (
            <span className="muted small">Permissions that already contain {editing.id} are not offered: nesting them would make a cycle.</span>
          ) : null}
        </fieldset>
        <DialogFooter error={save.error} errorTitle="Could not save" submitLabel={editing ? 'Save' : 'Create permission'} onCancel={onClose} />
      </form>
    </Modal>
  );
}

const DEFAULTS = [
  { key: 'team_creator_default_permissions', label: 'Team creators get', scope: 'team' },
  { key: 'team_member_default_permissions', label: 'Team members get', scope: 'team' },
  { key: 'user_default_permissions', label: 'Every user gets (project permissions)', scope: 'project' },
] as const;

function DefaultsCard({
  admin,
  config,
  team,
  projectDefs,
}: {
  admin: PageProps['admin'];
  config: PageProps['project']['config'];
  team: PermissionDefinition[];
  projectDefs: PermissionDefinition[];
}) {
  const saving = useAction((patch: ConfigPatch) => saveConfig(admin, patch));
  const toggle = (key: (typeof DEFAULTS)[number]['key'], id: string, on: boolean) => {
    const current = config[key].map((ref) => ref.id);
    const next = on ? [...current, id] : current.filter((existing) => existing !== id);
    const patch: ConfigPatch = { [key]: next.map((value) => ({ id: value })) };
    return saving.run(patch);
  };
  return (
    <Card title="Default permissions">
      <div className="grid">
        {DEFAULTS.map(({ key, label, scope }) => {
          const choices = scope === 'team' ? team : projectDefs;
          const held = new Set(config[key].map((ref) => ref.id));
          return (
            <fieldset key={key} className="stack" style={{ border: '1px solid var(--border)', borderRadius: 8, padding: 12 }}>
              <legend>{label}</legend>
              {choices.length === 0 ? <span className="muted small">Define a {scope} permission first.</span> : null}
              {choices.map((definition) => (
                <SavedCheckbox
                  key={definition.id}
                  label={<code>{definition.id}</code>}
                  checked={held.has(definition.id)}
                  onChange={(checked) => toggle(key, definition.id, checked)}
                />
              ))}
            </fieldset>
          );
        })}
      </div>
      <ErrorMessage error={saving.error} title="Could not save" />
    </Card>
  );
}
