import { createHash } from 'node:crypto';
import { randomSecret } from './tokens.js';

/**
 * The format of user and team API keys:
 *
 *   latch_<u|t><s|p>k_<38-character secret><6-character checksum>
 *
 * - The prefix says whose key it is (user or team) and whether it is secret or public, so secret
 *   scanners can recognise leaked keys and a key sent to the wrong endpoint is refused without a
 *   database lookup.
 * - The secret is 224 random bits (base64url), stored only as its SHA-256.
 * - The checksum is the first 32 bits of SHA-256 over prefix and secret: a mistyped or truncated
 *   key is caught before any lookup (a random edit passes with probability 2^-32). It is not a
 *   security boundary — anyone can compute it — only a typo detector.
 */
export type ApiKeyOwnerType = 'user' | 'team';

export interface ParsedApiKey {
  type: ApiKeyOwnerType;
  isPublic: boolean;
}

const SECRET_LENGTH = 38;
const CHECKSUM_LENGTH = 6;
const FORMAT = /^latch_([ut])([sp])k_([A-Za-z0-9_-]{38})([A-Za-z0-9_-]{6})$/;

function prefixOf(type: ApiKeyOwnerType, isPublic: boolean): string {
  return `latch_${type === 'user' ? 'u' : 't'}${isPublic ? 'p' : 's'}k_`;
}

function checksum(prefix: string, secret: string): string {
  return createHash('sha256').update(prefix).update(secret).digest().subarray(0, 4).toString('base64url');
}

/**
 * A new API key (returned once; store only `hashSecret(key)`).
 *
 * @example newApiKey('team', false) // 'latch_tsk_Q2x…a1B2c3'
 */
export function newApiKey(type: ApiKeyOwnerType, isPublic: boolean): string {
  const prefix = prefixOf(type, isPublic);
  const secret = randomSecret(224);
  if (secret.length !== SECRET_LENGTH) throw new Error('unexpected secret length');
  return `${prefix}${secret}${checksum(prefix, secret)}`;
}

/**
 * The owner type and visibility of a well-formed key whose checksum matches; null for anything
 * else (wrong shape, unknown prefix, typo). The checksum is public, so a plain comparison is fine.
 */
export function parseApiKey(value: string): ParsedApiKey | null {
  const match = FORMAT.exec(value);
  if (!match) return null;
  const [, owner, visibility, secret, sum] = match;
  const type: ApiKeyOwnerType = owner === 'u' ? 'user' : 'team';
  const isPublic = visibility === 'p';
  if (sum!.length !== CHECKSUM_LENGTH || checksum(prefixOf(type, isPublic), secret!) !== sum) return null;
  return { type, isPublic };
}
