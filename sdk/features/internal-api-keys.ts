/** The project's own key sets (publishable client, secret server, super secret admin keys): admin. */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore } from '../core.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

/** A set of project keys (only their last four characters). */
export type InternalApiKey = RouterOutputs['apiKeys']['get'];
/** A new set of project keys: the full keys, shown only this once. */
export type CreatedInternalApiKey = RouterOutputs['apiKeys']['create'];
export type InternalApiKeyCreateInput = RouterInputs['apiKeys']['create'];
export type InternalApiKeyUpdateInput = Omit<RouterInputs['apiKeys']['update'], 'api_key_id'>;

/** The project's key sets. */
export abstract class InternalApiKeysFeature extends AppCore {
  /**
   * The project's key sets as a cached query.
   *
   * @example
   * admin.subscribe(() => admin.internalApiKeysQuery(), (state) => console.log(state.data));
   */
  internalApiKeysQuery(): LatchQuery<InternalApiKey[]> {
    return this.listQuery(false, 'apiKeys.list', {}, (context) => this.trpc.apiKeys.list.query({}, { context }));
  }

  /**
   * The project's key sets (last four characters of each key only).
   *
   * @example
   * const keys = await admin.listInternalApiKeys();
   */
  async listInternalApiKeys(): Promise<InternalApiKey[]> {
    return this.queryClient.fetchQuery(this.internalApiKeysQuery());
  }

  /**
   * One key set.
   *
   * @example
   * const key = await admin.getInternalApiKey(id);
   */
  async getInternalApiKey(apiKeyId: string): Promise<InternalApiKey> {
    return this.queryClient.fetchQuery(
      defineQuery(this.appKey('apiKeys.get', { api_key_id: apiKeyId }), () =>
        this.call((context) => this.trpc.apiKeys.get.query({ api_key_id: apiKeyId }, { context })),
      ),
    );
  }

  /**
   * Creates a key set; the full keys are in this response only.
   *
   * @example
   * const keys = await admin.createInternalApiKey({ description: 'production', has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: false });
   * console.log(keys.secret_server_key);
   */
  async createInternalApiKey(input: InternalApiKeyCreateInput): Promise<CreatedInternalApiKey> {
    return this.mutate(['apiKeys.'], (context) => this.trpc.apiKeys.create.mutate(input, { context }));
  }

  /**
   * Changes a key set's description, or revokes it with `revoked: true`.
   *
   * @example
   * await admin.updateInternalApiKey(id, { description: 'old laptop' });
   */
  async updateInternalApiKey(apiKeyId: string, patch: InternalApiKeyUpdateInput): Promise<InternalApiKey> {
    return this.mutate(['apiKeys.'], (context) => this.trpc.apiKeys.update.mutate({ ...patch, api_key_id: apiKeyId }, { context }));
  }

  /**
   * Revokes a key set: its keys stop working at once.
   *
   * @example
   * await admin.revokeInternalApiKey(id);
   */
  async revokeInternalApiKey(apiKeyId: string): Promise<InternalApiKey> {
    return this.updateInternalApiKey(apiKeyId, { revoked: true });
  }

  /**
   * Deletes a key set.
   *
   * @example
   * await admin.deleteInternalApiKey(id);
   */
  async deleteInternalApiKey(apiKeyId: string): Promise<void> {
    await this.mutate(['apiKeys.'], (context) => this.trpc.apiKeys.delete.mutate({ api_key_id: apiKeyId }, { context }));
  }
}
