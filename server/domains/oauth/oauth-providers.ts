/**
 * `/oauth-providers` (spec section 7, "Notification preferences and OAuth providers") and the
 * user's `oauth_providers` field. An OAuth provider account (spec section 3): id, email, type
 * (the provider), user_id, allow_sign_in (one account per provider account id may sign in:
 * OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN), allow_connected_accounts (many);
 * account_id server-side only.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { z } from 'zod';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { oauthProviderAccountSchema } from '../../../contract/schemas/oauth.js';
import type { AuthContext } from '../../access/context.js';
import { findUser } from '../users/queries.js';
import * as q from './queries.js';

/** A connected account on the wire: the type of contract/schemas/oauth.ts's oauthProviderAccountSchema. */
export type OAuthProviderAccountDto = z.infer<typeof oauthProviderAccountSchema>;

export function toAccountDto(row: q.OAuthAccountRow, view: AuthContext['type']): OAuthProviderAccountDto {
  const dto: OAuthProviderAccountDto = {
    id: row.id,
    email: row.email,
    type: row.provider_config_id,
    provider_config_id: row.provider_config_id,
    user_id: row.user_id,
    allow_sign_in: row.allow_sign_in,
    allow_connected_accounts: row.allow_connected_accounts,
  };
  if (view !== 'client') dto.account_id = row.provider_account_id;
  return dto;
}

/** `me` (or the caller's own id) for a client; any user of the project for the server. */
export function targetUser(auth: AuthContext, userIdParam: string): string {
  if (auth.type === 'client') {
    if (!auth.user) throw new KnownErrors.CannotGetOwnUserWithoutUser();
    if (userIdParam !== 'me' && userIdParam !== auth.user.sub) throw new KnownErrors.UserNotFound();
    return auth.user.sub;
  }
  if (userIdParam === 'me') {
    if (!auth.user) throw new KnownErrors.CannotGetOwnUserWithoutUser();
    return auth.user.sub;
  }
  return userIdParam;
}

async function requireUser(deps: Deps, auth: AuthContext, userId: string): Promise<void> {
  if (!(await findUser(deps.db, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
}

export async function listProviderAccounts(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<OAuthProviderAccountDto[]> {
  const userId = targetUser(auth, userIdParam ?? 'me');
  return (await q.listAccountsOfUser(deps.db, auth.tenancy.id, userId)).map((row) => toAccountDto(row, auth.type));
}

export async function getProviderAccount(deps: Deps, auth: AuthContext, userIdParam: string, id: string): Promise<OAuthProviderAccountDto> {
  const userId = targetUser(auth, userIdParam);
  const row = await q.findAccount(deps.db, auth.tenancy.id, userId, id);
  if (!row) throw new KnownErrors.OAuthConnectionNotConnectedToUser();
  return toAccountDto(row, auth.type);
}

/** Server: connects a provider account to a user by hand (spec: POST /oauth-providers). */
export async function createProviderAccount(
  deps: Deps,
  auth: AuthContext,
  input: {
    user_id: string;
    provider_config_id: string;
    account_id: string;
    email?: string | null;
    allow_sign_in?: boolean;
    allow_connected_accounts?: boolean;
  },
): Promise<OAuthProviderAccountDto> {
  const userId = targetUser(auth, input.user_id);
  await requireUser(deps, auth, userId);
  if (!auth.project.config.oauth_providers.some((p) => p.id === input.provider_config_id))
    throw new KnownErrors.OAuthProviderNotFoundOrNotEnabled(input.provider_config_id);
  try {
    const row = await q.insertAccount(deps.db, {
      tenancy_id: auth.tenancy.id,
      id: randomUUID(),
      user_id: userId,
      provider_config_id: input.provider_config_id,
      provider_account_id: input.account_id,
      email: input.email ?? null,
      allow_sign_in: input.allow_sign_in ?? true,
      allow_connected_accounts: input.allow_connected_accounts ?? true,
    });
    return toAccountDto(row, auth.type);
  } catch (error) {
    if (isUniqueViolation(error, 'oauth_accounts_sign_in_idx')) throw new KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn();
    if (isUniqueViolation(error)) throw new KnownErrors.OAuthConnectionAlreadyConnectedToAnotherUser();
    throw error;
  }
}

export async function updateProviderAccount(
  deps: Deps,
  auth: AuthContext,
  userIdParam: string,
  id: string,
  input: { allow_sign_in?: boolean; allow_connected_accounts?: boolean; email?: string | null; account_id?: string },
): Promise<OAuthProviderAccountDto> {
  const userId = targetUser(auth, userIdParam);
  if (auth.type === 'client' && (input.email !== undefined || input.account_id !== undefined))
    throw new KnownErrors.SchemaError('Request validation failed:\n  - email and account_id can only be set with server access');
  try {
    const row = await q.updateAccount(deps.db, auth.tenancy.id, userId, id, {
      ...(input.allow_sign_in !== undefined ? { allow_sign_in: input.allow_sign_in } : {}),
      ...(input.allow_connected_accounts !== undefined ? { allow_connected_accounts: input.allow_connected_accounts } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.account_id !== undefined ? { provider_account_id: input.account_id } : {}),
    });
    if (!row) throw new KnownErrors.OAuthConnectionNotConnectedToUser();
    return toAccountDto(row, auth.type);
  } catch (error) {
    if (isUniqueViolation(error, 'oauth_accounts_sign_in_idx')) throw new KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn();
    throw error;
  }
}

export async function deleteProviderAccount(deps: Deps, auth: AuthContext, userIdParam: string, id: string): Promise<void> {
  const userId = targetUser(auth, userIdParam);
  if (!(await q.deleteAccount(deps.db, auth.tenancy.id, userId, id))) throw new KnownErrors.OAuthConnectionNotConnectedToUser();
}
