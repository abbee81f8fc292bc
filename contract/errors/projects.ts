/** Projects and branches (spec section 8, "Projects"). */
import { defineKnownError } from './known-error.js';

export const projectErrors = {
  ProjectNotFound: defineKnownError('PROJECT_NOT_FOUND', 404, (projectId: string) => ({
    message: `Project ${projectId} not found, or it is not accessible to the current user.`,
    details: { project_id: projectId },
  })),

  CurrentProjectNotFound: defineKnownError('CURRENT_PROJECT_NOT_FOUND', 400, (projectId: string) => ({
    message: `The current project with the ID ${projectId} was not found. Check the value of the x-latch-project-id header.`,
    details: { project_id: projectId },
  })),

  BranchDoesNotExist: defineKnownError('BRANCH_DOES_NOT_EXIST', 400, (branchId: string) => ({
    message: `The branch with the ID ${branchId} does not exist. Check the value of the x-latch-branch-id header (the default branch is 'main').`,
    details: { branch_id: branchId },
  })),

  /**
   * A project's owners are the members of its owner team (a team of the internal project): the last
   * one cannot leave or be removed, or the project would have no one who can manage it.
   */
  LastProjectOwner: defineKnownError('LAST_PROJECT_OWNER', 400, (teamId: string, userId: string) => ({
    message: `User ${userId} is the last owner: team ${teamId} owns projects and would have no members left. Invite another owner first, or transfer or delete the projects.`,
    details: { team_id: teamId, user_id: userId },
  })),

  /** Spec section 5: production mode is switched on only once its problems are fixed (each has a fix link). */
  ProductionModeHasProblems: defineKnownError('PRODUCTION_MODE_HAS_PROBLEMS', 400, (problems: { message: string; relative_fix_url: string }[]) => ({
    message: `Production mode cannot be switched on while the project has problems: ${problems.map((p) => p.message).join('; ')}. Fix them first (the domains page).`,
    details: { problems },
  })),
} as const;
