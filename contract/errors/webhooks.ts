/** Outbound webhooks (issue 19 item 2): the project's endpoints and their deliveries. */
import { defineFixedError, defineKnownError } from './known-error.js';

export const webhookErrors = {
  WebhookEndpointNotFound: defineKnownError('WEBHOOK_ENDPOINT_NOT_FOUND', 404, (endpointId: string) => ({
    message: `The webhook endpoint ${JSON.stringify(endpointId)} does not exist in this project.`,
    details: { endpoint_id: endpointId },
  })),

  WebhookDeliveryNotFound: defineKnownError('WEBHOOK_DELIVERY_NOT_FOUND', 404, (deliveryId: string) => ({
    message: `The webhook delivery ${JSON.stringify(deliveryId)} does not exist in this project.`,
    details: { delivery_id: deliveryId },
  })),

  WebhookUrlNotAllowed: defineFixedError(
    'WEBHOOK_URL_NOT_ALLOWED',
    400,
    'Webhook URLs must be http(s) URLs without credentials whose host resolves to a public address (private, loopback and link-local addresses are refused unless the deployment sets LATCH_WEBHOOKS_ALLOW_PRIVATE=true).',
  ),

  WebhooksTokenOutOfScope: defineFixedError(
    'WEBHOOKS_TOKEN_OUT_OF_SCOPE',
    401,
    "The token in x-latch-admin-access-token is a webhooks token (from POST /webhooks/latch-token): it manages only this project's webhooks (/internal/webhooks/*). Use an owner's admin access token or the super secret admin key.",
  ),
} as const;
