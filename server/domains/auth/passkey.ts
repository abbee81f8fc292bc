/**
 * The passkey way in (`/auth/passkey/*`, spec section 7): WebAuthn registration for a signed-in
 * user and discoverable-credential sign-in, with @simplewebauthn/server. The management of a
 * user's passkeys (list, rename, delete) is domains/passkeys/.
 *
 * Where the relying party comes from: never the request's Host. Every options_json carries the
 * RP-ID placeholder (contract/schemas/passkeys.ts); the client puts its own hostname there, and
 * the browser signs the page's origin into clientDataJSON. That origin must be one of the
 * project's trusted domains (scheme, host pattern and port; or localhost while allow_localhost
 * is on and the project is not in production mode), and the RP ID is its hostname: the
 * authenticator data's RP-ID hash must match it, and a credential works only on the host it was
 * registered on.
 *
 * Challenges are verification codes (verification/service.ts): stored hashed, tenancy-scoped,
 * single use (consumed, and committed, before the response is checked: a failed attempt burns
 * it) and short-lived (PASSKEY_CHALLENGE_TTL_MILLIS).
 */
import { randomUUID } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext, ProjectRecord } from '../../access/context.js';
import { liveSession } from '../../access/policy.js';
import { isUniqueViolation } from '../../db/errors.js';
import { isIpAddress, isLocalhost, matchHostPattern, parseTrustedDomain } from '../../../contract/validation/urls.js';
import type { z } from 'zod';
import { PASSKEY_RP_ID_PLACEHOLDER, type registrationCredentialSchema } from '../../../contract/schemas/passkeys.js';
import { lockUser } from '../contact-channels/queries.js';
import { findUser, updateUser } from '../users/queries.js';
import { createCode, limitCodeChecks, withCode } from '../verification/service.js';
import { type Passkey, toPasskeyDto } from '../passkeys/dto.js';
import * as passkeys from '../passkeys/queries.js';
import { type AuthResponse, completeSignIn, signInTransaction } from './sign-in.js';

export const PASSKEY_REGISTRATION_PURPOSE = 'passkey_registration';
export const PASSKEY_AUTHENTICATION_PURPOSE = 'passkey_authentication';
/** How long the browser may take (the WebAuthn `timeout`): a minute, as browsers suggest. */
export const PASSKEY_CEREMONY_TIMEOUT_MILLIS = 60_000;
/** A challenge lives a little longer than the ceremony (the round trips around it), then is EXPIRED. */
export const PASSKEY_CHALLENGE_TTL_MILLIS = 120_000;
/** Passkeys one user may hold: several (a phone, a laptop, a security key), not unbounded. */
export const MAX_PASSKEYS_PER_USER = 20;

interface RegistrationChallenge {
  challenge: string;
  user_id: string;
}
interface AuthenticationChallenge {
  challenge: string;
}

function requirePasskeysEnabled(auth: AuthContext): void {
  if (!auth.project.config.passkey_enabled) throw new KnownErrors.PasskeyAuthenticationNotEnabled();
}

/** The user handle is the user's id (a UUID: 36 bytes, inside the spec's 1 to 64). */
/**
 * @simplewebauthn/server is loaded on the first passkey ceremony: ~28 MB and a second of start-up
 * that a server whose projects use no passkeys should not pay (issue 23, memory and start-up).
 */
let webauthnModule: Promise<typeof import('@simplewebauthn/server')> | null = null;
function webauthn(): Promise<typeof import('@simplewebauthn/server')> {
  webauthnModule ??= import('@simplewebauthn/server');
  return webauthnModule;
}

/** base64url text ↔ bytes (what @simplewebauthn's isoBase64URL does, with Node's Buffer). */
const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(text, 'base64url'));
const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

function userHandle(userId: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(userId);
}

/**
 * The RP ID for a ceremony whose clientDataJSON says it ran at `origin`, or null when that
 * origin is not the project's. Exported for tests.
 */
export function trustedPasskeyRpId(project: Pick<ProjectRecord, 'config' | 'isProductionMode'>, origin: string): string | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  // An origin is scheme://host[:port], nothing else: anything more is not what a browser signs.
  if (url.origin !== origin || (url.protocol !== 'https:' && url.protocol !== 'http:')) return null;
  const localhost = isLocalhost(url.hostname);
  // WebAuthn has no RP ID for an IP address; production mode never trusts localhost.
  if (isIpAddress(url.hostname)) return null;
  if (localhost && project.isProductionMode) return null;
  if (localhost && project.config.allow_localhost) return url.hostname;
  // A trusted domain's path (a handler prefix) does not matter here: the passkey belongs to the origin.
  const trusted = project.config.domains.some(({ domain }) => {
    const pattern = parseTrustedDomain(domain);
    return pattern !== null && pattern.protocol === url.protocol && pattern.port === url.port && matchHostPattern(pattern.labels, url.hostname);
  });
  return trusted ? url.hostname : null;
}

/** The origin the browser signed into the response's clientDataJSON ('' when unreadable). */
function signedOrigin(clientDataJSON: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { origin?: unknown };
    return typeof parsed.origin === 'string' ? parsed.origin : '';
  } catch {
    return '';
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Starts adding a passkey to the signed-in user: the creation options (a discoverable credential
 * with user verification; the user's passkeys excluded, so an authenticator that already holds
 * one answers "previously registered") and the code of the challenge.
 */
export async function initiateRegistration(deps: Deps, auth: AuthContext): Promise<{ options_json: Record<string, unknown>; code: string }> {
  requirePasskeysEnabled(auth);
  const { user } = await liveSession(deps, auth);
  const existing = await passkeys.listPasskeys(deps.db, auth.tenancy.id, user.id);
  if (existing.length >= MAX_PASSKEYS_PER_USER) throw new KnownErrors.PasskeyRegistrationFailed(`A user can have at most ${MAX_PASSKEYS_PER_USER} passkeys.`);
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName: auth.project.displayName,
    rpID: PASSKEY_RP_ID_PLACEHOLDER,
    userID: userHandle(user.id),
    userName: user.primary_email ?? user.display_name ?? user.id,
    userDisplayName: user.display_name ?? user.primary_email ?? '',
    timeout: PASSKEY_CEREMONY_TIMEOUT_MILLIS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const data: RegistrationChallenge = { challenge: options.challenge, user_id: user.id };
  const issued = await createCode(deps.db, auth.tenancy, PASSKEY_REGISTRATION_PURPOSE, data, PASSKEY_CHALLENGE_TTL_MILLIS, { maxAttempts: 1 });
  return { options_json: options as unknown as Record<string, unknown>, code: issued.code };
}

/** Uses up a ceremony's challenge by its code (whatever comes next); the check counts against the caller's IP. */
async function consumeChallenge<T>(deps: Deps, auth: AuthContext, purpose: string, code: string, ip: string | null): Promise<T> {
  await limitCodeChecks(deps, auth.tenancy, ip);
  return withCode<T, T>(deps.db, auth.tenancy, purpose, code, 'consume', async (_trx, verified) => verified.data);
}

/**
 * Finishes adding a passkey: the challenge (issued to this user) is used up, the origin must be
 * the project's, and the attestation must verify with user verification. The user may then sign
 * in with passkeys (passkey_auth_enabled).
 */
export async function register(
  deps: Deps,
  auth: AuthContext,
  credential: z.infer<typeof registrationCredentialSchema>,
  code: string,
  name: string | undefined,
  ip: string | null,
): Promise<Passkey> {
  requirePasskeysEnabled(auth);
  const { user } = await liveSession(deps, auth);
  const challenge = await consumeChallenge<RegistrationChallenge>(deps, auth, PASSKEY_REGISTRATION_PURPOSE, code, ip);
  if (challenge.user_id !== user.id) throw new KnownErrors.PasskeyRegistrationFailed('This registration was started by another user.');
  const origin = signedOrigin(credential.response.clientDataJSON);
  const rpId = trustedPasskeyRpId(auth.project, origin);
  if (!rpId) throw new KnownErrors.PasskeyRegistrationFailed(`The origin ${JSON.stringify(origin)} is not a trusted domain of this project.`);
  let verification;
  try {
    verification = await (
      await webauthn()
    ).verifyRegistrationResponse({
      // Transports are strings on the wire (a newer browser may name one this library does not know).
      response: credential as RegistrationResponseJSON,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origin,
      expectedRPID: rpId,
      requireUserVerification: true,
    });
  } catch (error) {
    throw new KnownErrors.PasskeyRegistrationFailed(describe(error));
  }
  if (!verification.verified) throw new KnownErrors.PasskeyRegistrationFailed('The passkey could not be verified.');
  const info = verification.registrationInfo;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      // Locked: concurrent registrations of one user are counted one after the other.
      if (!(await lockUser(trx, auth.tenancy.id, user.id))) throw new KnownErrors.UserNotFound();
      const count = await passkeys.countPasskeys(trx, auth.tenancy.id, user.id);
      if (count >= MAX_PASSKEYS_PER_USER) throw new KnownErrors.PasskeyRegistrationFailed(`A user can have at most ${MAX_PASSKEYS_PER_USER} passkeys.`);
      const row = await passkeys.insertPasskey(trx, {
        tenancy_id: auth.tenancy.id,
        id: randomUUID(),
        user_id: user.id,
        credential_id: info.credential.id,
        public_key: toBase64Url(info.credential.publicKey),
        counter: info.credential.counter,
        transports: info.credential.transports ?? [],
        device_type: info.credentialDeviceType,
        backed_up: info.credentialBackedUp,
        rp_id: rpId,
        name: name ?? `Passkey ${count + 1}`,
      });
      await updateUser(trx, auth.tenancy.id, user.id, { passkey_auth_enabled: true });
      return toPasskeyDto(row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new KnownErrors.PasskeyRegistrationFailed('This passkey is already registered.');
    throw error;
  }
}

/** Starts a passkey sign-in: request options for any discoverable credential (autofill too). */
export async function initiateAuthentication(
  deps: Deps,
  auth: AuthContext,
  ip: string | null,
): Promise<{ options_json: Record<string, unknown>; code: string }> {
  requirePasskeysEnabled(auth);
  // Each call stores a challenge for an unauthenticated caller: counted like a code check.
  await limitCodeChecks(deps, auth.tenancy, ip);
  const options = await (
    await webauthn()
  ).generateAuthenticationOptions({
    rpID: PASSKEY_RP_ID_PLACEHOLDER,
    allowCredentials: [],
    userVerification: 'required',
    timeout: PASSKEY_CEREMONY_TIMEOUT_MILLIS,
  });
  const data: AuthenticationChallenge = { challenge: options.challenge };
  const issued = await createCode(deps.db, auth.tenancy, PASSKEY_AUTHENTICATION_PURPOSE, data, PASSKEY_CHALLENGE_TTL_MILLIS, { maxAttempts: 1 });
  return { options_json: options as unknown as Record<string, unknown>, code: issued.code };
}

/**
 * Signs in with a passkey. The challenge is used up first; then the credential must be one of
 * this project's, used on the host it was registered on, from a trusted origin, with user
 * verification and a valid signature (a counter that went backwards is refused; synced passkeys
 * that stay at 0 are fine). A user who turned passkey sign-in off (passkey_auth_enabled false)
 * is refused. Every refusal is PASSKEY_AUTHENTICATION_FAILED.
 */
export async function signIn(deps: Deps, auth: AuthContext, response: AuthenticationResponseJSON, code: string, ip: string | null): Promise<AuthResponse> {
  requirePasskeysEnabled(auth);
  const challenge = await consumeChallenge<AuthenticationChallenge>(deps, auth, PASSKEY_AUTHENTICATION_PURPOSE, code, ip);
  const origin = signedOrigin(response.response.clientDataJSON);
  const rpId = trustedPasskeyRpId(auth.project, origin);
  if (!rpId) throw new KnownErrors.PasskeyAuthenticationFailed(`The origin ${JSON.stringify(origin)} is not a trusted domain of this project.`);
  const passkey = await passkeys.findPasskeyByCredentialId(deps.db, auth.tenancy.id, response.id);
  if (!passkey) throw new KnownErrors.PasskeyAuthenticationFailed('This passkey is not registered with this project.');
  if (passkey.rp_id !== rpId) throw new KnownErrors.PasskeyAuthenticationFailed(`This passkey works on ${passkey.rp_id}, not on ${rpId}.`);
  const handle = response.response.userHandle;
  if (handle !== undefined && handle !== toBase64Url(userHandle(passkey.user_id))) {
    throw new KnownErrors.PasskeyAuthenticationFailed('The passkey does not belong to the user it names.');
  }
  let verification;
  try {
    verification = await (
      await webauthn()
    ).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origin,
      expectedRPID: passkey.rp_id,
      credential: {
        id: passkey.credential_id,
        publicKey: fromBase64Url(passkey.public_key),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
      requireUserVerification: true,
    });
  } catch (error) {
    throw new KnownErrors.PasskeyAuthenticationFailed(describe(error));
  }
  if (!verification.verified) throw new KnownErrors.PasskeyAuthenticationFailed('The passkey could not be verified.');
  // signInTransaction: with MFA on, the counter update and the attempt code commit before the refusal.
  return signInTransaction(deps, async (trx) => {
    if (!(await lockUser(trx, auth.tenancy.id, passkey.user_id))) throw new KnownErrors.PasskeyAuthenticationFailed('The passkey could not be verified.');
    const user = await findUser(trx, auth.tenancy.id, passkey.user_id);
    if (!user?.passkey_auth_enabled) throw new KnownErrors.PasskeyAuthenticationFailed('Passkey sign-in is turned off for this account.');
    // Deleted while the response was being checked: a removed passkey signs nobody in.
    if (!(await passkeys.recordPasskeyUse(trx, auth.tenancy.id, passkey.id, verification.authenticationInfo.newCounter))) {
      throw new KnownErrors.PasskeyAuthenticationFailed('This passkey is not registered with this project.');
    }
    return completeSignIn(deps, trx, { tenancy: auth.tenancy, user, method: 'passkey', isNewUser: false, ip });
  });
}
