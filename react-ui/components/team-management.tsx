/**
 * One team, managed by its own people: its settings, members, invitations, the caller's own
 * permissions, leaving and deleting, and its billing — each part shown only to a member who holds the system
 * permission the server checks for it ($update_team (settings, billing), $read_members, $invite_members,
 * $remove_members, $delete_team), so the page never offers what would be refused. Projects created
 * in the console give a team's creator `team_admin` (all of them) and later members `team_member`
 * ($read_members, $invite_members).
 */
import { useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApp, useLatchContext, useProject, useUser } from '../hooks.js';
import { absoluteUrl } from '../location.js';
import { validateEmail, validateTeamName } from '../validation.js';
import { BillingSection } from './billing.js';
import { ApiKeysSection, Feedback, OneFieldForm, RowButton, Section, useAction, useOneFieldForm } from './settings-parts.js';
import { Alert, Avatar, Button, EmailField, Field } from './ui.js';

export function TeamManagement({ teamId }: { teamId: string }) {
  const app = useApp();
  const project = useProject();
  const team = useSuspenseQuery(app.teamQuery(teamId)).data;
  const held = new Set(useSuspenseQuery(app.teamPermissionsQuery(teamId, { recursive: true })).data.map((p) => p.id));
  if (!team) return <p className="latch-hint">You are no longer a member of this team.</p>;
  return (
    <div className="latch-team-management" aria-label={`Manage ${team.display_name}`} role="region">
      {held.has('$update_team') ? <TeamSettings teamId={teamId} displayName={team.display_name} /> : null}
      {/* The team's billing: $update_team, as the server asks of a client for the team's checkout and billing portal. */}
      {held.has('$update_team') ? <BillingSection customer={{ teamId }} title="Team billing" /> : null}
      {held.has('$read_members') ? <Members teamId={teamId} canRemove={held.has('$remove_members')} /> : null}
      {held.has('$invite_members') ? <Invitations teamId={teamId} canList={held.has('$read_members')} canWithdraw={held.has('$remove_members')} /> : null}
      {held.has('$manage_api_keys') && project.config.allow_team_api_keys ? <TeamApiKeys teamId={teamId} /> : null}
      <Section title="Your permissions in this team">
        {held.size === 0 ? (
          <p className="latch-hint">None: you can see the team and leave it.</p>
        ) : (
          <ul className="latch-list" aria-label="Your permissions">
            {[...held].sort().map((id) => (
              <li key={id} className="latch-list-item">
                <code>{id}</code>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <LeaveOrDelete teamId={teamId} displayName={team.display_name} canDelete={held.has('$delete_team')} />
    </div>
  );
}

function TeamSettings({ teamId, displayName }: { teamId: string; displayName: string }) {
  const app = useApp();
  const action = useAction();
  const name = useOneFieldForm(action, {
    initial: displayName,
    check: validateTeamName,
    save: async (trimmed) => (await app.updateTeam(teamId, { display_name: trimmed }), 'Team name saved.'),
  });
  return (
    <Section title="Team settings">
      <OneFieldForm form={name} action={action} label="Team settings" submitLabel="Save">
        <Field label="Team name" name="team-display-name" value={name.value} onChange={(e) => name.onValue(e.target.value)} error={name.error} />
      </OneFieldForm>
    </Section>
  );
}

function Members({ teamId, canRemove }: { teamId: string; canRemove: boolean }) {
  const app = useApp();
  const me = useUser();
  const members = useSuspenseQuery(app.teamMemberProfilesQuery({ teamId })).data;
  const row = useAction();
  return (
    <Section title="Members">
      <ul className="latch-list" aria-label="Members">
        {members.map((member) => {
          const name = member.display_name ?? 'Unnamed member';
          return (
            <li key={member.user_id} className="latch-list-item">
              <span className="latch-row">
                <Avatar name={name} imageUrl={member.profile_image_url} />
                {name}
                {member.user_id === me?.id ? <span className="latch-badge">You</span> : null}
              </span>
              {canRemove && member.user_id !== me?.id ? (
                <RowButton
                  action={row}
                  label={`Remove ${name}`}
                  run={async () => (await app.removeTeamMember(teamId, member.user_id), `${name} was removed from the team.`)}
                >
                  Remove
                </RowButton>
              ) : null}
            </li>
          );
        })}
      </ul>
      <Feedback error={row.error} done={row.done} />
    </Section>
  );
}

function Invitations({ teamId, canList, canWithdraw }: { teamId: string; canList: boolean; canWithdraw: boolean }) {
  const app = useApp();
  const { urls } = useLatchContext();
  const invite = useAction();
  const email = useOneFieldForm(invite, {
    check: validateEmail,
    save: async (trimmed) => {
      // The link in the email opens this app's team-invitation handler page.
      await app.inviteUser(teamId, { email: trimmed, callback_url: absoluteUrl(urls.teamInvitation) });
      return `Invitation sent to ${trimmed}.`;
    },
    emptyOnSave: true,
  });
  return (
    <Section title="Invite a member">
      <OneFieldForm form={email} action={invite} label="Invite a member" submitLabel="Send invitation" secondary>
        <EmailField label="Email to invite" name="invite-email" value={email.value} onValue={email.onValue} error={email.error} />
      </OneFieldForm>
      {canList ? <PendingInvitations teamId={teamId} canWithdraw={canWithdraw} /> : null}
    </Section>
  );
}

function PendingInvitations({ teamId, canWithdraw }: { teamId: string; canWithdraw: boolean }) {
  const app = useApp();
  const invitations = useSuspenseQuery(app.teamInvitationsQuery(teamId)).data;
  const row = useAction();
  if (invitations.length === 0) return <p className="latch-hint">No pending invitations.</p>;
  return (
    <>
      <ul className="latch-list" aria-label="Pending invitations">
        {invitations.map((invitation) => (
          <li key={invitation.id} className="latch-list-item">
            <span>{invitation.recipient_email}</span>
            {canWithdraw ? (
              <RowButton
                action={row}
                label={`Withdraw the invitation to ${invitation.recipient_email}`}
                run={async () => (await app.revokeTeamInvitation(teamId, invitation.id), 'Invitation withdrawn.')}
              >
                Withdraw
              </RowButton>
            ) : null}
          </li>
        ))}
      </ul>
      <Feedback error={row.error} done={row.done} />
    </>
  );
}

function LeaveOrDelete({ teamId, displayName, canDelete }: { teamId: string; displayName: string; canDelete: boolean }) {
  const app = useApp();
  const action = useAction();
  const [confirming, setConfirming] = useState(false);
  return (
    <Section title="Leave or delete">
      <div className="latch-row">
        <Button
          variant="secondary"
          disabled={action.pending}
          onClick={() => void action.run(async () => (await app.leaveTeam(teamId), `You left ${displayName}.`))}
        >
          Leave team
        </Button>
        {canDelete && !confirming ? (
          <Button variant="danger" disabled={action.pending} onClick={() => setConfirming(true)}>
            Delete team
          </Button>
        ) : null}
        {canDelete && confirming ? (
          <Button
            variant="danger"
            disabled={action.pending}
            onClick={() => void action.run(async () => (await app.deleteTeam(teamId), `${displayName} was deleted.`))}
          >
            Delete {displayName} for everyone
          </Button>
        ) : null}
      </div>
      <Feedback error={action.error} done={action.done} />
    </Section>
  );
}

/** The team's API keys, for a member with $manage_api_keys (and the project allowing team keys): list, create (shown once), revoke. */
function TeamApiKeys({ teamId }: { teamId: string }) {
  const app = useApp();
  const keys = useSuspenseQuery(app.teamApiKeysQuery(teamId)).data.filter((key) => key.manually_revoked_at_millis === null);
  return (
    <ApiKeysSection
      text={{
        title: 'Team API keys',
        description: 'Keys let your scripts act for the team. Treat them like passwords.',
        newKeyNote: 'Copy the new key now: it will not be shown again.',
        newKeyLabel: 'New team API key',
        listLabel: 'Team API keys',
        emptyNote: 'No API keys yet.',
        formLabel: 'Create a team API key',
        descriptionLabel: 'Team key description',
        descriptionName: 'team-api-key-description',
        submitLabel: 'Create team key',
      }}
      keys={keys}
      create={(input) => app.createTeamApiKey(teamId, input)}
      revoke={(key) => app.revokeTeamApiKey(key.id)}
      hideNewKeyOnRevoke
    />
  );
}
