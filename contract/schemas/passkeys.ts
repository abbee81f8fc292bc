/**
 * Passkeys on the wire: the four ceremony calls of spec section 7 ("Auth", /auth/passkey/*) and
 * the management of a user's passkeys (/passkeys: list, rename, delete; several per user).
 */
import { z } from 'zod';
import { shortList, userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';

import { PASSKEY_NAME_MAX_LENGTH } from '../validation/passkeys.js';

export { PASSKEY_NAME_MAX_LENGTH, PASSKEY_RP_ID_PLACEHOLDER, PASSKEY_USER_ID_MAX_LENGTH, PASSKEY_USER_ID_MIN_LENGTH } from '../validation/passkeys.js';

const b64url = z.string().max(16_384);

/** A registration response as @simplewebauthn/browser's startRegistration returns it. */
export const registrationCredentialSchema = z.object({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    authenticatorData: b64url.optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url.optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** An authentication response as @simplewebauthn/browser's startAuthentication returns it. */
export const authenticationResponseSchema = z.object({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: z.string().max(1024).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** A ceremony's start: the options for navigator.credentials, and the code of its challenge. */
export const passkeyCeremonySchema = z.object({
  /** PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON, rp id = PASSKEY_RP_ID_PLACEHOLDER. */
  options_json: z.record(z.string(), z.unknown()),
  /** Single use, expires with the ceremony: send it back with the response. */
  code: z.string(),
});

const challengeCodeSchema = z.string().min(1).max(256);
const passkeyNameSchema = z.string().trim().min(1).max(PASSKEY_NAME_MAX_LENGTH);

export const passkeyRegisterSchema = z.strictObject({
  credential: registrationCredentialSchema,
  code: challengeCodeSchema,
  /** Optional; "Passkey N" otherwise. */
  name: passkeyNameSchema.optional(),
});

export const passkeySignInSchema = z.strictObject({
  authentication_response: authenticationResponseSchema,
  code: challengeCodeSchema,
});

/** One of a user's passkeys (never its key material). */
export const passkeySchema = z.object({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  /** The hostname (relying-party ID) the passkey works on. */
  rp_id: z.string(),
  /** 'singleDevice' or 'multiDevice' (a synced passkey). */
  device_type: z.string(),
  backed_up: z.boolean(),
  created_at_millis: z.number(),
  last_used_at_millis: z.number().nullable(),
});
export const passkeyListSchema = shortList(passkeySchema);

export const passkeyListQuerySchema = z.object({ user_id: userIdOrMeSchema.optional() });
export const passkeyParamsSchema = z.object({ user_id: userIdOrMeSchema, passkey_id: uuidSchema });
export const passkeyUpdateSchema = z.strictObject({ name: passkeyNameSchema });
