/**
 * A project's co-owners on its settings page: the members of its owner team, an invitation by
 * email (sent by the server through the internal project; its link opens this console's
 * /owner-invitation page), pending invitations, and removing an owner. The server refuses to
 * remove the last one (LAST_PROJECT_OWNER), and the page says so before anyone tries.
 */
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { z } from 'zod';
import { emailSchema } from '../../contract/validation/schemas.js';
import { internalApp } from '../api.js';
import { InvitationSent, pendingInvitationsTable } from './invitation-form.js';
import { navigate } from './router.js';
import { Card, ConfirmButton, DataTable, ErrorMessage, InlineForm, InlineInput, QueryView, Table, formatDate, useFormAction } from './ui.js';

const inviteSchema = z.object({ email: emailSchema });

export function OwnersCard({ projectId }: { projectId: string }) {
  const owners = useQuery(internalApp.projectOwnersQuery(projectId), internalApp.queryClient);
  const invitations = useQuery(internalApp.projectOwnerInvitationsQuery(projectId), internalApp.queryClient);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const invite = useFormAction(inviteSchema, async (input: { email: string }) => {
    await internalApp.inviteProjectOwner(projectId, input.email);
    setSent(input.email);
    setEmail('');
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSent(null);
    void invite.submit({ email: email.trim() });
  };
  return (
    <Card title="Owners">
      <QueryView query={owners} loadingLabel="Loading owners…">
        {(data) => {
          const last = data.items.length <= 1;
          return (
            <div className="stack">
              <p className="muted" style={{ margin: 0 }}>
                The owners are the members of the owner team <strong>{data.owner_team.display_name}</strong>
                {data.owner_team.owned_project_count > 1 ? `, which owns ${data.owner_team.owned_project_count} projects: its members own all of them` : ''}.
                {last ? ' You are the only owner: invite someone before you can leave.' : ''}
              </p>
              <Table
                label="Owners"
                columns={['Owner', 'Owner since', null]}
                items={data.items}
                row={(owner) => {
                  const name = owner.primary_email ?? owner.display_name ?? owner.user_id;
                  return (
                    <tr key={owner.user_id}>
                      <td>
                        {name} {owner.is_current_user ? <span className="badge">you</span> : null}
                      </td>
                      <td>{formatDate(owner.joined_at_millis)}</td>
                      <td className="actions end">
                        {last ? null : (
                          <ConfirmButton
                            className="button small danger"
                            label={owner.is_current_user ? 'Leave' : 'Remove'}
                            title={owner.is_current_user ? 'Stop owning this project?' : `Remove ${name}?`}
                            message={
                              <p>
                                {owner.is_current_user ? 'You lose' : 'They lose'} access to every project of {data.owner_team.display_name}.
                              </p>
                            }
                            onConfirm={async () => {
                              await internalApp.removeProjectOwner(projectId, owner.user_id);
                              if (owner.is_current_user) navigate('/projects');
                            }}
                          />
                        )}
                      </td>
                    </tr>
                  );
                }}
              />
            </div>
          );
        }}
      </QueryView>
      <h3 className="small" style={{ margin: '16px 0 8px' }}>
        Pending invitations
      </h3>
      <DataTable
        label="Pending owner invitations"
        query={invitations}
        {...pendingInvitationsTable((invitation) => internalApp.revokeProjectOwnerInvitation(projectId, invitation.id))}
      />
      <InlineForm onSubmit={submit} submitLabel="Invite owner" align="start" spaced>
        <InlineInput
          label="Invite a co-owner by email"
          hint="They get a link to this console, sign in or create an account, and accept."
          error={invite.errors.email}
          type="email"
          value={email}
          onValue={setEmail}
          style={{ flex: 1, minWidth: 220 }}
        />
      </InlineForm>
      <InvitationSent to={sent} />
      <ErrorMessage error={invite.error} title="Could not invite" />
    </Card>
  );
}
