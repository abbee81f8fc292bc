import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { projectTransferSchema, projectUpdateSchema } from '../../contract/schemas/projects.js';
import { teamCreateSchema } from '../../contract/schemas/teams.js';
import { internalApp } from '../api.js';
import { navigate } from '../components/router.js';
import type { ProjectUpdateInput } from '../../sdk/index.js';
import {
  Card,
  ConfirmButton,
  ErrorMessage,
  Field,
  InlineForm,
  InlineInput,
  PageHeader,
  QueryView,
  SaveFooter,
  Switch,
  fieldErrors,
  useAction,
  useFormAction,
} from '../components/ui.js';
import type { PageProps } from './page-props.js';
import { Link } from '../components/router.js';
import { OwnersCard } from '../components/owners-card.js';

/** Name, description, logos, production mode; transfer to another owner team; delete. */
export function SettingsPage({ projectId, admin, project }: PageProps) {
  const [name, setName] = useState(project.display_name);
  const [description, setDescription] = useState(project.description ?? '');
  const [logoUrl, setLogoUrl] = useState(project.logo_url ?? '');
  const [fullLogoUrl, setFullLogoUrl] = useState(project.full_logo_url ?? '');
  const [confirmName, setConfirmName] = useState('');
  const save = useFormAction(projectUpdateSchema, async (patch: ProjectUpdateInput) => {
    await admin.updateProject(patch);
    internalApp.queryClient.invalidateQueries();
  });
  const production = useAction((on: boolean) => admin.updateProject({ is_production_mode: on }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.submit({
      display_name: name.trim(),
      description: description.trim() || null,
      logo_url: logoUrl.trim() || null,
      full_logo_url: fullLogoUrl.trim() || null,
    });
  };

  return (
    <>
      <PageHeader
        title="Project settings"
        description={
          <>
            Project ID <code>{projectId}</code>
          </>
        }
      />
      <Card title="General">
        <form className="form" onSubmit={submit} noValidate>
          <Field label="Project name" error={save.errors.display_name}>
            {(props) => <input {...props} type="text" value={name} onChange={(event) => setName(event.target.value)} />}
          </Field>
          <Field label="Description" error={save.errors.description}>
            {(props) => <input {...props} type="text" value={description} onChange={(event) => setDescription(event.target.value)} />}
          </Field>
          <Field label="Logo URL" error={save.errors.logo_url} hint="A square logo, shown in emails and sign-in pages (https:// or a data: URL).">
            {(props) => <input {...props} type="url" value={logoUrl} onChange={(event) => setLogoUrl(event.target.value)} />}
          </Field>
          <Field label="Full logo URL" error={save.errors.full_logo_url} hint="A wide logo with the name.">
            {(props) => <input {...props} type="url" value={fullLogoUrl} onChange={(event) => setFullLogoUrl(event.target.value)} />}
          </Field>
          <div className="row">
            {logoUrl ? (
              <img
                src={logoUrl}
                alt="Logo preview"
                style={{ width: 48, height: 48, objectFit: 'contain', borderRadius: 8, border: '1px solid var(--border)' }}
              />
            ) : null}
            <Field label="Or upload a logo image" hint="Stored as a data URL (up to about 700 KB).">
              {(props) => (
                <input
                  {...props}
                  type="file"
                  accept="image/*"
                  onChange={(event) => {
                    const file = event.target.files?.[0];
                    if (!file) return;
                    // Read in the browser: the project stores the image itself (no file storage needed).
                    const reader = new FileReader();
                    reader.onload = () => setLogoUrl(String(reader.result));
                    reader.readAsDataURL(file);
                  }}
                />
              )}
            </Field>
          </div>
          <SaveFooter action={save} label="Save" />
        </form>
      </Card>
      <Card title="Production mode">
        <ProductionMode projectId={projectId} project={project} onChange={(checked) => production.run(checked)} />
        <ErrorMessage error={production.error} title="Could not save" />
      </Card>
      <OwnersCard projectId={projectId} />
      <TransferCard projectId={projectId} ownerTeamId={project.owner_team_id} />
      <Card title="Danger zone">
        <div className="stack">
          <p className="muted" style={{ margin: 0 }}>
            Deleting the project deletes its users, teams, keys and emails, at once and for good.
          </p>
          <div>
            <ConfirmButton
              label="Delete project"
              title={`Delete ${project.display_name}?`}
              message={
                <Field label={`Type the project name (${project.display_name}) to confirm`}>
                  {(props) => <input {...props} type="text" value={confirmName} onChange={(event) => setConfirmName(event.target.value)} />}
                </Field>
              }
              onConfirm={async () => {
                if (confirmName !== project.display_name) throw new Error('The name does not match.');
                await admin.deleteProject();
                await internalApp.queryClient.invalidateQueries();
                navigate('/projects');
              }}
            />
          </div>
        </div>
      </Card>
    </>
  );
}

function TransferCard({ projectId, ownerTeamId }: { projectId: string; ownerTeamId: string | null }) {
  const teams = useQuery(internalApp.teamsQuery(), internalApp.queryClient);
  const [teamId, setTeamId] = useState('');
  const [newTeam, setNewTeam] = useState('');
  const [done, setDone] = useState(false);
  // Owner teams are teams of the internal project: an owner may create one (e.g. for a client or
  // a company) and invite co-owners to it with the SDK.
  const create = useFormAction(teamCreateSchema, async (input: { display_name: string }) => {
    const team = await internalApp.createTeam(input);
    setTeamId(team.id);
    setNewTeam('');
  });
  const createTeam = (event: FormEvent) => {
    event.preventDefault();
    void create.submit({ display_name: newTeam.trim() });
  };
  return (
    <Card title="Transfer">
      <p className="muted" style={{ marginTop: 0 }}>
        Move this project to another of your owner teams; that team's members become its owners.
      </p>
      <QueryView query={teams} loadingLabel="Loading your teams…">
        {(items) => {
          const others = items.filter((team) => team.id !== ownerTeamId);
          const current = items.find((team) => team.id === ownerTeamId);
          return (
            <div className="stack">
              <p className="small" style={{ margin: 0 }}>
                Owned by: <strong>{current?.display_name ?? 'a team you are not in'}</strong>
              </p>
              {others.length === 0 ? (
                <p className="muted" style={{ margin: 0 }}>
                  You have no other owner team yet: create one below.
                </p>
              ) : (
                <div className="row" style={{ alignItems: 'flex-end' }}>
                  <div style={{ minWidth: 260 }}>
                    <Field label="New owner team">
                      {(props) => (
                        <select {...props} value={teamId} onChange={(event) => setTeamId(event.target.value)}>
                          <option value="">Choose a team…</option>
                          {others.map((team) => (
                            <option key={team.id} value={team.id}>
                              {team.display_name}
                            </option>
                          ))}
                        </select>
                      )}
                    </Field>
                  </div>
                  <ConfirmButton
                    className="button"
                    label="Transfer"
                    title="Transfer this project?"
                    message={<p>The members of the chosen team will own it. If you are not one of them, you lose access.</p>}
                    onConfirm={async () => {
                      setDone(false);
                      const input = { project_id: projectId, new_team_id: teamId };
                      if (fieldErrors(projectTransferSchema, input)) throw new Error('Choose a team first.');
                      await internalApp.transferProject(input);
                      setDone(true);
                    }}
                  />
                </div>
              )}
              <InlineForm onSubmit={createTeam} submitLabel="Create team" align="end">
                <InlineInput
                  label="Create an owner team"
                  error={create.errors.display_name}
                  type="text"
                  value={newTeam}
                  onValue={setNewTeam}
                  style={{ minWidth: 260 }}
                />
              </InlineForm>
            </div>
          );
        }}
      </QueryView>
      {done ? (
        <div className="alert alert-ok" role="status">
          Transferred.
        </div>
      ) : null}
      <ErrorMessage error={create.error} />
    </Card>
  );
}

/**
 * Production mode: switched on only once the spec's problems are fixed (the server refuses too,
 * PRODUCTION_MODE_HAS_PROBLEMS), so with problems the switch is off and disabled and the problems
 * are listed with their fix links. Once on, problems that come back are shown the same way.
 */
function ProductionMode({ projectId, project, onChange }: { projectId: string; project: PageProps['project']; onChange: (checked: boolean) => unknown }) {
  const problems = project.production_mode_problems;
  const blocked = problems.length > 0 && !project.is_production_mode;
  return (
    <div className="stack">
      <Switch
        label="Production mode"
        description={
          blocked
            ? `Fix the ${problems.length === 1 ? 'problem' : `${problems.length} problems`} below first, then switch it on.`
            : 'Strict checks for a live app: no localhost, no bare IP addresses, HTTPS trusted domains.'
        }
        checked={project.is_production_mode}
        disabled={blocked}
        onChange={onChange}
      />
      {problems.length > 0 ? (
        <div className={`alert ${project.is_production_mode ? 'alert-error' : 'alert-warn'}`}>
          <strong>{project.is_production_mode ? 'Production mode is on, but the project has problems' : 'Fix these first'}</strong>
          <ul aria-label="Production mode problems to fix" style={{ margin: '4px 0 0', paddingLeft: 18 }}>
            {problems.map((problem) => (
              <li key={problem.message}>
                {problem.message} — <Link href={problem.relative_fix_url}>fix it on the Domains page</Link>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {problems.length === 0 && !project.is_production_mode ? (
        <p className="muted small" style={{ margin: 0 }}>
          No problems: <Link href={`/projects/${projectId}/domains`}>the domains</Link> are ready for production mode.
        </p>
      ) : null}
    </div>
  );
}
