/** The only SQL of OAuth: accounts, sealed provider tokens, in-flight flows and outer codes (migration 0008). */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { OAuthAccountsTable, OAuthTokensTable } from '../../db/schema.js';

export type OAuthAccountRow = Selectable<OAuthAccountsTable>;
export type OAuthTokenRow = Selectable<OAuthTokensTable>;

const ACCOUNT_COLUMNS = [
  'tenancy_id',
  'id',
  'user_id',
  'provider_config_id',
  'provider_account_id',
  'email',
  'allow_sign_in',
  'allow_connected_accounts',
  'created_at',
] as const;

// ---- flows -------------------------------------------------------------------------------------

export async function insertFlow(
  db: Executor,
  row: { tenancy_id: string; id: string; state_hash: string; cookie_hash: string; provider_config_id: string; sealed: string; expires_at: Date },
): Promise<void> {
  await db.insertInto('oauth_flows').values(row).execute();
}

/** The flow a provider's `state` answers to, in any tenancy (the callback URL names no project); not consumed. */
export async function findFlowByStateHash(db: Executor, stateHash: string) {
  return db
    .selectFrom('oauth_flows')
    .select(['tenancy_id', 'id', 'cookie_hash', 'provider_config_id', 'sealed', 'expires_at', 'consumed_at'])
    .where('state_hash', '=', stateHash)
    .executeTakeFirst();
}

/** Uses the flow up: true for the one caller that got it (a reloaded callback gets false). */
export async function consumeFlow(db: Executor, tenancyId: string, id: string): Promise<boolean> {
  const row = await db
    .updateTable('oauth_flows')
    .set({ consumed_at: sql<Date>`now()` })
    .where((eb) => eb.and({ tenancy_id: tenancyId, id }))
    .where('consumed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

// ---- outer authorization codes -------------------------------------------------------------------

export async function insertCode(
  db: Executor,
  row: { tenancy_id: string; id: string; code_hash: string; redirect_uri: string; code_challenge: string; sealed: string; expires_at: Date },
): Promise<void> {
  await db.insertInto('oauth_codes').values(row).execute();
}

/** Uses a code up (single use) in the tenancy it was issued for; undefined when unknown, used or expired. */
export async function consumeCode(db: Executor, tenancyId: string, codeHash: string) {
  return db
    .updateTable('oauth_codes')
    .set({ used_at: sql<Date>`now()` })
    .where((eb) => eb.and({ tenancy_id: tenancyId, code_hash: codeHash }))
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['id', 'redirect_uri', 'code_challenge', 'sealed'])
    .executeTakeFirst();
}

/** Expired flows and codes go (called on the way, by the authorize route). */
export async function deleteExpired(db: Executor): Promise<void> {
  await db
    .deleteFrom('oauth_flows')
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
  await db
    .deleteFrom('oauth_codes')
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
}

// ---- accounts ------------------------------------------------------------------------------------

/** The tenancy's accounts with the explicit column list: every account read starts here. */
function accountsOf(db: Executor, tenancyId: string) {
  return db.selectFrom('oauth_accounts').select(ACCOUNT_COLUMNS).where('tenancy_id', '=', tenancyId);
}

/** The account that signs in with this provider account id (allow_sign_in), if any. */
export async function findSignInAccount(db: Executor, tenancyId: string, providerId: string, accountId: string): Promise<OAuthAccountRow | undefined> {
  return accountsOf(db, tenancyId)
    .where('provider_config_id', '=', providerId)
    .where('provider_account_id', '=', accountId)
    .where('allow_sign_in', '=', true)
    .executeTakeFirst();
}

export async function findAccountsByProviderAccount(db: Executor, tenancyId: string, providerId: string, accountId: string): Promise<OAuthAccountRow[]> {
  return accountsOf(db, tenancyId).where('provider_config_id', '=', providerId).where('provider_account_id', '=', accountId).execute();
}

export async function findAccount(db: Executor, tenancyId: string, userId: string, id: string): Promise<OAuthAccountRow | undefined> {
  return accountsOf(db, tenancyId).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export async function listAccountsOfUser(db: Executor, tenancyId: string, userId: string): Promise<OAuthAccountRow[]> {
  return accountsOf(db, tenancyId).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function insertAccount(db: Executor, row: Omit<OAuthAccountRow, 'created_at'>): Promise<OAuthAccountRow> {
  return withUserCopy(db, row.tenancy_id, row.user_id, (trx) =>
    trx.insertInto('oauth_accounts').values(row).returning(ACCOUNT_COLUMNS).executeTakeFirstOrThrow(),
  );
}

export async function updateAccount(
  db: Executor,
  tenancyId: string,
  userId: string,
  id: string,
  patch: { allow_sign_in?: boolean; allow_connected_accounts?: boolean; email?: string | null; provider_account_id?: string },
): Promise<OAuthAccountRow | undefined> {
  // Nothing to change (a PATCH of {}): the account as it is.
  if (Object.keys(patch).length === 0) return findAccount(db, tenancyId, userId, id);
  const update = (trx: Executor) =>
    trx
      .updateTable('oauth_accounts')
      .set(patch)
      .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, id }))
      .returning(ACCOUNT_COLUMNS)
      .executeTakeFirst();
  // Only the provider account id shows in the user's copy.
  return patch.provider_account_id === undefined ? update(db) : withUserCopy(db, tenancyId, userId, update);
}

export async function deleteAccount(db: Executor, tenancyId: string, userId: string, id: string): Promise<boolean> {
  const row = await withUserCopy(db, tenancyId, userId, (trx) =>
    trx
      .deleteFrom('oauth_accounts')
      .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, id }))
      .returning('id')
      .executeTakeFirst(),
  );
  return row !== undefined;
}

/**
 * A write to a user's accounts, then the user's `oauth_providers` copy (users.oauth_providers,
 * migration 0023) made anew from them, in one transaction (the caller's, or one of its own). The
 * copy is what every user object shows, so no write to oauth_accounts may skip this.
 *
 * The user row is locked (FOR NO KEY UPDATE) before the accounts are aggregated, in a statement of
 * its own: in READ COMMITTED each statement reads a fresh snapshot, so when two links for one user
 * race, the second waits for the first's commit and then aggregates its row too. An UPDATE with the
 * aggregate inline would have aggregated under the snapshot it took before waiting, and dropped
 * the first account from the copy. NO KEY UPDATE, not UPDATE: the insert holds the foreign key's
 * KEY SHARE lock on the user row, which FOR UPDATE would wait on in the other transaction.
 */
async function withUserCopy<T>(db: Executor, tenancyId: string, userId: string, write: (trx: Executor) => Promise<T>): Promise<T> {
  const run = async (trx: Executor) => {
    const result = await write(trx);
    await trx.selectFrom('users').select('id').where('tenancy_id', '=', tenancyId).where('id', '=', userId).forNoKeyUpdate().execute();
    await trx
      .updateTable('users')
      .set({
        oauth_providers: sql`(SELECT jsonb_agg(jsonb_build_object('id', oa.provider_config_id, 'type', oa.provider_config_id, 'provider_user_id', oa.provider_account_id) ORDER BY oa.created_at, oa.id)
          FROM oauth_accounts oa WHERE oa.tenancy_id = ${tenancyId} AND oa.user_id = ${userId})`,
      })
      .where('tenancy_id', '=', tenancyId)
      .where('id', '=', userId)
      .execute();
    return result;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

// ---- provider tokens -----------------------------------------------------------------------------

const TOKEN_COLUMNS = ['tenancy_id', 'id', 'oauth_account_id', 'kind', 'token_sealed', 'scopes', 'expires_at', 'is_valid', 'created_at'] as const;

export async function insertToken(
  db: Executor,
  row: {
    tenancy_id: string;
    id: string;
    oauth_account_id: string;
    kind: 'access' | 'refresh';
    token_sealed: string;
    scopes: string[];
    expires_at: Date | null;
  },
): Promise<void> {
  await db.insertInto('oauth_tokens').values(row).execute();
}

/** The valid tokens of the accounts, newest first. */
export async function listValidTokens(db: Executor, tenancyId: string, accountIds: readonly string[], kind: 'access' | 'refresh'): Promise<OAuthTokenRow[]> {
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('oauth_tokens')
    .select(TOKEN_COLUMNS)
    .where('tenancy_id', '=', tenancyId)
    .where('oauth_account_id', 'in', accountIds)
    .where('kind', '=', kind)
    .where('is_valid', '=', true)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Marks a token invalid; true for the caller that flipped it (concurrent rotations: one wins). */
export async function invalidateToken(db: Executor, tenancyId: string, id: string): Promise<boolean> {
  const row = await db
    .updateTable('oauth_tokens')
    .set({ is_valid: false })
    .where((eb) => eb.and({ tenancy_id: tenancyId, id, is_valid: true }))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
