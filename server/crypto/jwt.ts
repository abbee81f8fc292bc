import { type JsonWebKey, type KeyObject, createPrivateKey, createPublicKey, randomUUID, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { type JWK, exportJWK, generateKeyPair } from 'jose';

/** Claims of a Latch access token (ARCHITECTURE.md "Tokens and sessions"). */
export interface AccessTokenClaims {
  sub: string;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
  project_id: string;
  branch_id: string;
  refresh_token_id: string;
  role: 'authenticated';
  name: string | null;
  email: string | null;
  email_verified: boolean;
  selected_team_id: string | null;
  is_anonymous: boolean;
}

export interface StoredSigningKey {
  kid: string;
  publicJwk: JWK;
  privateJwk: JWK;
  createdAt: Date;
}

export type VerifyFailure = 'expired' | 'unparsable';

export class TokenVerificationError extends Error {
  constructor(readonly reason: VerifyFailure, message: string) {
    super(message);
  }
}

/** Creates a fresh ES256 key pair for the keyring. */
export async function generateSigningKey(): Promise<StoredSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
  return { kid, publicJwk, privateJwk, createdAt: new Date() };
}

/** Verified tokens remembered per keyring (a client reuses one access token for minutes). */
const VERIFIED_CACHE_MAX = 10_000;

/**
 * The deployment's signing keys. The newest key signs; every loaded key verifies, so rotation has
 * overlap. Verification is pure CPU (no database): the hot path of every authenticated request.
 *
 * ES256 runs synchronously on node:crypto KeyObjects: a P-256 verify is ≈ 60 µs of CPU, about half
 * of jose's WebCrypto path (a libuv pool job plus promise plumbing, queued behind argon2id hashes
 * during a sign-in burst). The checks are jose's: compact form, `alg` exactly ES256, a known `kid`,
 * no `crit`, the signature (IEEE P1363 r||s), then the claims (`exp` in the future, `nbf` reached,
 * numeric `iat`) and the presence of every access-token claim.
 */
export class Keyring {
  /** token string → its verified claims, until their `exp`; bounded, oldest insertion evicted. */
  private readonly verified = new Map<string, AccessTokenClaims>();

  private constructor(
    private readonly signingKid: string,
    private readonly signingKey: KeyObject,
    private readonly verifyKeys: Map<string, KeyObject>,
    private readonly publicJwks: JWK[],
    private readonly encodedHeader: string,
  ) {}

  static async create(keys: StoredSigningKey[]): Promise<Keyring> {
    const newest = [...keys].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
    if (!newest) throw new Error('the keyring needs at least one key');
    const verifyKeys = new Map<string, KeyObject>();
    for (const key of keys) verifyKeys.set(key.kid, createPublicKey({ key: ecJwk(key.publicJwk, false), format: 'jwk' }));
    const signingKey = createPrivateKey({ key: ecJwk(newest.privateJwk, true), format: 'jwk' });
    const encodedHeader = base64url(JSON.stringify({ alg: 'ES256', kid: newest.kid, typ: 'JWT' }));
    return new Keyring(newest.kid, signingKey, verifyKeys, keys.map((k) => k.publicJwk), encodedHeader);
  }

  get newestKid(): string {
    return this.signingKid;
  }

  hasKid(kid: string): boolean {
    return this.verifyKeys.has(kid);
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.publicJwks };
  }

  async sign(claims: Omit<AccessTokenClaims, 'iat' | 'exp'>, ttlSeconds: number): Promise<string> {
    const { sub, iss, aud, ...rest } = claims;
    const iat = Math.floor(Date.now() / 1000);
    const payload = { ...rest, sub, iss, aud, iat, exp: iat + Math.floor(ttlSeconds) };
    const signingInput = `${this.encodedHeader}.${base64url(JSON.stringify(payload))}`;
    const signature = cryptoSign('sha256', Buffer.from(signingInput), { key: this.signingKey, dsaEncoding: 'ieee-p1363' });
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  /**
   * Verifies signature, algorithm (ES256 only: `alg: none` and HS256-with-the-public-key are
   * refused by construction), expiry and the presence of every claim. Project and audience checks
   * are the caller's, because their errors differ.
   */
  async verify(token: string): Promise<AccessTokenClaims> {
    return this.verifySync(token);
  }

  verifySync(token: string): AccessTokenClaims {
    const now = Math.floor(Date.now() / 1000);
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.exp > now) return cached;
      this.verified.delete(token);
      throw new TokenVerificationError('expired', 'Access token has expired');
    }
    const claims = this.check(token, now);
    if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, claims);
    return claims;
  }

  /** Whether this token was verified before and has not expired (no parsing, no signature check). */
  isCachedValid(token: string): boolean {
    const cached = this.verified.get(token);
    return cached !== undefined && cached.exp > Math.floor(Date.now() / 1000);
  }

  /** How many verified tokens are remembered (tests: the cache stays bounded). */
  get verifiedCacheSize(): number {
    return this.verified.size;
  }

  private check(token: string, now: number): AccessTokenClaims {
    const unparsable = (message = 'Access token could not be parsed or its signature is invalid') => new TokenVerificationError('unparsable', message);
    const first = token.indexOf('.');
    const second = first < 0 ? -1 : token.indexOf('.', first + 1);
    if (first <= 0 || second < 0 || token.indexOf('.', second + 1) !== -1) throw unparsable();
    const header = parseSegment(token.slice(0, first));
    if (!header || header.alg !== 'ES256' || header.crit !== undefined || header.b64 !== undefined) throw unparsable();
    const key = typeof header.kid === 'string' ? this.verifyKeys.get(header.kid) : undefined;
    if (!key) throw unparsable('Unknown signing key');
    const encodedSignature = token.slice(second + 1);
    if (!BASE64URL.test(encodedSignature)) throw unparsable();
    const signature = Buffer.from(encodedSignature, 'base64url');
    // A P-256 signature in IEEE P1363 form is exactly 64 bytes (r || s).
    if (signature.length !== 64) throw unparsable();
    if (!cryptoVerify('sha256', Buffer.from(token.slice(0, second)), { key, dsaEncoding: 'ieee-p1363' }, signature)) throw unparsable();
    const payload = parseSegment(token.slice(first + 1, second));
    if (!payload) throw unparsable();
    if (payload.iat !== undefined && typeof payload.iat !== 'number') throw unparsable();
    if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > now)) throw unparsable();
    if (payload.exp !== undefined && typeof payload.exp !== 'number') throw unparsable();
    if (!isAccessTokenClaims(payload)) throw unparsable('Missing access token claims');
    if (payload.exp <= now) throw new TokenVerificationError('expired', 'Access token has expired');
    return Object.freeze(payload);
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** A base64url JSON object segment, or null (Buffer's decoder is lenient: check the alphabet first). */
function parseSegment(segment: string): Record<string, unknown> | null {
  if (segment === '' || !BASE64URL.test(segment)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The EC members node:crypto reads from a JWK (it refuses unknown `use`/`alg` combinations otherwise). */
function ecJwk(jwk: JWK, withPrivate: boolean): JsonWebKey {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y || (withPrivate && !jwk.d)) throw new Error('a signing key is not an ES256 (P-256) key');
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, ...(withPrivate ? { d: jwk.d } : {}) };
}

/** Reads the `kid` without verifying, to decide whether the keyring must be reloaded. */
export function peekKid(token: string): string | null {
  const head = token.split('.')[0];
  if (!head) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && 'kid' in parsed && typeof parsed.kid === 'string' ? parsed.kid : null;
  } catch {
    return null;
  }
}

function isAccessTokenClaims(p: Record<string, unknown>): p is Record<string, unknown> & AccessTokenClaims {
  return typeof p.sub === 'string' && typeof p.project_id === 'string' && typeof p.branch_id === 'string' &&
    typeof p.refresh_token_id === 'string' && typeof p.aud === 'string' && typeof p.exp === 'number' &&
    typeof p.iss === 'string' && p.role === 'authenticated' && typeof p.is_anonymous === 'boolean';
}
