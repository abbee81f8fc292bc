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
} as const;
