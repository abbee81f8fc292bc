import { randomUUID } from 'node:crypto';
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, errors as joseErrors } from 'jose';

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

/**
 * The deployment's signing keys. The newest key signs; every loaded key verifies, so rotation has
 * overlap. Verification is pure CPU (no database): the hot path of every authenticated request.
 */
export class Keyring {
  private constructor(
    private readonly signingKid: string,
    private readonly signingKey: CryptoKey,
    private readonly verifyKeys: Map<string, CryptoKey>,
    private readonly publicJwks: JWK[],
  ) {}

  static async create(keys: StoredSigningKey[]): Promise<Keyring> {
    const newest = [...keys].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
    if (!newest) throw new Error('the keyring needs at least one key');
    const verifyKeys = new Map<string, CryptoKey>();
    for (const key of keys) verifyKeys.set(key.kid, (await importJWK(key.publicJwk, 'ES256')) as CryptoKey);
    const signingKey = (await importJWK(newest.privateJwk, 'ES256')) as CryptoKey;
    return new Keyring(newest.kid, signingKey, verifyKeys, keys.map((k) => k.publicJwk));
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

  sign(claims: Omit<AccessTokenClaims, 'iat' | 'exp'>, ttlSeconds: number): Promise<string> {
    const { sub, iss, aud, ...rest } = claims;
    return new SignJWT({ ...rest } as JWTPayload)
      .setProtectedHeader({ alg: 'ES256', kid: this.signingKid, typ: 'JWT' })
      .setSubject(sub)
      .setIssuer(iss)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.signingKey);
  }

  /**
   * Verifies signature, algorithm (ES256 only: `alg: none` and HS256-with-the-public-key are
   * refused by construction), expiry and the presence of every claim. Project and audience checks
   * are the caller's, because their errors differ.
   */
  async verify(token: string): Promise<AccessTokenClaims> {
    try {
      const { payload } = await jwtVerify(token, async (header) => {
        const key = header.kid ? this.verifyKeys.get(header.kid) : undefined;
        if (!key) throw new TokenVerificationError('unparsable', 'Unknown signing key');
        return key;
      }, { algorithms: ['ES256'] });
      if (!isAccessTokenClaims(payload)) throw new TokenVerificationError('unparsable', 'Missing access token claims');
      return payload;
    } catch (error) {
      if (error instanceof TokenVerificationError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new TokenVerificationError('expired', 'Access token has expired');
      throw new TokenVerificationError('unparsable', 'Access token could not be parsed or its signature is invalid');
    }
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

function isAccessTokenClaims(p: JWTPayload): p is JWTPayload & AccessTokenClaims {
  return typeof p.sub === 'string' && typeof p.project_id === 'string' && typeof p.branch_id === 'string' &&
    typeof p.refresh_token_id === 'string' && typeof p.aud === 'string' && typeof p.exp === 'number' &&
    typeof p.iss === 'string' && p.role === 'authenticated' && typeof p.is_anonymous === 'boolean';
}
