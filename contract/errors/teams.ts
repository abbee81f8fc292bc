/** Teams and memberships (spec section 8, "Permissions and teams"). */
import { defineKnownError } from './known-error.js';

export const teamErrors = {
  TeamNotFound: defineKnownError('TEAM_NOT_FOUND', 404, (teamId: string) => ({
    message: `Team ${teamId} not found.`,
    details: { team_id: teamId },
  })),

  TeamAlreadyExists: defineKnownError('TEAM_ALREADY_EXISTS', 409, (teamId: string) => ({
    message: `Team ${teamId} already exists.`,
    details: { team_id: teamId },
  })),

  TeamMembershipNotFound: defineKnownError('TEAM_MEMBERSHIP_NOT_FOUND', 404, (teamId: string, userId: string) => ({
    message: `User ${userId} is not a member of team ${teamId}.`,
    details: { team_id: teamId, user_id: userId },
  })),

  TeamMembershipAlreadyExists: defineKnownError('TEAM_MEMBERSHIP_ALREADY_EXISTS', 409, (teamId: string, userId: string) => ({
    message: `User ${userId} is already a member of team ${teamId}.`,
    details: { team_id: teamId, user_id: userId },
  })),
} as const;
