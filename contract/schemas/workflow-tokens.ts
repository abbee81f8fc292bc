import { z } from 'zod';
import { uuidSchema } from '../validation/schemas.js';

/**
 * Workflow tokens (issue 19 item 5): server access to one project for an automation (a CI job, a
 * scheduled script), sent in `x-latch-workflow-token` with `x-latch-access-type: server` instead of
 * the secret server key. Created by an admin, shown once, always expiring (at most 30 days).
 */
export const WORKFLOW_TOKEN_PREFIX = 'wft_';
export const WORKFLOW_TOKEN_MAX_SECONDS = 30 * 86_400;
export const WORKFLOW_TOKEN_DEFAULT_SECONDS = 3_600;

export const workflowTokenCreateSchema = z.strictObject({
  description: z.string().max(1024).optional(),
  /** Lifetime in seconds, 60 s to 30 days; one hour by default. */
  expires_in_seconds: z.number().int().min(60).max(WORKFLOW_TOKEN_MAX_SECONDS).optional(),
});

export const workflowTokenIdSchema = z.object({ token_id: uuidSchema });

export const workflowTokenSchema = z.object({
  id: z.string(),
  description: z.string(),
  created_at_millis: z.number(),
  expires_at_millis: z.number(),
  is_expired: z.boolean(),
});

export const workflowTokenWithSecretSchema = workflowTokenSchema.extend({
  /** The token itself: shown only in the creation's response (only its hash is stored). */
  token: z.string(),
});
