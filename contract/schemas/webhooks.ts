import { z } from 'zod';
import { millisSchema, uuidSchema } from '../validation/schemas.js';

/** Outbound webhooks (issue 19 item 2): the events Latch announces and the endpoint API. */
export const WEBHOOK_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'team.created',
  'team.updated',
  'team.deleted',
  'team_membership.created',
  'team_membership.deleted',
  'team_permission.created',
  'team_permission.deleted',
  'project_permission.created',
  'project_permission.deleted',
  'session.created',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The "send test event" button's event; never emitted by a change. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

const urlSchema = z.string().url().max(2048);
const eventTypesSchema = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length).nullable();

export const webhookEndpointCreateSchema = z.strictObject({
  url: urlSchema,
  description: z.string().max(1024).optional(),
  /** null (default): every event. */
  event_types: eventTypesSchema.optional(),
  enabled: z.boolean().optional(),
});

export const webhookEndpointIdSchema = z.object({ endpoint_id: uuidSchema });

export const webhookEndpointUpdateSchema = z.strictObject({
  endpoint_id: uuidSchema,
  url: urlSchema.optional(),
  description: z.string().max(1024).optional(),
  event_types: eventTypesSchema.optional(),
  enabled: z.boolean().optional(),
});

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  event_types: z.array(z.string()).nullable(),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  /** While a rotation's overlap lasts: when the previous secret stops being used to sign. */
  previous_secret_expires_at_millis: z.number().nullable(),
  created_at_millis: z.number(),
});

/** Create and rotate: the only responses carrying the signing secret. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema.extend({ secret: z.string() });

export const webhookRotateSecretSchema = z.strictObject({
  endpoint_id: uuidSchema,
  /** How long the previous secret keeps signing beside the new one (default 24 h, at most 7 days). */
  overlap_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .optional(),
});

export const webhookDeliverySchema = z.object({
  id: z.string(),
  message_id: z.string(),
  endpoint_id: z.string(),
  event_type: z.string(),
  state: z.enum(['pending', 'sent', 'dead']),
  attempts: z.number(),
  last_status: z.number().nullable(),
  last_error: z.string().nullable(),
  last_response_snippet: z.string().nullable(),
  created_at_millis: z.number(),
  sent_at_millis: z.number().nullable(),
});

export const webhookDeliveriesQuerySchema = z.object({
  endpoint_id: uuidSchema,
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const webhookDeliveryIdSchema = z.object({ endpoint_id: uuidSchema, delivery_id: uuidSchema });

export const webhookReplaySchema = z.strictObject({ endpoint_id: uuidSchema, since_millis: millisSchema });

export const webhookTestEventResultSchema = z.object({ message_id: z.string(), delivery_id: z.string() });
export const webhookReplayResultSchema = z.object({ replayed: z.number() });

export const webhookServiceTokenSchema = z.object({ token: z.string(), expires_at_millis: z.number() });

/**
 * The webhook-service token (spec: POST /webhooks/{webhook-service}-token; Latch is its own webhook
 * service, so the path is /webhooks/latch-token): a JWT signed with the project's signing key, with
 * this audience, for one hour. Sent as x-latch-admin-access-token with access type admin, it is
 * accepted on /internal/webhooks/* only (WEBHOOKS_TOKEN_OUT_OF_SCOPE elsewhere).
 */
export const WEBHOOKS_TOKEN_AUDIENCE = 'latch:webhooks';
export const WEBHOOKS_TOKEN_TTL_SECONDS = 3600;

export const webhooksTokenSchema = z.object({
  token: z.string(),
  expires_at_millis: z.number(),
  /** The routes it is accepted on. */
  scope: z.literal('/internal/webhooks/*'),
});
