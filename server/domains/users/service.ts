import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import type { NewUser, UserRow, UserUpdate } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import { encrypt } from '../../crypto/encryption.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, hashPassword, isSupportedPasswordHash } from '../../crypto/passwords.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import { isOwnUser, liveSessionUser, loadUserFor, resolveUserId } from '../../access/policy.js';
import type { ProjectConfig } from '../../../contract/config/project-config.js';
import type { Executor } from '../../db/executor.js';
import { isTeamMember } from '../projects/queries.js';
import { assertAddressFree, settleProvenAddress } from '../contact-channels/claims.js';
import { findSessionSignedInAt } from '../sessions/queries.js';
import { signOutEverywhere } from '../sessions/service.js';
import { grantUserDefaults } from '../permissions/service.js';
import { limitPasswordHashing } from '../rate-limits/service.js';
import { assertMetadataWithinQuota } from '../rate-limits/quotas.js';
import { insertTeamWithCreator } from '../teams/service.js';
import { type ClientUser, type ServerUser, toUserDto } from './dto.js';
import * as q from './queries.js';
import { clearTotpSurroundings } from '../mfa/queries.js';
import { emitWebhookEvent } from '../webhooks/events.js';
import type { clientUserUpdateSchema, serverUserUpdateSchema, userCreateSchema, userListQuerySchema } from '../../../contract/schemas/users.js';

/** PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG with their limits (spec sections 5 and 8). */
export function checkPasswordRequirements(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw new KnownErrors.PasswordTooShort(PASSWORD_MIN_LENGTH);
  if (password.length > PASSWORD_MAX_LENGTH) throw new KnownErrors.PasswordTooLong(PASSWORD_MAX_LENGTH);
}

export interface NewUserFields {
  primaryEmail: string | null;
  primaryEmailVerified: boolean;
  primaryEmailAuthEnabled: boolean;
  passwordHash: string | null;
  isAnonymous: boolean;
  displayName?: string | null;
  profileImageUrl?: string | null;
  clientMetadata?: unknown;
  clientReadOnlyMetadata?: unknown;
  serverMetadata?: unknown;
  /**
   * Magic-link / one-time-code sign-in for this user (otp_auth_enabled). Defaults to on when the
   * user has a sign-in email: off is the user's (or the server's) explicit choice, which
   * auth/magic-link.ts enforces.
   */
  otpAuthEnabled?: boolean;
  totpSecretBase64?: string | null;
  /**
   * Whether an unverified sign-in email is refused when another account merely claims it (the
   * server, which is told about every conflict; the default), or only when another account has
   * proven it (an end user's sign-up: an unproven address never blocks one; contact-channels/claims.ts).
   */
  refuseOverUnverifiedClaims?: boolean;
}

/**
 * How recently a client's session must have been signed in to change its two-factor secret. Until
 * TOTP enrolment proves possession of the secret (a code from the authenticator), a fresh sign-in is
 * the proof: a stolen access or refresh token alone cannot turn MFA on (locking the owner out with
 * the attacker's secret) or off. Server and admin access set the field as before.
 */
export const TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS = 300;

export async function requireRecentSignIn(db: Executor, auth: AuthContext, userId: string, maxAgeSeconds: number): Promise<void> {
  const signedInAt = auth.user ? await findSessionSignedInAt(db, auth.tenancy.id, auth.user.refresh_token_id, userId) : undefined;
  if (!signedInAt) throw new KnownErrors.AccessTokenExpired();
  if (Date.now() - signedInAt.getTime() > maxAgeSeconds * 1000) throw new KnownErrors.RecentSignInRequired(maxAgeSeconds);
}

function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function totpFields(deps: Deps, tenancy: Tenancy, userId: string, secret: string | null): Pick<NewUser, 'totp_secret_encrypted' | 'requires_totp_mfa'> {
  // A null secret turns two-factor authentication off (spec section 3).
  return secret === null
    ? { totp_secret_encrypted: null, requires_totp_mfa: false }
    : { totp_secret_encrypted: encrypt(deps.configKey, secret, `${tenancy.id}:${userId}`), requires_totp_mfa: true };
}

/**
 * Inserts a user with its primary email channel inside the caller's transaction. The unique index
 * on auth emails decides races: of 50 concurrent sign-ups with one email exactly one wins.
 */
export async function insertUserWithEmail(trx: Executor, deps: Deps, tenancy: Tenancy, config: ProjectConfig, fields: NewUserFields): Promise<UserRow> {
  const id = randomUUID();
  const user = await q.insertUser(trx, {
    tenancy_id: tenancy.id,
    id,
    display_name: fields.displayName ?? null,
    profile_image_url: fields.profileImageUrl ?? null,
    primary_email: fields.primaryEmail,
    primary_email_verified: fields.primaryEmail ? fields.primaryEmailVerified : false,
    auth_with_email: fields.primaryEmail ? fields.primaryEmailAuthEnabled : false,
    password_hash: fields.passwordHash,
    client_metadata: jsonOrNull(fields.clientMetadata),
    client_read_only_metadata: jsonOrNull(fields.clientReadOnlyMetadata),
    server_metadata: jsonOrNull(fields.serverMetadata),
    is_anonymous: fields.isAnonymous,
    otp_auth_enabled: fields.otpAuthEnabled ?? Boolean(fields.primaryEmail && fields.primaryEmailAuthEnabled),
    ...(fields.totpSecretBase64 !== undefined ? totpFields(deps, tenancy, id, fields.totpSecretBase64) : {}),
    // Millisecond precision, so the keyset cursor (millis + id) round-trips exactly.
    signed_up_at: new Date(),
  });
  if (fields.primaryEmail) {
    const email = fields.primaryEmail;
    if (fields.primaryEmailAuthEnabled && !fields.primaryEmailVerified) {
      await assertAddressFree(
        trx,
        tenancy.id,
        email,
        id,
        { anyClaim: fields.refuseOverUnverifiedClaims ?? true },
        () => new KnownErrors.UserWithEmailAlreadyExists(email),
      );
    }
    try {
      // A user inserted just above: no primary channel to replace.
      await q.insertPrimaryEmail(trx, tenancy.id, id, {
        id: randomUUID(),
        value: email,
        is_verified: fields.primaryEmailVerified,
        used_for_auth: fields.primaryEmailAuthEnabled,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new KnownErrors.UserWithEmailAlreadyExists(email);
      throw error;
    }
    // A proven address (magic link, or the server vouching for it): other accounts' claims lose it.
    if (fields.primaryEmailVerified) await settleProvenAddress(trx, tenancy, { user_id: id, value: email, type: 'email' });
  }
  await grantUserDefaults(trx, tenancy, config, id);
  // user.created goes out with the change (same transaction), before the personal team's events.
  await emitWebhookEvent(trx, tenancy.id, 'user.created', toUserDto(user, 'server'));
  if (config.create_team_on_sign_up && !fields.isAnonymous) {
    const name = fields.displayName ?? fields.primaryEmail ?? 'Personal';
    // The user creates their personal team: member, team_creator_default_permissions, selected.
    const team = await insertTeamWithCreator(trx, tenancy, config, { display_name: `${name}'s team` }, id);
    return { ...user, selected_team_id: team.id };
  }
  return user;
}

/** The hash to store for a password given in the input (counted and queued like every password job), or the imported hash. */
async function passwordHashFrom(
  deps: Deps,
  auth: AuthContext,
  ip: string | null,
  input: { password?: string | null; password_hash?: string },
): Promise<string | null | undefined> {
  if (input.password_hash !== undefined) {
    if (!isSupportedPasswordHash(input.password_hash)) throw new KnownErrors.SchemaError('password_hash must be a bcrypt ($2a$, $2b$, $2y$) or argon2id hash.');
    return input.password_hash;
  }
  if (input.password === undefined) return undefined;
  if (input.password === null) return null;
  checkPasswordRequirements(input.password);
  await limitPasswordHashing(deps, auth.tenancy, ip);
  return hashPassword(input.password, auth);
}

export async function createUser(deps: Deps, auth: AuthContext, input: z.infer<typeof userCreateSchema>, ip: string | null): Promise<ServerUser> {
  assertMetadataWithinQuota(deps, { client: input.client_metadata, clientReadOnly: input.client_read_only_metadata, server: input.server_metadata });
  const passwordHash = await passwordHashFrom(deps, auth, ip, input);
  const user = await deps.db.transaction().execute((trx) =>
    insertUserWithEmail(trx, deps, auth.tenancy, auth.project.config, {
      primaryEmail: input.primary_email ?? null,
      primaryEmailVerified: input.primary_email_verified ?? false,
      primaryEmailAuthEnabled: input.primary_email_auth_enabled ?? Boolean(input.primary_email),
      passwordHash: passwordHash ?? null,
      isAnonymous: input.is_anonymous ?? false,
      displayName: input.display_name ?? null,
      profileImageUrl: input.profile_image_url ?? null,
      clientMetadata: input.client_metadata,
      clientReadOnlyMetadata: input.client_read_only_metadata,
      serverMetadata: input.server_metadata,
      otpAuthEnabled: input.otp_auth_enabled,
      totpSecretBase64: input.totp_secret_base64 ?? undefined,
    }),
  );
  return toUserDto(user, 'server');
}

export async function getUser(deps: Deps, auth: AuthContext, userIdParam: string): Promise<ClientUser | ServerUser> {
  const userId = resolveUserId(auth, userIdParam);
  // The caller's own user comes from the session lookup (one statement with the live-session check).
  if (isOwnUser(auth, userId)) return toUserDto(await liveSessionUser(deps, auth), auth.type);
  return toUserDto(await loadUserFor(deps, auth, userId), auth.type);
}

const SERVER_ONLY_FIELDS = [
  'primary_email',
  'primary_email_verified',
  'primary_email_auth_enabled',
  'server_metadata',
  'client_read_only_metadata',
  'password',
  'password_hash',
] as const;

type UpdateInput = z.infer<typeof serverUserUpdateSchema> | z.infer<typeof clientUserUpdateSchema>;

export async function updateUser(deps: Deps, auth: AuthContext, userIdParam: string, input: UpdateInput, ip: string | null): Promise<ClientUser | ServerUser> {
  const userId = resolveUserId(auth, userIdParam);
  if (auth.type === 'client') {
    const serverOnly = SERVER_ONLY_FIELDS.filter((field) => field in input && (input as Record<string, unknown>)[field] !== undefined);
    if (serverOnly.length) {
      throw new KnownErrors.SchemaError(
        `Request validation failed:\n${serverOnly.map((f) => `  - ${f} can only be set with server access (x-latch-access-type: server)`).join('\n')}`,
        { issues: serverOnly.map((f) => ({ path: f, message: 'can only be set with server access' })) },
      );
    }
  }
  const s = input as z.infer<typeof serverUserUpdateSchema>;
  const passwordHash = await passwordHashFrom(deps, auth, ip, s);
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await loadUserFor(deps, auth, userId, trx);
    // Checked against the row read in this transaction: two concurrent writes of different fields
    // can overshoot the cap at most by what one of them added.
    assertMetadataWithinQuota(
      deps,
      { client: input.client_metadata, clientReadOnly: s.client_read_only_metadata, server: s.server_metadata },
      { client: current.client_metadata, clientReadOnly: current.client_read_only_metadata, server: current.server_metadata },
    );
    if (input.selected_team_id && !(await isTeamMember(trx, auth.tenancy.id, input.selected_team_id, userId))) {
      throw new KnownErrors.TeamMembershipNotFound(input.selected_team_id, userId);
    }
    const patch: UserUpdate = {};
    if (input.display_name !== undefined) patch.display_name = input.display_name;
    if (input.profile_image_url !== undefined) patch.profile_image_url = input.profile_image_url;
    if (input.client_metadata !== undefined) patch.client_metadata = jsonOrNull(input.client_metadata);
    if (input.selected_team_id !== undefined) patch.selected_team_id = input.selected_team_id;
    if (input.otp_auth_enabled !== undefined) patch.otp_auth_enabled = input.otp_auth_enabled;
    if (input.passkey_auth_enabled !== undefined) patch.passkey_auth_enabled = input.passkey_auth_enabled;
    if (input.totp_secret_base64 !== undefined) {
      if (auth.type === 'client') await requireRecentSignIn(trx, auth, userId, TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS);
      Object.assign(patch, totpFields(deps, auth.tenancy, userId, input.totp_secret_base64));
      // MFA off: its recovery codes and a half-done enrolment go too (migrations/0009_mfa.ts).
      if (input.totp_secret_base64 === null) await clearTotpSurroundings(trx, auth.tenancy.id, userId);
    }
    if (s.client_read_only_metadata !== undefined) patch.client_read_only_metadata = jsonOrNull(s.client_read_only_metadata);
    if (s.server_metadata !== undefined) patch.server_metadata = jsonOrNull(s.server_metadata);
    if (passwordHash !== undefined) patch.password_hash = passwordHash;

    if (s.primary_email !== undefined && s.primary_email !== current.primary_email) {
      const verified = s.primary_email_verified ?? false;
      const usedForAuth = s.primary_email_auth_enabled ?? current.auth_with_email;
      const email = s.primary_email;
      if (email !== null && usedForAuth && !verified)
        await assertAddressFree(trx, auth.tenancy.id, email, userId, { anyClaim: true }, () => new KnownErrors.UserWithEmailAlreadyExists(email));
      try {
        await q.replacePrimaryEmail(
          trx,
          auth.tenancy.id,
          userId,
          s.primary_email === null ? null : { id: randomUUID(), value: s.primary_email, is_verified: verified, used_for_auth: usedForAuth },
        );
      } catch (error) {
        if (isUniqueViolation(error) && s.primary_email) throw new KnownErrors.UserWithEmailAlreadyExists(s.primary_email);
        throw error;
      }
      if (email !== null && verified) await settleProvenAddress(trx, auth.tenancy, { user_id: userId, value: email, type: 'email' });
      patch.primary_email = s.primary_email;
      patch.primary_email_verified = s.primary_email === null ? false : verified;
      patch.auth_with_email = s.primary_email === null ? false : usedForAuth;
    } else if (s.primary_email_verified !== undefined || s.primary_email_auth_enabled !== undefined) {
      if (!current.primary_email) throw new KnownErrors.SchemaError('The user has no primary email; set primary_email first.');
      const email = current.primary_email;
      const becomesAuth = s.primary_email_auth_enabled ?? current.auth_with_email;
      const becomesVerified = s.primary_email_verified ?? current.primary_email_verified;
      if (becomesAuth && !becomesVerified && (!current.auth_with_email || current.primary_email_verified)) {
        await assertAddressFree(trx, auth.tenancy.id, email, userId, { anyClaim: true }, () => new KnownErrors.UserWithEmailAlreadyExists(email));
      }
      try {
        await q.updatePrimaryChannelFlags(trx, auth.tenancy.id, userId, {
          ...(s.primary_email_verified !== undefined ? { is_verified: s.primary_email_verified } : {}),
          ...(s.primary_email_auth_enabled !== undefined ? { used_for_auth: s.primary_email_auth_enabled } : {}),
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new KnownErrors.UserWithEmailAlreadyExists(current.primary_email);
        throw error;
      }
      if (becomesVerified && !current.primary_email_verified) await settleProvenAddress(trx, auth.tenancy, { user_id: userId, value: email, type: 'email' });
      if (s.primary_email_verified !== undefined) patch.primary_email_verified = s.primary_email_verified;
      if (s.primary_email_auth_enabled !== undefined) patch.auth_with_email = s.primary_email_auth_enabled;
    }
    const updated = await q.updateUser(trx, auth.tenancy.id, userId, patch);
    if (!updated) throw new KnownErrors.UserNotFound();
    await emitWebhookEvent(trx, auth.tenancy.id, 'user.updated', toUserDto(updated, 'server'));
    // A password changed by the server signs the user out everywhere (sessions and API keys).
    if (passwordHash !== undefined) await signOutEverywhere(trx, auth.tenancy, userId, null);
    return updated;
  });
  return toUserDto(row, auth.type);
}

export async function deleteUser(deps: Deps, auth: AuthContext, userIdParam: string): Promise<void> {
  const userId = resolveUserId(auth, userIdParam);
  if (auth.type === 'client' && !auth.project.config.client_user_deletion_enabled) {
    throw new KnownErrors.InsufficientAccessType('client', ['server', 'admin']);
  }
  await loadUserFor(deps, auth, userId);
  // Sessions, contact channels and memberships go with the user (ON DELETE CASCADE), in one statement.
  await deps.db.transaction().execute(async (trx) => {
    if (!(await q.deleteUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
    await emitWebhookEvent(trx, auth.tenancy.id, 'user.deleted', { id: userId });
  });
}

export function encodeCursor(row: { signed_up_at: Date; id: string }): string {
  return Buffer.from(`${row.signed_up_at.getTime()}:${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { signedUpAt: Date; id: string } {
  // Exactly what encodeCursor writes (`<millis>:<uuid>`), with a representable time: a forged
  // cursor is a SCHEMA_ERROR, not a 500 and not a silently different page.
  const match = /^(-?\d{1,16}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const signedUpAt = new Date(Number(match?.[1]));
  if (!match?.[2] || Number.isNaN(signedUpAt.getTime())) throw new KnownErrors.SchemaError('cursor is not a cursor returned by this endpoint.');
  return { signedUpAt, id: match[2] };
}

export async function listUsers(deps: Deps, auth: AuthContext, input: z.infer<typeof userListQuerySchema>) {
  const limit = input.limit ?? 100;
  // Listing and search (ILIKE, trigram) scan the most of any request: the read replica serves them
  // when there is one. GET /users/{id} and every read that follows a write stay on the primary.
  const rows = await q.listUsers(deps.readDb, auth.tenancy.id, {
    limit: limit + 1,
    desc: input.desc ?? false,
    after: input.cursor ? decodeCursor(input.cursor) : null,
    query: input.query?.trim() || null,
    includeAnonymous: input.include_anonymous ?? false,
    teamId: input.team_id ?? null,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((row) => toUserDto(row, 'server')),
    is_paginated: true as const,
    pagination: { next_cursor: rows.length > limit && last ? encodeCursor(last) : null },
  };
}
