import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { sendCodeSchema } from '../../contract/schemas/team-invitations.js';
import { teamCreateSchema, teamUpdateSchema } from '../../contract/schemas/teams.js';
import type { ServerTeam } from '../../sdk/index.js';
import { ApiKeyListCard } from '../components/key-list.js';
import { MetadataEditor } from '../components/metadata-editor.js';
import { Link, navigate } from '../components/router.js';
import { Card, ConfirmButton, Empty, ErrorMessage, Field, Modal, PageHeader, QueryView, SavedCheckbox, fieldErrors, formatDate } from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** Teams: the list and create; one team's members (with their permissions) and invitations. */
export function TeamsPage({ projectId, admin, teamId }: PageProps & { teamId: string | null }) {
  if (teamId) return <TeamDetail projectId={projectId} admin={admin} teamId={teamId} />;
  return <TeamList projectId={projectId} admin={admin} />;
}

function TeamList({ projectId, admin }: { projectId: string; admin: PageProps['admin'] }) {
  const teams = useQuery(admin.teamsQuery(), admin.queryClient);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input = { display_name: name.trim() };
    const invalid = fieldErrors(teamCreateSchema, input);
    setErrors(invalid ?? {});
    if (invalid) return;
    try {
      const team = await admin.createTeam(input);
      setCreating(false);
      setName('');
      navigate(`/projects/${projectId}/teams/${team.id}`);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <>
      <PageHeader title="Teams" description="Groups of users with their own permissions." actions={<button type="button" className="button primary" onClick={() => setCreating(true)}>Create team</button>} />
      <QueryView query={teams} loadingLabel="Loading teams…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No teams yet">Teams are created by your users (when allowed) or here.</Empty>
          ) : (
            <div className="table-wrap">
              <table aria-label="Teams">
                <thead><tr><th scope="col">Team</th><th scope="col">Created</th><th scope="col">ID</th></tr></thead>
                <tbody>
                  {items.map((team) => (
                    <tr key={team.id} className="clickable" onClick={() => navigate(`/projects/${projectId}/teams/${team.id}`)}>
                      <td><Link href={`/projects/${projectId}/teams/${team.id}`} onClick={(event) => event.stopPropagation()}>{team.display_name}</Link></td>
                      <td>{formatDate(team.created_at_millis)}</td>
                      <td className="mono small muted">{team.id}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <Modal title="Create team" open={creating} onClose={() => setCreating(false)}>
        <form className="form" onSubmit={(event) => void submit(event)} noValidate>
          <Field label="Team name" error={errors.display_name}>{(props) => <input {...props} type="text" value={name} onChange={(event) => setName(event.target.value)} autoFocus />}</Field>
          <ErrorMessage error={error} title="Could not create the team" />
          <div className="actions end">
            <button type="button" className="button" onClick={() => setCreating(false)}>Cancel</button>
            <button type="submit" className="button primary">Create team</button>
          </div>
        </form>
      </Modal>
    </>
  );
}

function TeamDetail({ projectId, admin, teamId }: { projectId: string; admin: PageProps['admin']; teamId: string }) {
  const team = useQuery(admin.teamQuery(teamId), admin.queryClient);
  return (
    <>
      <p><Link href={`/projects/${projectId}/teams`}>← Teams</Link></p>
      <QueryView query={team} loadingLabel="Loading the team…">
        {(data) =>
          data === null ? (
            <Empty title="No such team" />
          ) : (
            <>
              <PageHeader
                title={data.display_name}
                description={<span className="mono small">{data.id}</span>}
                actions={
                  <ConfirmButton
                    label="Delete team"
                    title={`Delete ${data.display_name}?`}
                    message={<p>Its memberships, permissions, invitations and API keys go with it.</p>}
                    onConfirm={async () => {
                      await admin.deleteTeam(data.id);
                      navigate(`/projects/${projectId}/teams`);
                    }}
                  />
                }
              />
              <TeamSettingsCard admin={admin} team={data as ServerTeam} />
              <MetadataEditor values={data as ServerTeam} schema={teamUpdateSchema} extra={{ team_id: data.id }} onSave={(patch) => admin.updateTeam(data.id, patch)} />
              <MembersCard projectId={projectId} admin={admin} team={data as ServerTeam} />
              <InvitationsCard admin={admin} teamId={data.id} />
              <TeamKeysCard admin={admin} teamId={data.id} />
            </>
          )
        }
      </QueryView>
    </>
  );
}

function TeamSettingsCard({ admin, team }: { admin: PageProps['admin']; team: ServerTeam }) {
  const [name, setName] = useState(team.display_name);
  const [image, setImage] = useState(team.profile_image_url ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const patch = { display_name: name.trim(), profile_image_url: image.trim() || null };
    const invalid = fieldErrors(teamUpdateSchema, { team_id: team.id, ...patch });
    setErrors(invalid ?? {});
    if (invalid) return;
    try {
      setError(null);
      await admin.updateTeam(team.id, patch);
      setSaved(true);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Card title="Team">
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Team name" error={errors.display_name}>{(props) => <input {...props} type="text" value={name} onChange={(event) => setName(event.target.value)} />}</Field>
        <Field label="Profile image URL" error={errors.profile_image_url}>{(props) => <input {...props} type="url" value={image} onChange={(event) => setImage(event.target.value)} />}</Field>
        <ErrorMessage error={error} title="Could not save" />
        <div className="actions">
          <button type="submit" className="button primary">Save team</button>
          {saved ? <span className="muted" role="status">Saved.</span> : null}
        </div>
      </form>
    </Card>
  );
}

function MembersCard({ projectId, admin, team }: { projectId: string; admin: PageProps['admin']; team: ServerTeam }) {
  const members = useQuery(admin.teamMemberProfilesQuery({ teamId: team.id }), admin.queryClient);
  const [email, setEmail] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [managing, setManaging] = useState<string | null>(null);
  const add = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      // Find the user by exact email (the list API searches; keep only the exact match).
      const found = await admin.listUsers({ query: email.trim(), limit: 20 });
      const user = found.items.find((item) => item.primary_email?.toLowerCase() === email.trim().toLowerCase());
      if (!user) throw new Error(`No user of this project has the email ${email.trim()}.`);
      await admin.addTeamMember(team.id, user.id);
      setEmail('');
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Card title="Members">
      <QueryView query={members} loadingLabel="Loading members…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No members" />
          ) : (
            <div className="table-wrap">
              <table aria-label="Members">
                <thead><tr><th scope="col">Member</th><th scope="col">Email</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
                <tbody>
                  {items.map((member) => {
                    const user = 'user' in member ? member.user : null;
                    return (
                      <tr key={member.user_id}>
                        <td><Link href={`/projects/${projectId}/users/${member.user_id}`}>{member.display_name ?? user?.display_name ?? member.user_id.slice(0, 8)}</Link></td>
                        <td>{user?.primary_email ?? '—'}</td>
                        <td className="actions end">
                          <button type="button" className="button small" onClick={() => setManaging(member.user_id)}>Permissions</button>
                          <ConfirmButton className="button small danger" label="Remove" title="Remove this member?" message={<p>They lose the team's permissions at once.</p>} onConfirm={() => admin.removeTeamMember(team.id, member.user_id)} />
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
      <form className="row" style={{ marginTop: 12, alignItems: 'flex-end' }} onSubmit={(event) => void add(event)} noValidate>
        <div style={{ flex: 1, maxWidth: 360 }}>
          <Field label="Add a user by email">{(props) => <input {...props} type="email" value={email} onChange={(event) => setEmail(event.target.value)} />}</Field>
        </div>
        <button type="submit" className="button">Add member</button>
      </form>
      <ErrorMessage error={error} />
      {managing ? <MemberPermissionsDialog admin={admin} teamId={team.id} userId={managing} onClose={() => setManaging(null)} /> : null}
    </Card>
  );
}

function MemberPermissionsDialog({ admin, teamId, userId, onClose }: { admin: PageProps['admin']; teamId: string; userId: string; onClose: () => void }) {
  const definitions = useQuery(admin.teamPermissionDefinitionsQuery(), admin.queryClient);
  // Direct grants only: what can be granted and revoked here.
  const held = useQuery(admin.teamPermissionsQuery(teamId, { userId, recursive: false }), admin.queryClient);
  const [error, setError] = useState<unknown>(null);
  const toggle = async (id: string, on: boolean): Promise<boolean> => {
    setError(null);
    try {
      if (on) await admin.grantTeamPermission(teamId, userId, id);
      else await admin.revokeTeamPermission(teamId, userId, id);
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    }
  };
  return (
    <Modal title="Member permissions" open onClose={onClose}>
      <QueryView query={definitions} loadingLabel="Loading permissions…">
        {(items) => (
          <QueryView query={held}>
            {(grants) => {
              const granted = new Set(grants.map((grant) => grant.id));
              return (
                <div className="stack">
                  {items.map((definition) => (
                    <SavedCheckbox
                      key={definition.id}
                      label={<><code>{definition.id}</code> <span className="muted small">{definition.description}</span></>}
                      checked={granted.has(definition.id)}
                      onChange={(checked) => toggle(definition.id, checked)}
                    />
                  ))}
                </div>
              );
            }}
          </QueryView>
        )}
      </QueryView>
      <ErrorMessage error={error} title="Could not change the permission" />
    </Modal>
  );
}

function InvitationsCard({ admin, teamId }: { admin: PageProps['admin']; teamId: string }) {
  const invitations = useQuery(admin.teamInvitationsQuery(teamId), admin.queryClient);
  const [email, setEmail] = useState('');
  const [callbackUrl, setCallbackUrl] = useState(`${window.location.origin}/handler/team-invitation`);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const invite = async (event: FormEvent) => {
    event.preventDefault();
    const input = { email: email.trim(), team_id: teamId, callback_url: callbackUrl.trim() };
    const invalid = fieldErrors(sendCodeSchema, input);
    setErrors(invalid ?? {});
    if (invalid) return;
    try {
      setError(null);
      await admin.inviteUser(teamId, { email: input.email, callback_url: input.callback_url });
      setEmail('');
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Card title="Invitations">
      <QueryView query={invitations} loadingLabel="Loading invitations…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No pending invitations" />
          ) : (
            <div className="table-wrap">
              <table aria-label="Invitations">
                <thead><tr><th scope="col">Email</th><th scope="col">Expires</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
                <tbody>
                  {items.map((invitation) => (
                    <tr key={invitation.id}>
                      <td>{invitation.recipient_email}</td>
                      <td>{formatDate(invitation.expires_at_millis)}</td>
                      <td className="actions end"><ConfirmButton className="button small danger" label="Withdraw" title="Withdraw this invitation?" message={<p>The emailed link stops working.</p>} onConfirm={() => admin.revokeTeamInvitation(teamId, invitation.id)} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <form className="row" style={{ marginTop: 12, alignItems: 'flex-start' }} onSubmit={(event) => void invite(event)} noValidate>
        <div style={{ flex: 1, minWidth: 220 }}><Field label="Invite by email" error={errors.email}>{(props) => <input {...props} type="email" value={email} onChange={(event) => setEmail(event.target.value)} />}</Field></div>
        <div style={{ flex: 1, minWidth: 260 }}><Field label="Invitation page of your app" error={errors.callback_url} hint="A trusted domain of the project.">{(props) => <input {...props} type="url" value={callbackUrl} onChange={(event) => setCallbackUrl(event.target.value)} />}</Field></div>
        <button type="submit" className="button" style={{ marginTop: 26 }}>Send invitation</button>
      </form>
      <ErrorMessage error={error} title="Could not invite" />
    </Card>
  );
}

function TeamKeysCard({ admin, teamId }: { admin: PageProps['admin']; teamId: string }) {
  const keys = useQuery(admin.teamApiKeysQuery(teamId), admin.queryClient);
  const project = useQuery(admin.projectQuery(), admin.queryClient);
  return <ApiKeyListCard title="Team API keys" query={keys} enabled={project.data?.config.allow_team_api_keys ?? false} onRevoke={(id) => admin.revokeTeamApiKey(id)} />;
}
