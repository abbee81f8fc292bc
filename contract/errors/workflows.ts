/** Workflows, through x-latch-workflow-token (spec section 8, "Workflow"). */
import { defineFixedError } from './known-error.js';

export const workflowErrors = {
  WorkflowTokenDoesNotExist: defineFixedError(
    'WORKFLOW_TOKEN_DOES_NOT_EXIST',
    400,
    'The workflow token in the x-latch-workflow-token header does not exist for this project.',
  ),

  WorkflowTokenExpired: defineFixedError(
    'WORKFLOW_TOKEN_EXPIRED',
    400,
    'The workflow token in the x-latch-workflow-token header has expired. Use the token of the current workflow run.',
  ),
} as const;
