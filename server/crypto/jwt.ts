import { type KeyObject, createECDH, createPrivateKey, createPublicKey, hkdfSync, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import type { JWK } from 'jose';

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
  /**
   * The claims the Stack Auth SDKs (2.8+) validate besides the ones above, so that their apps accept
   * Latch's tokens unchanged: sign-up time (seconds), whether the user is restricted and why (Latch
   * restricts anonymous users only: `{type: 'anonymous'}`), and whether the user has TOTP MFA.
   */
  signed_up_at: number;
  is_restricted: boolean;
  restricted_reason: { type: 'anonymous' } | null;
  requires_totp_mfa: boolean;
}

/**
 * The user claims of a token signed in an access token's shape for no user (the webhook-service
 * token, domains/webhooks/service-token.ts): no name, no address, nothing restricted. Its audience,
 * not these claims, is what keeps such a token from passing as a user's.
 */
export const NO_USER_CLAIMS = {
  role: 'authenticated',
  name: null,
  email: null,
  email_verified: false,
  selected_team_id: null,
  is_anonymous: false,
  signed_up_at: 0,
  is_restricted: false,
  restricted_reason: null,
  requires_totp_mfa: false,
} as const satisfies Partial<AccessTokenClaims>;

/**
 * One generation of the deployment's signing keys: a random 256-bit seed from which every project's
 * key pair of that generation is derived. Generations are numbered upwards; the seed is stored
 * encrypted (access/keyring.ts), never in the clear.
 */
export interface SigningGeneration {
  generation: number;
  seed: Buffer;
  createdAt: Date;
}

export type VerifyFailure = 'expired' | 'unparsable';

export class TokenVerificationError extends Error {
  constructor(
    readonly reason: VerifyFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The order n of the P-256 group, and n / 2: the bound of a canonical (low-S) signature's s. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const P256_HALF_ORDER = P256_ORDER >> 1n;
/** SubjectPublicKeyInfo DER of a P-256 key up to its uncompressed point (0x04 || x || y follows). */
const P256_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');

/** A project id as it may appear in a kid: what project ids are (UUIDs, `internal`), bounded. */
const KID_PROJECT = /^[A-Za-z0-9_-]{1,64}$/;
const KID_GENERATION = /^[1-9][0-9]{0,8}$/;

/** `<project id>.<generation>`: the kid names the project and the generation of its key. */
export function kidFor(projectId: string, generation: number): string {
  return `${projectId}.${generation}`;
}

/** The project and generation a kid names, or null when it is not a kid Latch issues. */
export function parseKid(kid: string): { projectId: string; generation: number } | null {
  const dot = kid.lastIndexOf('.');
  if (dot < 0) return null;
  const projectId = kid.slice(0, dot);
  const generation = kid.slice(dot + 1);
  if (!KID_PROJECT.test(projectId) || !KID_GENERATION.test(generation)) return null;
  return { projectId, generation: Number(generation) };
}

/**
 * The private scalar of a project's key for one generation: HKDF-SHA256 of the generation's seed,
 * with the project id and generation as context, reduced into [1, n-1] as FIPS 186-5 A.2.1 does
 * (40 bytes, 64 bits more than n, so the bias of the reduction is below 2^-64). Deterministic, so
 * every instance that holds the seed derives the same key and nothing per project is stored.
 */
export function deriveProjectScalar(seed: Buffer, projectId: string, generation: number): Buffer {
  const okm = Buffer.from(hkdfSync('sha256', seed, 'latch:project-signing-key:v1', `${projectId}\0${generation}`, 40));
  const d = (BigInt(`0x${okm.toString('hex')}`) % (P256_ORDER - 1n)) + 1n;
  return Buffer.from(d.toString(16).padStart(64, '0'), 'hex');
}

/** A project's key pair of one generation, derived once and kept in the keyring's bounded cache. */
export interface ProjectSigningKey {
  kid: string;
  projectId: string;
  generation: number;
  publicKey: KeyObject;
  publicJwk: JWK;
  /** The base64url header every token signed with this key carries. */
  encodedHeader: string;
  /** Made on first use: verification never needs the private key. */
  privateKey: () => KeyObject;
}

/** Derives a project's key pair (one P-256 scalar multiplication for the public point). */
export function deriveProjectKey(seed: Buffer, projectId: string, generation: number): ProjectSigningKey {
  const d = deriveProjectScalar(seed, projectId, generation);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const kid = kidFor(projectId, generation);
  const x = point.subarray(1, 33).toString('base64url');
  const y = point.subarray(33, 65).toString('base64url');
  let privateKey: KeyObject | null = null;
  return {
    kid,
    projectId,
    generation,
    publicKey: createPublicKey({ key: Buffer.concat([P256_SPKI_PREFIX, point]), format: 'der', type: 'spki' }),
    publicJwk: { kty: 'EC', crv: 'P-256', x, y, kid, alg: 'ES256', use: 'sig' },
    encodedHeader: base64url(JSON.stringify({ alg: 'ES256', kid, typ: 'JWT' })),
    privateKey: () => (privateKey ??= createPrivateKey({ key: { kty: 'EC', crv: 'P-256', x, y, d: d.toString('base64url') }, format: 'jwk' })),
  };
}

/**
 * Whether an IEEE P1363 (r || s) P-256 signature is canonical: 1 <= r < n and 1 <= s <= n/2.
 * ECDSA is malleable: (r, n - s) verifies whenever (r, s) does, and neither OpenSSL nor WebCrypto
 * refuses the high-S twin. Accepting only low S gives every token exactly one valid encoding, so a
 * token's string identifies it (the verified-token cache, logs and deny lists rely on that).
 */
export function isCanonicalSignature(signature: Buffer): boolean {
  if (signature.length !== 64) return false;
  const r = BigInt(`0x${signature.subarray(0, 32).toString('hex')}`);
  const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
  return r >= 1n && r < P256_ORDER && s >= 1n && s <= P256_HALF_ORDER;
}

/** n / 2 as 32 big-endian bytes: a 32-byte s compares with it byte by byte, as numbers do. */
const P256_HALF_ORDER_BYTES = Buffer.from(P256_HALF_ORDER.toString(16).padStart(64, '0'), 'hex');

/** The low-S form of a signature: s replaced by n - s when s > n/2 (the same signature, canonical). */
export function toLowS(signature: Buffer): Buffer {
  // Every signature this server makes passes here: compare the bytes, and reach for BigInt only
  // for the half of them whose s is high.
  if (signature.length === 64 && Buffer.compare(signature.subarray(32), P256_HALF_ORDER_BYTES) <= 0) return signature;
  const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
  if (s <= P256_HALF_ORDER) return signature;
  return Buffer.concat([signature.subarray(0, 32), Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex')]);
}

/** Verified tokens remembered (a client reuses one access token for minutes). */
const VERIFIED_CACHE_MAX = 10_000;
/** Derived project keys remembered: one per active (project, generation); least recently used evicted. */
export const PROJECT_KEY_CACHE_MAX = 10_000;

/**
 * The deployment's signing keys: a set of generations, each a seed from which every project derives
 * its own ES256 key pair. A project's token is signed with that project's key of the signing
 * generation and verifies only with that project's key, so a token minted in one project never
 * verifies against another project's JWKS. Every loaded generation verifies, so rotation has overlap.
 *
 * Verification is pure CPU (no database): the hot path of every authenticated request. A project's
 * key is derived once per process (one scalar multiplication) and kept in a bounded LRU; a key is
 * cached only once a token has verified with it (or this server signed with it), so tokens naming
 * made-up projects cannot push real projects' keys out.
 *
 * ES256 runs synchronously on node:crypto KeyObjects: a P-256 verify is ≈ 60 µs of CPU, about half
 * of jose's WebCrypto path. The checks are jose's: compact form, `alg` exactly ES256, a kid that
 * names a loaded generation, no `crit`, a canonical (low-S) signature, the signature itself, then
 * the claims (`exp` in the future, `nbf` reached, numeric `iat`), the presence of every access-token
 * claim, and `project_id` equal to the project the kid names (the key is the project's).
 */
export class Keyring {
  /** token string → its verified claims, until their `exp`; bounded, oldest insertion evicted. */
  private readonly verified = new Map<string, AccessTokenClaims>();
  /** kid → derived key; a Map in recency order (a hit moves the entry to the end). */
  private readonly projectKeys = new Map<string, ProjectSigningKey>();
  private generations = new Map<number, SigningGeneration>();
  private signingGeneration = 0;

  constructor(
    generations: SigningGeneration[],
    signingGeneration?: number,
    private readonly projectKeyCacheMax = PROJECT_KEY_CACHE_MAX,
  ) {
    this.setGenerations(generations, signingGeneration);
  }

  /**
   * Replaces the loaded generations (after a rotation or a reload). Keys of generations that stay
   * are kept; when a generation is dropped, the tokens it verified are forgotten too.
   */
  setGenerations(generations: SigningGeneration[], signingGeneration?: number): void {
    if (generations.length === 0) throw new Error('the keyring needs at least one generation');
    const next = new Map(generations.map((g) => [g.generation, g]));
    const signing = signingGeneration ?? Math.max(...next.keys());
    if (!next.has(signing)) throw new Error('the signing generation is not loaded');
    let dropped = false;
    for (const [generation, old] of this.generations) {
      const kept = next.get(generation);
      if (!kept || !kept.seed.equals(old.seed)) dropped = true;
    }
    if (dropped) {
      this.verified.clear();
      for (const [kid, key] of this.projectKeys) {
        const kept = next.get(key.generation);
        if (!kept || !kept.seed.equals(this.generations.get(key.generation)!.seed)) this.projectKeys.delete(kid);
      }
    }
    this.generations = next;
    this.signingGeneration = signing;
  }

  get currentGeneration(): number {
    return this.signingGeneration;
  }

  hasGeneration(generation: number): boolean {
    return this.generations.has(generation);
  }

  /** The project's public keys, one per loaded generation, newest first. */
  jwks(projectId: string): { keys: JWK[] } {
    const generations = [...this.generations.keys()].sort((a, b) => b - a);
    return { keys: generations.map((g) => this.keyFor(projectId, g).publicJwk) };
  }

  /** Signs with the key of the project the claims name (`project_id`), of the signing generation. */
  async sign(claims: Omit<AccessTokenClaims, 'iat' | 'exp'>, ttlSeconds: number): Promise<string> {
    // A project id that cannot be a kid's would give tokens nothing can verify: refuse to sign.
    if (!KID_PROJECT.test(claims.project_id)) throw new Error(`cannot sign for the project id ${JSON.stringify(claims.project_id)}`);
    const key = this.keyFor(claims.project_id, this.signingGeneration);
    const iat = Math.floor(Date.now() / 1000);
    // Named one by one, in the order tokens have always had (the other claims, then sub, iss, aud,
    // iat, exp): an object rest and spread here cost more than the rest of the JSON encoding.
    const payload = {
      project_id: claims.project_id,
      branch_id: claims.branch_id,
      refresh_token_id: claims.refresh_token_id,
      role: claims.role,
      name: claims.name,
      email: claims.email,
      email_verified: claims.email_verified,
      selected_team_id: claims.selected_team_id,
      is_anonymous: claims.is_anonymous,
      signed_up_at: claims.signed_up_at,
      is_restricted: claims.is_restricted,
      restricted_reason: claims.restricted_reason,
      requires_totp_mfa: claims.requires_totp_mfa,
      sub: claims.sub,
      iss: claims.iss,
      aud: claims.aud,
      iat,
      exp: iat + Math.floor(ttlSeconds),
    } satisfies AccessTokenClaims;
    const signingInput = `${key.encodedHeader}.${base64url(JSON.stringify(payload))}`;
    const signature = cryptoSign('sha256', Buffer.from(signingInput), { key: key.privateKey(), dsaEncoding: 'ieee-p1363' });
    return `${signingInput}.${toLowS(signature).toString('base64url')}`;
  }

  /**
   * Verifies signature, algorithm (ES256 only: `alg: none` and HS256-with-the-public-key are
   * refused by construction), expiry and the presence of every claim. Project and audience checks
   * against the request are the caller's, because their errors differ.
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

  /** Whether a project's derived key of a generation is in the cache (tests: eviction order). */
  cachesKey(kid: string): boolean {
    return this.projectKeys.has(kid);
  }

  /** How many derived project keys are remembered (tests: the cache stays bounded). */
  get projectKeyCacheSize(): number {
    return this.projectKeys.size;
  }

  /** The project's key of a loaded generation: from the cache, else derived and remembered. */
  private keyFor(projectId: string, generation: number): ProjectSigningKey {
    const kid = kidFor(projectId, generation);
    const hit = this.cachedKey(kid);
    if (hit) return hit;
    const key = deriveProjectKey(this.generations.get(generation)!.seed, projectId, generation);
    this.remember(key);
    return key;
  }

  private cachedKey(kid: string): ProjectSigningKey | undefined {
    const hit = this.projectKeys.get(kid);
    if (hit) {
      // Recency: move to the end, so the first entry is always the least recently used.
      this.projectKeys.delete(kid);
      this.projectKeys.set(kid, hit);
    }
    return hit;
  }

  private remember(key: ProjectSigningKey): void {
    if (this.projectKeys.size >= this.projectKeyCacheMax) this.projectKeys.delete(this.projectKeys.keys().next().value as string);
    this.projectKeys.set(key.kid, key);
  }

  private check(token: string, now: number): AccessTokenClaims {
    const unparsable = (message = 'Access token could not be parsed or its signature is invalid') => new TokenVerificationError('unparsable', message);
    const first = token.indexOf('.');
    const second = first < 0 ? -1 : token.indexOf('.', first + 1);
    if (first <= 0 || second < 0 || token.indexOf('.', second + 1) !== -1) throw unparsable();
    const header = parseSegment(token.slice(0, first));
    if (!header || header.alg !== 'ES256' || header.crit !== undefined || header.b64 !== undefined) throw unparsable();
    const named = typeof header.kid === 'string' ? parseKid(header.kid) : null;
    if (!named || !this.generations.has(named.generation)) throw unparsable('Unknown signing key');
    const encodedSignature = token.slice(second + 1);
    if (!BASE64URL.test(encodedSignature)) throw unparsable();
    const signature = Buffer.from(encodedSignature, 'base64url');
    // A P-256 signature in IEEE P1363 form is exactly 64 bytes (r || s), and Latch signs low-S only.
    if (!isCanonicalSignature(signature)) throw unparsable();
    // parseKid accepts only the canonical form, so header.kid is the cache key kidFor would build.
    const cached = this.cachedKey(header.kid as string);
    const key = cached ?? deriveProjectKey(this.generations.get(named.generation)!.seed, named.projectId, named.generation);
    if (!cryptoVerify('sha256', Buffer.from(token.slice(0, second)), { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature)) throw unparsable();
    if (!cached) this.remember(key);
    const payload = parseSegment(token.slice(first + 1, second));
    if (!payload) throw unparsable();
    if (payload.iat !== undefined && typeof payload.iat !== 'number') throw unparsable();
    if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > now)) throw unparsable();
    if (payload.exp !== undefined && typeof payload.exp !== 'number') throw unparsable();
    if (!isAccessTokenClaims(payload)) throw unparsable('Missing access token claims');
    // The key is the project's: a token verifies only as a token of the project its key belongs to.
    if (payload.project_id !== named.projectId) throw unparsable();
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
  return (
    typeof p.sub === 'string' &&
    typeof p.project_id === 'string' &&
    typeof p.branch_id === 'string' &&
    typeof p.refresh_token_id === 'string' &&
    typeof p.aud === 'string' &&
    typeof p.exp === 'number' &&
    typeof p.iss === 'string' &&
    p.role === 'authenticated' &&
    typeof p.is_anonymous === 'boolean'
  );
}
