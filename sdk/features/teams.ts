/**
 * Teams, memberships and member profiles (all levels; clients need the team's system
 * permissions). The `V` type parameter gives a `ServerApp` the server views and inputs.
 */
import type { LatchQuery } from '../cache.js';
import { AppCore, MEMBERSHIP_DATA } from '../core.js';
import { KnownErrors } from '../errors.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';
import { type ClientUser, CurrentUserFeature } from './users.js';

type TeamWire = RouterOutputs['teams']['get'];
type MemberProfileWire = RouterOutputs['teams']['getMemberProfile'];
/** A team as server code sees it (includes `server_metadata`). */
export type ServerTeam = Extract<TeamWire, { server_metadata: unknown }>;
/** A team as its members see it. */
export type ClientTeam = Omit<ServerTeam, 'server_metadata'>;
/** A member's profile in a team, with the member's user (server view). */
export type ServerTeamMemberProfile = Extract<MemberProfileWire, { user: unknown }>;
/** A member's profile in a team: their name and image there (falling back to the user's own). */
export type ClientTeamMemberProfile = Omit<ServerTeamMemberProfile, 'user'>;
/** What server code may set on a new team (`creator_user_id` joins it as its creator). */
export type TeamCreateInput = RouterInputs['teams']['create'];
/** What a signed-in user may set on a team they create. */
export type ClientTeamCreateInput = Pick<TeamCreateInput, 'display_name' | 'profile_image_url' | 'client_metadata'>;
/** What server code may change on a team (the three metadata fields included). */
export type TeamUpdateInput = Omit<RouterInputs['teams']['update'], 'team_id'>;
/** What a member holding `$update_team` may change on a team. */
export type ClientTeamUpdate = Pick<TeamUpdateInput, 'display_name' | 'profile_image_url' | 'client_metadata'>;
/** A member's own display name and image in one team. */
export type TeamMemberProfileUpdate = Omit<RouterInputs['teams']['updateMemberProfile'], 'team_id' | 'user_id'>;
/** A team membership made by server code. */
export type TeamMembership = RouterOutputs['teams']['addMember'];

/**
 * The shapes that differ by access level, so a `ServerApp` gets server views of teams and member
 * profiles, and may send the server-only fields, from the same methods.
 */
export interface ClientTeamViews {
  team: ClientTeam;
  memberProfile: ClientTeamMemberProfile;
  teamCreate: ClientTeamCreateInput;
  teamUpdate: ClientTeamUpdate;
}

/** Server views of teams and member profiles, and the server-only fields on writes. */
export interface ServerTeamViews extends ClientTeamViews {
  team: ServerTeam;
  memberProfile: ServerTeamMemberProfile;
  teamCreate: TeamCreateInput;
  teamUpdate: TeamUpdateInput;
}

/** Teams and their members (`selectTeam` changes the user, hence {@link CurrentUserFeature}). */
export abstract class TeamsFeature<U extends ClientUser = ClientUser, V extends ClientTeamViews = ClientTeamViews> extends CurrentUserFeature<U> {
  /**
   * Teams as a cached query: the signed-in user's (client); all of the project's, or the teams of
   * `userId`, for server code.
   *
   * @example
   * app.subscribe(() => app.teamsQuery(), (state) => renderTeamSwitcher(state.data ?? []));
   */
  teamsQuery(options: { userId?: string } = {}): LatchQuery<V['team'][]> {
    const asSession = this.sessionFor(options.userId, false);
    const input = options.userId === undefined ? {} : { user_id: options.userId };
    return this.listQuery<V['team']>(asSession, 'teams.list', input, (context) => this.trpc.teams.list.query(input, { context }));
  }

  /**
   * The teams the signed-in user is in (client). Server code gets all of the project's teams, or
   * those of one user with `userId`.
   *
   * @example
   * const teams = await app.listTeams();
   * const theirs = await server.listTeams({ userId: user.id });
   */
  async listTeams(options: { userId?: string } = {}): Promise<V['team'][]> {
    return this.queryClient.fetchQuery(this.teamsQuery(options));
  }

  /**
   * A team as a cached query (data null when there is no such team, or, on the client, when the
   * user is not in it).
   *
   * @example
   * app.subscribe(() => app.teamQuery(teamId), (state) => console.log(state.data?.display_name));
   */
  teamQuery(teamId: string): LatchQuery<V['team'] | null> {
    const asSession = this.accessLevel() === 'client';
    const input = { team_id: teamId };
    return this.findQuery(asSession, 'teams.get', input, (context) => this.trpc.teams.get.query(input, { context }) as Promise<V['team']>, [
      KnownErrors.TeamNotFound,
    ]);
  }

  /**
   * A team, or null when there is none (clients: null for teams they are not in, so team ids
   * cannot be probed).
   *
   * @example
   * const team = await app.getTeam(user.selected_team_id!);
   */
  async getTeam(teamId: string): Promise<V['team'] | null> {
    return this.queryClient.fetchQuery(this.teamQuery(teamId));
  }

  /**
   * Creates a team. From the client (when the project has `client_team_creation_enabled`) the
   * signed-in user becomes its first member, with `team_creator_default_permissions`, and it
   * becomes their selected team. Server code may also set the server-only metadata and name the
   * creator with `creator_user_id` (a team without one has no members yet).
   *
   * @example
   * const team = await app.createTeam({ display_name: 'Rocket' });
   * const other = await server.createTeam({ display_name: 'Ops', creator_user_id: user.id, server_metadata: { plan: 'pro' } });
   */
  async createTeam(input: V['teamCreate']): Promise<V['team']> {
    const creator = (input as TeamCreateInput).creator_user_id;
    const asSession = this.accessLevel() === 'client' || creator === 'me';
    const team = (await this.call((context) => this.trpc.teams.create.mutate(input, { context }), { session: asSession })) as V['team'];
    this.invalidate(MEMBERSHIP_DATA);
    return team;
  }

  /**
   * Updates a team (clients: with `$update_team`, and only the client fields).
   *
   * @example
   * await app.updateTeam(team.id, { display_name: 'Rocket 2', client_metadata: { color: 'red' } });
   */
  async updateTeam(teamId: string, patch: V['teamUpdate']): Promise<V['team']> {
    const team = (await this.call((context) => this.trpc.teams.update.mutate({ ...patch, team_id: teamId }, { context }), {
      session: this.accessLevel() === 'client',
    })) as V['team'];
    this.invalidate(['teams.']);
    return team;
  }

  /**
   * Deletes a team with its memberships, permission grants, invitations and API keys (clients:
   * with `$delete_team`).
   *
   * @example
   * await app.deleteTeam(team.id);
   */
  async deleteTeam(teamId: string): Promise<void> {
    await this.call((context) => this.trpc.teams.delete.mutate({ team_id: teamId }, { context }), { session: this.accessLevel() === 'client' });
    this.invalidate(MEMBERSHIP_DATA);
  }

  /**
   * Makes a team the signed-in user's selected team (null: none). Returns the updated user.
   *
   * @example
   * await app.selectTeam(team.id);
   */
  async selectTeam(teamId: string | null): Promise<U> {
    return this.updateUser({ selected_team_id: teamId });
  }

  // ─── Memberships and member profiles ───────────────────────────────────────────────────────────

  /**
   * Leaves a team: the signed-in user's membership ends, with their permissions in it (and it is
   * no longer their selected team).
   *
   * @example
   * await app.leaveTeam(team.id);
   */
  async leaveTeam(teamId: string): Promise<void> {
    await this.call((context) => this.trpc.teams.leave.mutate({ team_id: teamId }, { context }), { session: true });
    this.invalidate(MEMBERSHIP_DATA);
  }

  /**
   * Removes a member from a team (clients: themselves, or others with `$remove_members`).
   *
   * @example
   * await app.removeTeamMember(team.id, member.user_id);
   */
  async removeTeamMember(teamId: string, userId: string): Promise<void> {
    await this.call((context) => this.trpc.teams.removeMember.mutate({ team_id: teamId, user_id: userId }, { context }), {
      session: this.sessionFor(userId, false),
    });
    this.invalidate(MEMBERSHIP_DATA);
  }

  /**
   * Member profiles as a cached query, by team and/or user (clients: their own, or a team's with
   * `$read_members`; `userId: 'me'` is the signed-in user).
   *
   * @example
   * app.subscribe(() => app.teamMemberProfilesQuery({ teamId }), (state) => renderMembers(state.data ?? []));
   */
  teamMemberProfilesQuery(filter: { teamId?: string; userId?: string }): LatchQuery<V['memberProfile'][]> {
    const asSession = this.sessionFor(filter.userId, false);
    const input = { ...(filter.teamId === undefined ? {} : { team_id: filter.teamId }), ...(filter.userId === undefined ? {} : { user_id: filter.userId }) };
    return this.listQuery<V['memberProfile']>(asSession, 'teams.listMemberProfiles', input, (context) =>
      this.trpc.teams.listMemberProfiles.query(input, { context }),
    );
  }

  /**
   * Member profiles by team and/or user: `{ userId: 'me' }` lists the signed-in user's profile in
   * each of their teams.
   *
   * @example
   * const mine = await app.listTeamMemberProfiles({ userId: 'me' });
   */
  async listTeamMemberProfiles(filter: { teamId?: string; userId?: string }): Promise<V['memberProfile'][]> {
    return this.queryClient.fetchQuery(this.teamMemberProfilesQuery(filter));
  }

  /**
   * The members of a team, as their member profiles (clients: with `$read_members`; server code
   * also gets each member's `user`).
   *
   * @example
   * const members = await app.listTeamUsers(team.id);
   * console.log(members.map((m) => m.display_name));
   */
  async listTeamUsers(teamId: string): Promise<V['memberProfile'][]> {
    return this.listTeamMemberProfiles({ teamId });
  }

  /**
   * A member's profile in a team (default: the signed-in user's), or null when they are not a
   * member (clients: also for teams they are not in; others' profiles need `$read_members`).
   *
   * @example
   * const profile = await app.getTeamMemberProfile(team.id);
   */
  async getTeamMemberProfile(teamId: string, options: { userId?: string } = {}): Promise<V['memberProfile'] | null> {
    const input = { team_id: teamId, user_id: options.userId ?? 'me' };
    const asSession = this.sessionFor(options.userId);
    return this.queryClient.fetchQuery(
      this.findQuery(
        asSession,
        'teams.getMemberProfile',
        input,
        (context) => this.trpc.teams.getMemberProfile.query(input, { context }) as Promise<V['memberProfile']>,
        [KnownErrors.TeamMembershipNotFound, KnownErrors.TeamNotFound],
      ),
    );
  }

  /**
   * Sets a member's display name or image in one team (default: the signed-in user's own;
   * someone else's takes server access). null goes back to the user's own name or image.
   *
   * @example
   * await app.updateTeamMemberProfile(team.id, { display_name: 'Ann (design)' });
   */
  async updateTeamMemberProfile(teamId: string, patch: TeamMemberProfileUpdate, options: { userId?: string } = {}): Promise<V['memberProfile']> {
    const input = { ...patch, team_id: teamId, user_id: options.userId ?? 'me' };
    const profile = (await this.call((context) => this.trpc.teams.updateMemberProfile.mutate(input, { context }), {
      session: this.sessionFor(options.userId),
    })) as V['memberProfile'];
    this.invalidate(['teams.listMemberProfiles', 'teams.getMemberProfile']);
    return profile;
  }
}

/** Memberships made by server code. */
export abstract class ServerTeamsFeature extends AppCore {
  /**
   * Adds a user to a team, with `team_member_default_permissions` (clients join through
   * invitations). Throws TEAM_MEMBERSHIP_ALREADY_EXISTS when they already are a member.
   *
   * @example
   * await server.addTeamMember(team.id, user.id);
   */
  async addTeamMember(teamId: string, userId: string): Promise<TeamMembership> {
    const membership = await this.call((context) => this.trpc.teams.addMember.mutate({ team_id: teamId, user_id: userId }, { context }), {
      session: userId === 'me',
    });
    this.invalidate(MEMBERSHIP_DATA);
    return membership;
  }
}
