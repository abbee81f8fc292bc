import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { sendCodeSchema } from '../../contract/schemas/team-invitations.js';
import { teamCreateSchema, teamUpdateSchema } from '../../contract/schemas/teams.js';
import type { ServerTeam } from '../../sdk/index.js';
import { InvitationForm, type InvitationInput, pendingInvitationsTable, projectHandlerUrl } from '../components/invitation-form.js';
import { ApiKeyListCard } from '../components/key-list.js';
import { MetadataEditor } from '../components/metadata-editor.js';
import { Link, navigate } from '../components/router.js';
import {
  Card,
  ConfirmButton,
  DataTable,
  DialogFooter,
  Empty,
  ErrorMessage,
  Field,
  InlineForm,
  InlineInput,
  Modal,
  PageHeader,
  PrimaryButton,
  QueryTable,
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

/** Teams: the list and create; one team's members (with their permissions) and invitations. */
export function TeamsPage({ projectId, admin, teamId }: PageProps & { teamId: string | null }) {
  if (teamId) return <TeamDetail projectId={projectId} admin={admin} teamId={teamId} />;
  return <TeamList projectId={projectId} admin={admin} />;
}

function TeamList({ projectId, admin }: { projectId: string; admin: PageProps['admin'] }) {
  const teams = useQuery(admin.teamsQuery(), admin.queryClient);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const create = useFormAction(teamCreateSchema, async (input: { display_name: string }) => {
    const team = await admin.createTeam(input);
    setCreating(false);
    setName('');
    navigate(`/projects/${projectId}/teams/${team.id}`);
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create.submit({ display_name: name.trim() });
  };
  return (
    <>
      <PageHeader
        title="Teams"
        description="Groups of users with their own permissions."
        actions={<PrimaryButton onClick={() => setCreating(true)}>Create team</PrimaryButton>}
      />
      <QueryTable
        query={teams}
        loadingLabel="Loading teams…"
        empty={<Empty title="No teams yet">Teams are created by your users (when allowed) or here.</Empty>}
        label="Teams"
        columns={['Team', 'Created', 'ID']}
        row={(team) => (
          <tr key={team.id} className="clickable" onClick={() => navigate(`/projects/${projectId}/teams/${team.id}`)}>
            <td>
              <Link href={`/projects/${projectId}/teams/${team.id}`} onClick={(event) => event.stopPropagation()}>
                {team.display_name}
              </Link>
            </td>
            <td>{formatDate(team.created_at_millis)}</td>
            <td className="mono small muted">{team.id}</td>
          </tr>
        )}
      />
      <Modal title="Create team" open={creating} onClose={() => setCreating(false)}>
        <form className="form" onSubmit={submit} noValidate>
          <Field label="Team name" error={create.errors.display_name}>
            {(props) => <input {...props} type="text" value={name} onChange={(event) => setName(event.target.value)} autoFocus />}
          </Field>
          <DialogFooter error={create.error} errorTitle="Could not create the team" submitLabel="Create team" onCancel={() => setCreating(false)} />
        </form>
      </Modal>
    </>
  );
}

function TeamDetail({ projectId, admin, teamId }: { projectId: string; admin: PageProps['admin']; teamId: string }) {
  const team = useQuery(admin.teamQuery(teamId), admin.queryClient);
  return (
    <>
      <p>
        <Link href={`/projects/${projectId}/teams`}>← Teams</Link>
      </p>
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
              <MetadataEditor
                values={data as ServerTeam}
                schema={teamUpdateSchema}
                extra={{ team_id: data.id }}
                onSave={(patch) => admin.updateTeam(data.id, patch)}
              />
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
  const save = useFormAction(teamUpdateSchema, (patch: { display_name: string; profile_image_url: string | null }) => admin.updateTeam(team.id, patch));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const patch = { display_name: name.trim(), profile_image_url: image.trim() || null };
    void save.submit(patch, { team_id: team.id, ...patch });
  };
  return (
    <Card title="Team">
      <form className="form" onSubmit={submit} noValidate>
        <Field label="Team name" error={save.errors.display_name}>
          {(props) => <input {...props} type="text" value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field label="Profile image URL" error={save.errors.profile_image_url}>
          {(props) => <input {...props} type="url" value={image} onChange={(event) => setImage(event.target.value)} />}
        </Field>
        <SaveFooter action={save} label="Save team" />
      </form>
    </Card>
  );
}

function MembersCard({ projectId, admin, team }: { projectId: string; admin: PageProps['admin']; team: ServerTeam }) {
  const members = useQuery(admin.teamMemberProfilesQuery({ teamId: team.id }), admin.queryClient);
  const [email, setEmail] = useState('');
  const [managing, setManaging] = useState<string | null>(null);
  const adding = useAction(async (address: string) => {
    // Find the user by exact email (the list API searches; keep only the exact match).
    const found = await admin.listUsers({ query: address, limit: 20 });
    const user = found.items.find((item) => item.primary_email?.toLowerCase() === address.toLowerCase());
    if (!user) throw new Error(`No user of this project has the email ${address}.`);
    await admin.addTeamMember(team.id, user.id);
    setEmail('');
  });
  const add = (event: FormEvent) => {
    event.preventDefault();
    void adding.run(email.trim());
  };
  const userOf = (member: NonNullable<typeof members.data>[number]) => ('user' in member ? member.user : null);
  return (
    <Card title="Members">
      <DataTable
        query={members}
        loadingLabel="Loading members…"
        empty={<Empty title="No members" />}
        label="Members"
        rowKey={(member) => member.user_id}
        columns={[
          {
            title: 'Member',
            cell: (member) => (
              <Link href={`/projects/${projectId}/users/${member.user_id}`}>
                {member.display_name ?? userOf(member)?.display_name ?? member.user_id.slice(0, 8)}
              </Link>
            ),
          },
          { title: 'Email', cell: (member) => userOf(member)?.primary_email ?? '—' },
        ]}
        actions={(member) => <SmallButton onClick={() => setManaging(member.user_id)}>Permissions</SmallButton>}
        remove={{
          label: 'Remove',
          title: 'Remove this member?',
          message: () => <p>They lose the team's permissions at once.</p>,
          run: (member) => admin.removeTeamMember(team.id, member.user_id),
        }}
      />
      <InlineForm onSubmit={add} submitLabel="Add member" align="end" spaced>
        <InlineInput label="Add a user by email" type="email" value={email} onValue={setEmail} style={{ flex: 1, maxWidth: 360 }} />
      </InlineForm>
      <ErrorMessage error={adding.error} />
      {managing ? <MemberPermissionsDialog admin={admin} teamId={team.id} userId={managing} onClose={() => setManaging(null)} /> : null}
    </Card>
  );
}

function MemberPermissionsDialog({ admin, teamId, userId, onClose }: { admin: PageProps['admin']; teamId: string; userId: string; onClose: () => void }) {
  const definitions = useQuery(admin.teamPermissionDefinitionsQuery(), admin.queryClient);
  // Direct grants only: what can be granted and revoked here.
  const held = useQuery(admin.teamPermissionsQuery(teamId, { userId, recursive: false }), admin.queryClient);
  const toggle = useAction((id: string, on: boolean) => (on ? admin.grantTeamPermission(teamId, userId, id) : admin.revokeTeamPermission(teamId, userId, id)));
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
                      label={
                        <>
                          <code>{definition.id}</code> <span className="muted small">{definition.description}</span>
                        </>
                      }
                      checked={granted.has(definition.id)}
                      onChange={(checked) => toggle.run(definition.id, checked)}
                    />
                  ))}
                </div>
              );
            }}
          </QueryView>
        )}
      </QueryView>
      <ErrorMessage error={toggle.error} title="Could not change the permission" />
    </Modal>
  );
}

function InvitationsCard({ admin, teamId }: { admin: PageProps['admin']; teamId: string }) {
  const project = useQuery(admin.projectQuery(), admin.queryClient);
  const invitations = useQuery(admin.teamInvitationsQuery(teamId), admin.queryClient);
  const inviting = useFormAction(sendCodeSchema, async (input: InvitationInput & { team_id: string }) => {
    await admin.inviteUser(teamId, { email: input.email, callback_url: input.callback_url });
  });
  return (
    <TableCard title="Invitations" query={invitations} {...pendingInvitationsTable((invitation) => admin.revokeTeamInvitation(teamId, invitation.id))}>
      <InvitationForm
        emailLabel="Invite by email"
        callbackUrlLabel="Invitation page of your app"
        callbackUrlHint="The team-invitation page of your app's handler, on a trusted domain of the project (Domains)."
        initialCallbackUrl={projectHandlerUrl(project.data?.config.domains ?? [], 'team-invitation')}
        errors={inviting.errors}
        spaced
        send={(input) => inviting.submit({ ...input, team_id: teamId })}
      />
      <ErrorMessage error={inviting.error} title="Could not invite" />
    </TableCard>
  );
}

function TeamKeysCard({ admin, teamId }: { admin: PageProps['admin']; teamId: string }) {
  const keys = useQuery(admin.teamApiKeysQuery(teamId), admin.queryClient);
  return <ApiKeyListCard admin={admin} title="Team API keys" query={keys} enabledBy="allow_team_api_keys" onRevoke={(id) => admin.revokeTeamApiKey(id)} />;
}
