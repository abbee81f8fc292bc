/** User and team API keys: managing them (all levels) and checking a presented key (server). */
import type { LatchQuery } from '../cache.js';
import { AppCore } from '../core.js';
import { KnownErrors, type KnownErrorOf, isKnownErrorInGroup } from '../errors.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

/** A user API key (afterwards only `value.last_four`). */
export type UserApiKey = RouterOutputs['userTeamApiKeys']['getUserKey'];
/** A team API key (afterwards only `value.last_four`). */
export type TeamApiKey = RouterOutputs['userTeamApiKeys']['getTeamKey'];
/** A new user API key: `value` is the full key, in this response only. */
export type CreatedUserApiKey = RouterOutputs['userTeamApiKeys']['createUserKey'];
/** A new team API key: `value` is the full key, in this response only. */
export type CreatedTeamApiKey = RouterOutputs['userTeamApiKeys']['createTeamKey'];
/** What a new user or team API key is made with (no `expires_at_millis`: it never expires). */
export type ApiKeyCreateInput = Omit<RouterInputs['userTeamApiKeys']['createUserKey'], 'user_id'>;
/** A change of an API key: description, expiry, or `revoked: true` (for good). */
export type ApiKeyUpdateInput = Omit<RouterInputs['userTeamApiKeys']['updateUserKey'], 'api_key_id'>;
/** Why an API key check failed (the `ApiKeyNotValid` family); `details.reason` on revoked and expired keys. */
export type ApiKeyNotValidError = KnownErrorOf<
  'ApiKeyNotValid' | 'ApiKeyExpired' | 'ApiKeyRevoked' | 'WrongApiKeyType' | 'ApiKeyNotFound' | 'PublicApiKeyCannotBeRevoked'
>;

/** Options of the API key checks. */
export interface ApiKeyCheckOptions {
  /**
   * What to do when the key is not valid (not found, mistyped, of the other type, revoked or
   * expired): `'return-null'` (default, the spec's "the check call returns null") or `'throw'` the
   * known error, whose `details.reason` is `manually-revoked` or `expired` for those two.
   */
  or?: 'return-null' | 'throw';
}

async function checkApiKey<T>(check: Promise<T>, options: ApiKeyCheckOptions): Promise<T | null> {
  try {
    return await check;
  } catch (error) {
    // "ApiKeyNotValid: the check call returns null" (spec section 8).
    if (options.or !== 'throw' && isKnownErrorInGroup(error, 'ApiKeyNotValid')) return null;
    throw error;
  }
}

/** A user's and a team's API keys. */
export abstract class ApiKeysFeature extends AppCore {
  /**
   * A user's API keys as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.userApiKeysQuery(), (state) => console.log(state.data));
   */
  userApiKeysQuery(options: { userId?: string } = {}): LatchQuery<UserApiKey[]> {
    return this.userListQuery(options.userId, 'userTeamApiKeys.listUserKeys', (input, context) =>
      this.trpc.userTeamApiKeys.listUserKeys.query(input, { context }),
    );
  }

  /**
   * A user's API keys (default: the signed-in user's), with only the last four characters of each.
   *
   * @example
   * const keys = await app.listUserApiKeys();
   */
  async listUserApiKeys(options: { userId?: string } = {}): Promise<UserApiKey[]> {
    return this.queryClient.fetchQuery(this.userApiKeysQuery(options));
  }

  /**
   * Creates an API key for a user (default: the signed-in user), when the project has
   * `allow_user_api_keys`. The full key is in this response only.
   *
   * @example
   * const key = await app.createUserApiKey({ description: 'CLI on my laptop', expires_at_millis: Date.now() + 90 * 86_400_000 });
   * console.log(key.value); // shown once
   */
  async createUserApiKey(input: ApiKeyCreateInput, options: { userId?: string } = {}): Promise<CreatedUserApiKey> {
    const body = { ...input, user_id: options.userId ?? 'me' };
    return this.mutate(['userTeamApiKeys.'], (context) => this.trpc.userTeamApiKeys.createUserKey.mutate(body, { context }), {
      session: this.sessionFor(options.userId),
    });
  }

  /**
   * One user API key, or null when there is none the caller may see.
   *
   * @example
   * const key = await app.getUserApiKey(id);
   */
  async getUserApiKey(apiKeyId: string): Promise<UserApiKey | null> {
    return this.getApiKey('user', apiKeyId);
  }

  /**
   * Changes a user API key's description or expiry, or revokes it with `revoked: true`.
   *
   * @example
   * await app.updateUserApiKey(key.id, { description: 'old laptop' });
   */
  async updateUserApiKey(apiKeyId: string, patch: ApiKeyUpdateInput): Promise<UserApiKey> {
    return this.mutate(['userTeamApiKeys.'], (context) => this.trpc.userTeamApiKeys.updateUserKey.mutate({ ...patch, api_key_id: apiKeyId }, { context }), {
      session: this.accessLevel() === 'client',
    });
  }

  /**
   * Revokes a user API key for good (public keys cannot be revoked: expire them instead).
   *
   * @example
   * await app.revokeUserApiKey(key.id);
   */
  async revokeUserApiKey(apiKeyId: string): Promise<UserApiKey> {
    return this.updateUserApiKey(apiKeyId, { revoked: true });
  }

  /**
   * A team's API keys as a cached query.
   *
   * @example
   * app.subscribe(() => app.teamApiKeysQuery(team.id), (state) => console.log(state.data));
   */
  teamApiKeysQuery(teamId: string): LatchQuery<TeamApiKey[]> {
    const asSession = this.accessLevel() === 'client';
    const input = { team_id: teamId };
    return this.listQuery(asSession, 'userTeamApiKeys.listTeamKeys', input, (context) => this.trpc.userTeamApiKeys.listTeamKeys.query(input, { context }));
  }

  /**
   * A team's API keys (clients: with `$manage_api_keys`), last four characters only.
   *
   * @example
   * const keys = await app.listTeamApiKeys(team.id);
   */
  async listTeamApiKeys(teamId: string): Promise<TeamApiKey[]> {
    return this.queryClient.fetchQuery(this.teamApiKeysQuery(teamId));
  }

  /**
   * Creates an API key for a team, when the project has `allow_team_api_keys` (clients: with
   * `$manage_api_keys`). The full key is in this response only.
   *
   * @example
   * const key = await app.createTeamApiKey(team.id, { description: 'deploy bot' });
   * console.log(key.value); // latch_tsk_…, shown once
   */
  async createTeamApiKey(teamId: string, input: ApiKeyCreateInput): Promise<CreatedTeamApiKey> {
    return this.mutate(['userTeamApiKeys.'], (context) => this.trpc.userTeamApiKeys.createTeamKey.mutate({ ...input, team_id: teamId }, { context }), {
      session: this.accessLevel() === 'client',
    });
  }

  /**
   * One team API key, or null when there is none the caller may see.
   *
   * @example
   * const key = await app.getTeamApiKey(id);
   */
  async getTeamApiKey(apiKeyId: string): Promise<TeamApiKey | null> {
    return this.getApiKey('team', apiKeyId);
  }

  /**
   * Changes a team API key's description or expiry, or revokes it with `revoked: true` (clients:
   * with `$manage_api_keys`).
   *
   * @example
   * await app.updateTeamApiKey(key.id, { expires_at_millis: Date.now() + 86_400_000 });
   */
  async updateTeamApiKey(apiKeyId: string, patch: ApiKeyUpdateInput): Promise<TeamApiKey> {
    return this.mutate(['userTeamApiKeys.'], (context) => this.trpc.userTeamApiKeys.updateTeamKey.mutate({ ...patch, api_key_id: apiKeyId }, { context }), {
      session: this.accessLevel() === 'client',
    });
  }

  /**
   * Revokes a team API key for good: its checks fail with API_KEY_REVOKED (reason `manually-revoked`).
   *
   * @example
   * await app.revokeTeamApiKey(key.id);
   */
  async revokeTeamApiKey(apiKeyId: string): Promise<TeamApiKey> {
    return this.updateTeamApiKey(apiKeyId, { revoked: true });
  }

  private getApiKey(type: 'user', apiKeyId: string): Promise<UserApiKey | null>;
  private getApiKey(type: 'team', apiKeyId: string): Promise<TeamApiKey | null>;
  private getApiKey(type: 'user' | 'team', apiKeyId: string): Promise<UserApiKey | TeamApiKey | null> {
    const asSession = this.accessLevel() === 'client';
    const input = { api_key_id: apiKeyId };
    const path = type === 'user' ? 'userTeamApiKeys.getUserKey' : 'userTeamApiKeys.getTeamKey';
    return this.queryClient.fetchQuery(
      this.findQuery<UserApiKey | TeamApiKey>(
        asSession,
        path,
        input,
        (context) =>
          type === 'user' ? this.trpc.userTeamApiKeys.getUserKey.query(input, { context }) : this.trpc.userTeamApiKeys.getTeamKey.query(input, { context }),
        [KnownErrors.ApiKeyNotFound],
      ),
    );
  }
}

/** Checking the API keys presented to your backend. */
export abstract class ServerApiKeysFeature extends AppCore {
  /**
   * Checks a user API key presented to your backend: the key (with its `user_id`), or null when
   * it is not valid (not found or mistyped, a team key, revoked, or expired: revoked is checked
   * first). With `{ or: 'throw' }` the reason is thrown instead.
   *
   * @example
   * const key = await server.checkUserApiKey(req.headers['x-api-key']);
   * if (!key) return res.status(401).end();
   * const user = await server.getUserById(key.user_id);
   */
  checkUserApiKey(apiKey: string, options: { or: 'throw' }): Promise<UserApiKey>;
  checkUserApiKey(apiKey: string, options?: ApiKeyCheckOptions): Promise<UserApiKey | null>;
  async checkUserApiKey(apiKey: string, options: ApiKeyCheckOptions = {}): Promise<UserApiKey | null> {
    return checkApiKey(
      this.call((context) => this.trpc.userTeamApiKeys.checkUserKey.mutate({ api_key: apiKey }, { context })),
      options,
    );
  }

  /**
   * Checks a team API key presented to your backend: the key (with its `team_id`), or null when
   * it is not valid (not found or mistyped, a user key, revoked, or expired: revoked is checked
   * first). With `{ or: 'throw' }` the reason is thrown instead: KnownErrors.ApiKeyRevoked
   * (`details.reason` `manually-revoked`), ApiKeyExpired (`expired`), ApiKeyNotFound, WrongApiKeyType.
   *
   * @example
   * const key = await server.checkTeamApiKey(bearerToken);
   * if (!key) return res.status(401).end();
   * try { await server.checkTeamApiKey(bearerToken, { or: 'throw' }); }
   * catch (e) { if (e instanceof KnownErrors.ApiKeyRevoked) console.log(e.details.reason); } // 'manually-revoked'
   */
  checkTeamApiKey(apiKey: string, options: { or: 'throw' }): Promise<TeamApiKey>;
  checkTeamApiKey(apiKey: string, options?: ApiKeyCheckOptions): Promise<TeamApiKey | null>;
  async checkTeamApiKey(apiKey: string, options: ApiKeyCheckOptions = {}): Promise<TeamApiKey | null> {
    return checkApiKey(
      this.call((context) => this.trpc.userTeamApiKeys.checkTeamKey.mutate({ api_key: apiKey }, { context })),
      options,
    );
  }
}
