import type { z } from 'zod';
import type { TeamRow } from '../../db/schema.js';
import type { AuthContext } from '../../access/context.js';
import type { clientMemberProfileSchema, clientTeamSchema, serverMemberProfileSchema, serverTeamSchema } from '../../../contract/schemas/teams.js';
import { toUserDto } from '../users/dto.js';
import type { MemberProfileRow } from './queries.js';

export type ClientTeam = z.infer<typeof clientTeamSchema>;
export type ServerTeam = z.infer<typeof serverTeamSchema>;
export type ClientMemberProfile = z.infer<typeof clientMemberProfileSchema>;
export type ServerMemberProfile = z.infer<typeof serverMemberProfileSchema>;
export type Json = ClientTeam['client_metadata'];

/** The one place that decides which team fields each access level sees (the same rules as users). */
export function toTeamDto(row: TeamRow, view: AuthContext['type']): ClientTeam | ServerTeam {
  const client: ClientTeam = {
    id: row.id,
    display_name: row.display_name,
    profile_image_url: row.profile_image_url,
    client_metadata: (row.client_metadata ?? null) as Json,
    client_read_only_metadata: (row.client_read_only_metadata ?? null) as Json,
    created_at_millis: row.created_at.getTime(),
  };
  if (view === 'client') return client;
  return { ...client, server_metadata: (row.server_metadata ?? null) as Json };
}

/** A member profile falls back to the user's own name and image until the member sets their own. */
export function toMemberProfileDto(profile: MemberProfileRow, view: AuthContext['type']): ClientMemberProfile | ServerMemberProfile {
  const client: ClientMemberProfile = {
    team_id: profile.member.team_id,
    user_id: profile.member.user_id,
    display_name: profile.member.display_name ?? profile.user.display_name,
    profile_image_url: profile.member.profile_image_url ?? profile.user.profile_image_url,
  };
  if (view === 'client') return client;
  return { ...client, user: toUserDto(profile.user, 'server') };
}
