import { z } from 'zod';
import * as schemas from '../../../contract/schemas/webhooks.js';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { adminProcedure, webhooksAdminProcedure } from '../../trpc/procedures.js';
import { toDeliveryDto, toEndpointDto } from './dto.js';
import * as service from './service.js';
import { mintWebhooksToken } from './service-token.js';

const op = restOperations(['Webhooks'], { protect: true });
/** The /internal/webhooks/* routes: admin access, or a webhooks token (its narrowed form). */
const webhooksProcedure = webhooksAdminProcedure();

export const webhooksRouter = router({
  listEndpoints: op(webhooksProcedure, 'GET /internal/webhooks/endpoints', "The project's webhook endpoints (secrets are never shown again)")
    .input(z.object({}))
    .output(shortList(schemas.webhookEndpointSchema))
    .query(async ({ ctx }) => ({ items: (await service.listEndpoints(ctx.deps, ctx.auth)).map(toEndpointDto), is_paginated: false as const })),

  createEndpoint: op(webhooksProcedure, 'POST /internal/webhooks/endpoints', 'Add an endpoint; its signing secret is shown only in this response', {
    successStatus: 201,
  })
    .input(schemas.webhookEndpointCreateSchema)
    .output(schemas.webhookEndpointWithSecretSchema)
    .mutation(async ({ ctx, input }) => {
      const { row, secret } = await service.createEndpoint(ctx.deps, ctx.auth, input);
      return { ...toEndpointDto(row), secret };
    }),

  getEndpoint: op(webhooksProcedure, 'GET /internal/webhooks/endpoints/{endpoint_id}', 'One endpoint')
    .input(schemas.webhookEndpointIdSchema)
    .output(schemas.webhookEndpointSchema)
    .query(async ({ ctx, input }) => toEndpointDto(await service.getEndpoint(ctx.deps, ctx.auth, input.endpoint_id))),

  updateEndpoint: op(webhooksProcedure, 'PATCH /internal/webhooks/endpoints/{endpoint_id}', 'Change the URL, description, event types, or enable/disable')
    .input(schemas.webhookEndpointUpdateSchema)
    .output(schemas.webhookEndpointSchema)
    .mutation(async ({ ctx, input }) => toEndpointDto(await service.updateEndpoint(ctx.deps, ctx.auth, input))),

  deleteEndpoint: op(webhooksProcedure, 'DELETE /internal/webhooks/endpoints/{endpoint_id}', 'Delete an endpoint')
    .input(schemas.webhookEndpointIdSchema)
    .output(successSchema)
    .mutation(succeedAfter(({ ctx, input }) => service.deleteEndpoint(ctx.deps, ctx.auth, input.endpoint_id))),

  rotateSecret: op(
    adminProcedure,
    'POST /internal/webhooks/endpoints/{endpoint_id}/rotate-secret',
    'A new signing secret (shown once); the previous one keeps signing beside it during the overlap',
  )
    .input(schemas.webhookRotateSecretSchema)
    .output(schemas.webhookEndpointWithSecretSchema)
    .mutation(async ({ ctx, input }) => {
      const { row, secret } = await service.rotateSecret(ctx.deps, ctx.auth, input.endpoint_id, input.overlap_seconds);
      return { ...toEndpointDto(row), secret };
    }),

  sendTestEvent: op(webhooksProcedure, 'POST /internal/webhooks/endpoints/{endpoint_id}/test', 'Send a webhook.test event to this endpoint')
    .input(schemas.webhookEndpointIdSchema)
    .output(schemas.webhookTestEventResultSchema)
    .mutation(({ ctx, input }) => service.sendTestEvent(ctx.deps, ctx.auth, input.endpoint_id)),

  listDeliveries: op(webhooksProcedure, 'GET /internal/webhooks/endpoints/{endpoint_id}/deliveries', "The endpoint's deliveries, newest first")
    .input(schemas.webhookDeliveriesQuerySchema)
    .output(shortList(schemas.webhookDeliverySchema))
    .query(async ({ ctx, input }) => ({
      items: (await service.listDeliveries(ctx.deps, ctx.auth, input.endpoint_id, input.limit)).map(toDeliveryDto),
      is_paginated: false as const,
    })),

  retryDelivery: op(webhooksProcedure, 'POST /internal/webhooks/endpoints/{endpoint_id}/deliveries/{delivery_id}/retry', "Send a delivery's message again")
    .input(schemas.webhookDeliveryIdSchema)
    .output(z.object({ delivery_id: z.string() }))
    .mutation(({ ctx, input }) => service.retryDelivery(ctx.deps, ctx.auth, input.endpoint_id, input.delivery_id)),

  replay: op(webhooksProcedure, 'POST /internal/webhooks/endpoints/{endpoint_id}/replay', 'Send again every event since a time (at most 1000)')
    .input(schemas.webhookReplaySchema)
    .output(schemas.webhookReplayResultSchema)
    .mutation(async ({ ctx, input }) => ({ replayed: await service.replaySince(ctx.deps, ctx.auth, input.endpoint_id, new Date(input.since_millis)) })),

  serviceToken: op(
    adminProcedure,
    'POST /webhooks/latch-token',
    "The webhook-service token: a JWT good for one hour on this project's /internal/webhooks/* routes only (send it as x-latch-admin-access-token)",
  )
    .input(z.object({}))
    .output(schemas.webhooksTokenSchema)
    .mutation(async ({ ctx }) => ({ ...(await mintWebhooksToken(ctx.deps, ctx.auth)), scope: '/internal/webhooks/*' as const })),
});
