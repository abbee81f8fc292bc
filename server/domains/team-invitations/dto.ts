import type { z } from 'zod';
import type { TeamInvitationRow } from '../../db/schema.js';
import type { invitationSchema } from '../../../contract/schemas/team-invitations.js';

export type TeamInvitation = z.infer<typeof invitationSchema>;

/** A pending invitation: the recipient and when it expires, never its code. */
export function toInvitationDto(row: TeamInvitationRow): TeamInvitation {
  return { id: row.id, team_id: row.team_id, recipient_email: row.recipient_email, expires_at_millis: row.expires_at.getTime() };
}
