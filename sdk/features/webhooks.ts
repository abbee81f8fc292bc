/** Outbound webhooks (admin): endpoints, their secrets, test events and the deliveries log. */
import { AppCore } from '../core.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

export type WebhookEndpoint = RouterOutputs['webhooks']['getEndpoint'];
/** An endpoint with its signing secret: only the create and rotate responses carry it. */
export type WebhookEndpointWithSecret = RouterOutputs['webhooks']['createEndpoint'];
export type WebhookEndpointCreateInput = RouterInputs['webhooks']['createEndpoint'];
export type WebhookEndpointUpdateInput = Omit<RouterInputs['webhooks']['updateEndpoint'], 'endpoint_id'>;
export type WebhookDelivery = RouterOutputs['webhooks']['listDeliveries']['items'][number];

export abstract class WebhooksFeature extends AppCore {
  /**
   * The project's webhook endpoints.
   *
   * @example
   * const endpoints = await admin.listWebhookEndpoints();
   */
  async listWebhookEndpoints(): Promise<WebhookEndpoint[]> {
    return (await this.call((context) => this.trpc.webhooks.listEndpoints.query({}, { context }))).items;
  }

  /**
   * Adds an endpoint; `secret` (whsec_…) is in this response only.
   *
   * @example
   * const { id, secret } = await admin.createWebhookEndpoint({ url: 'https://example.com/hooks', event_types: ['user.created'] });
   */
  async createWebhookEndpoint(input: WebhookEndpointCreateInput): Promise<WebhookEndpointWithSecret> {
    return this.call((context) => this.trpc.webhooks.createEndpoint.mutate(input, { context }));
  }

  async updateWebhookEndpoint(endpointId: string, input: WebhookEndpointUpdateInput): Promise<WebhookEndpoint> {
    return this.call((context) => this.trpc.webhooks.updateEndpoint.mutate({ ...input, endpoint_id: endpointId }, { context }));
  }

  async deleteWebhookEndpoint(endpointId: string): Promise<void> {
    await this.call((context) => this.trpc.webhooks.deleteEndpoint.mutate({ endpoint_id: endpointId }, { context }));
  }

  /** A new signing secret (shown once); the previous one keeps signing beside it for `overlapSeconds` (default 24 h). */
  async rotateWebhookSecret(endpointId: string, options: { overlapSeconds?: number } = {}): Promise<WebhookEndpointWithSecret> {
    const input = { endpoint_id: endpointId, ...(options.overlapSeconds !== undefined ? { overlap_seconds: options.overlapSeconds } : {}) };
    return this.call((context) => this.trpc.webhooks.rotateSecret.mutate(input, { context }));
  }

  /** Sends a `webhook.test` event to one endpoint. */
  async sendWebhookTestEvent(endpointId: string): Promise<{ message_id: string; delivery_id: string }> {
    return this.call((context) => this.trpc.webhooks.sendTestEvent.mutate({ endpoint_id: endpointId }, { context }));
  }

  /** The endpoint's deliveries, newest first. */
  async listWebhookDeliveries(endpointId: string, options: { limit?: number } = {}): Promise<WebhookDelivery[]> {
    const input = { endpoint_id: endpointId, ...(options.limit !== undefined ? { limit: options.limit } : {}) };
    return (await this.call((context) => this.trpc.webhooks.listDeliveries.query(input, { context }))).items;
  }

  async retryWebhookDelivery(endpointId: string, deliveryId: string): Promise<{ delivery_id: string }> {
    return this.call((context) => this.trpc.webhooks.retryDelivery.mutate({ endpoint_id: endpointId, delivery_id: deliveryId }, { context }));
  }

  /** Sends again every stored event since `since` that the endpoint takes (at most 1000). */
  async replayWebhooks(endpointId: string, since: Date): Promise<number> {
    return (await this.call((context) => this.trpc.webhooks.replay.mutate({ endpoint_id: endpointId, since_millis: since.getTime() }, { context }))).replayed;
  }
}
