import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Default strength of every random secret: 224 bits (spec section 9). */
export const DEFAULT_SECRET_BITS = 224;

/**
 * A random secret as base64url text. At least 128 bits so it cannot be guessed; 224 by default.
 *
 * @example randomSecret() // 'Q2x…' (38 characters)
 */
export function randomSecret(bits: number = DEFAULT_SECRET_BITS): string {
  if (bits < 128 || bits % 8 !== 0) throw new Error('a secret needs at least 128 bits, in whole bytes');
  return randomBytes(bits / 8).toString('base64url');
}

/**
 * SHA-256 of a high-entropy secret, hex encoded. Refresh tokens, API keys and verification codes
 * are stored only as this hash: a leaked table does not leak usable credentials. (A fast hash is
 * right here because the inputs are random with ≥ 128 bits; passwords use argon2id instead.)
 */
export function hashSecret(secret: string): string {
  // crypto.hash: the one-shot form, half the cost of createHash().update().digest() (no Hash object).
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of two strings, to prevent timing attacks on secret comparisons. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // Compare against itself on length mismatch so the time does not depend on where they differ.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

export type ProjectKeyKind = 'publishable_client_key' | 'secret_server_key' | 'super_secret_admin_key';

const KEY_PREFIXES: Record<ProjectKeyKind, string> = {
  publishable_client_key: 'pck_',
  secret_server_key: 'ssk_',
  super_secret_admin_key: 'sak_',
};

/**
 * A new project key: a recognisable prefix (so secret scanners and humans can tell the kinds
 * apart) and 224 random bits.
 */
export function newProjectKey(kind: ProjectKeyKind): string {
  return `${KEY_PREFIXES[kind]}${randomSecret()}`;
}

/** The last four characters shown after creation. */
export function lastFour(secret: string): string {
  return secret.slice(-4);
}
