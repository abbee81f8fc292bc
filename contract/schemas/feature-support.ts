import { z } from 'zod';

/**
 * POST /check-feature-support (spec section 7): may this client use a feature on this server and
 * project? A self-hosted server may not have everything enabled (payments without Stripe keys, AI
 * chat without a model), so the SDK asks before it calls such a feature and caches the answer.
 */
export const SUPPORT_CHECKED_FEATURES = ['payments', 'billing-portal', 'ai-chat', 'data-vault', 'webhooks', 'workflow-tokens'] as const;
export type SupportCheckedFeature = (typeof SUPPORT_CHECKED_FEATURES)[number];

export const featureSupportQuerySchema = z.strictObject({
  /** A feature name; an unknown name is answered "not supported", not refused, so older servers answer newer clients. */
  feature_name: z.string().min(1).max(100),
  /** The SDK's version (x-latch-client-version carries it too), echoed in the reason when it matters. */
  client_version: z.string().max(100).optional(),
});

export const featureSupportSchema = z.object({
  feature_name: z.string(),
  supported: z.boolean(),
  /** Why not (what to configure), or null when supported. */
  reason: z.string().nullable(),
  server_version: z.string(),
});
