/** Team invitations: sending, listing and withdrawing them, and the invitation codes (all levels). */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore, MEMBERSHIP_DATA } from '../core.js';
import { type Result, VERIFICATION_CODE_ERRORS, type VerificationCodeError, toResult } from '../errors.js';
import type { RouterOutputs } from '../transport.js';

/** A pending invitation to a team. */
export type TeamInvitation = RouterOutputs['teamInvitations']['list']['items'][number];
/** The team an invitation code is for (what an invitation page shows before accepting). */
export type TeamInvitationDetails = RouterOutputs['teamInvitations']['details'];
/** Why an invitation code did not work: not found (or withdrawn), expired, already used, or out of attempts. */
export type InvitationCodeError = VerificationCodeError;

const INVITATION_CODE_ERRORS = VERIFICATION_CODE_ERRORS;

/** Invitations to teams. */
export abstract class TeamInvitationsFeature extends AppCore {
  private teamInvitationUrl(): string {
    return this.handlerUrl(
      'teamInvitation',
      'inviteUser needs a callback_url outside a browser (the absolute URL of the page of your app that accepts invitations), or an absolute urls.teamInvitation option.',
    );
  }

  /**
   * Invites someone to a team by email (clients: with `$invite_members`). The email links to
   * `callback_url?code=…` (default: the `urls.teamInvitation` page), which must be a trusted
   * domain of the project (or localhost while allowed); the code is single-use and expires in 7
   * days. Returns the invitation's id.
   *
   * @example
   * await app.inviteUser(team.id, { email: 'bob@example.com', callback_url: 'https://app.example.com/handler/team-invitation' });
   */
  async inviteUser(teamId: string, input: { email: string; callback_url?: string }): Promise<{ id: string }> {
    const body = { email: input.email, team_id: teamId, callback_url: input.callback_url ?? this.teamInvitationUrl() };
    const sent = await this.call((context) => this.trpc.teamInvitations.sendCode.mutate(body, { context }), { session: this.accessLevel() === 'client' });
    this.invalidate(['teamInvitations.']);
    return { id: sent.id };
  }

  /**
   * A team's pending invitations as a cached query.
   *
   * @example
   * app.subscribe(() => app.teamInvitationsQuery(team.id), (state) => console.log(state.data));
   */
  teamInvitationsQuery(teamId: string): LatchQuery<TeamInvitation[]> {
    const asSession = this.accessLevel() === 'client';
    const input = { team_id: teamId };
    return this.listQuery(asSession, 'teamInvitations.list', input, (context) => this.trpc.teamInvitations.list.query(input, { context }));
  }

  /**
   * A team's pending invitations (clients: with `$read_members` and `$invite_members`).
   *
   * @example
   * const pending = await app.listTeamInvitations(team.id);
   */
  async listTeamInvitations(teamId: string): Promise<TeamInvitation[]> {
    return this.queryClient.fetchQuery(this.teamInvitationsQuery(teamId));
  }

  /**
   * Withdraws an invitation: its code stops working at once (clients: with `$remove_members`).
   *
   * @example
   * await app.revokeTeamInvitation(team.id, invitation.id);
   */
  async revokeTeamInvitation(teamId: string, invitationId: string): Promise<void> {
    await this.mutate(
      ['teamInvitations.'],
      (context) => this.trpc.teamInvitations.revoke.mutate({ invitation_id: invitationId, team_id: teamId }, { context }),
      {
        session: this.accessLevel() === 'client',
      },
    );
  }

  /**
   * Accepts an invitation for the signed-in user, who joins the team (with
   * `team_member_default_permissions`). A code that is unknown, withdrawn, expired, used or out of
   * attempts is returned as an error.
   *
   * @example
   * const code = new URL(location.href).searchParams.get('code')!;
   * const result = await app.acceptTeamInvitation(code);
   * if (result.status === 'ok') await app.selectTeam(result.data.team_id);
   * else showError(result.error.message); // e.g. KnownErrors.VerificationCodeExpired
   */
  async acceptTeamInvitation(code: string): Promise<Result<{ team_id: string }, InvitationCodeError>> {
    const accept = this.call((context) => this.trpc.teamInvitations.accept.mutate({ code }, { context }), { session: true }).then((accepted) => {
      this.invalidate(MEMBERSHIP_DATA);
      return { team_id: accepted.team_id };
    });
    return toResult(accept, INVITATION_CODE_ERRORS);
  }

  /**
   * Checks an invitation code without using it (it counts as an attempt).
   *
   * @example
   * const valid = (await app.checkTeamInvitationCode(code)).status === 'ok';
   */
  async checkTeamInvitationCode(code: string): Promise<Result<void, InvitationCodeError>> {
    const check = this.call((context) => this.trpc.teamInvitations.checkCode.mutate({ code }, { context })).then(() => undefined);
    return toResult(check, INVITATION_CODE_ERRORS);
  }

  /**
   * The team an invitation code is for, to show before accepting (counts as an attempt).
   *
   * @example
   * const details = await app.getTeamInvitationDetails(code);
   * if (details.status === 'ok') render(`Join ${details.data.team_display_name}?`);
   */
  async getTeamInvitationDetails(code: string): Promise<Result<TeamInvitationDetails, InvitationCodeError>> {
    return toResult(
      this.call((context) => this.trpc.teamInvitations.details.mutate({ code }, { context })),
      INVITATION_CODE_ERRORS,
    );
  }
}
