import { createHmac, createPublicKey, randomBytes, randomUUID } from 'node:crypto';
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, createLocalJWKSet, exportSPKI, generateKeyPair, importJWK, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AccessTokenClaims,
  Keyring,
  PROJECT_KEY_CACHE_MAX,
  type SigningGeneration,
  TokenVerificationError,
  deriveProjectKey,
  deriveProjectScalar,
  isCanonicalSignature,
  kidFor,
  parseKid,
  peekKid,
  toLowS,
} from './jwt.js';

const PROJECT = '0b0b7c1e-6f0e-4a37-9a4e-3f7f1f4c2d10';
const OTHER_PROJECT = '7d3a1f52-2c4e-4b8a-9f61-0a2b3c4d5e6f';
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

function claims(overrides: Partial<Omit<AccessTokenClaims, 'iat' | 'exp'>> = {}): Omit<AccessTokenClaims, 'iat' | 'exp'> {
  const projectId = overrides.project_id ?? PROJECT;
  return {
    sub: randomUUID(),
    iss: `http://localhost:8400/api/v1/projects/${projectId}`,
    aud: projectId,
    project_id: projectId,
    branch_id: 'main',
    refresh_token_id: randomUUID(),
    role: 'authenticated',
    name: 'Ada',
    email: 'ada@example.com',
    email_verified: true,
    selected_team_id: null,
    is_anonymous: false,
    signed_up_at: 1_700_000_000,
    is_restricted: false,
    restricted_reason: null,
    requires_totp_mfa: false,
    ...overrides,
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TokenVerificationError);
    return (error as TokenVerificationError).reason;
  }
  throw new Error('expected the token to be refused');
}

function generation(n: number, ageMs = 0): SigningGeneration {
  return { generation: n, seed: randomBytes(32), createdAt: new Date(Date.now() - ageMs) };
}

/** The private JWK of a project's derived key (what only the server can compute). */
function privateJwkOf(gen: SigningGeneration, projectId = PROJECT): JWK {
  const key = deriveProjectKey(gen.seed, projectId, gen.generation);
  return { ...key.publicJwk, d: deriveProjectScalar(gen.seed, projectId, gen.generation).toString('base64url') };
}

/** Replaces a compact JWS's signature by its low-S (canonical) twin; jose's signer does not normalise. */
function canonical(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  return `${h}.${p}.${toLowS(Buffer.from(s, 'base64url')).toString('base64url')}`;
}

/** The high-S twin of a token: the same signature with s replaced by n - s (verifies under plain ECDSA). */
function highS(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const sig = Buffer.from(s, 'base64url');
  const low = BigInt(`0x${toLowS(sig).subarray(32).toString('hex')}`);
  const flipped = Buffer.concat([sig.subarray(0, 32), Buffer.from((P256_ORDER - low).toString(16).padStart(64, '0'), 'hex')]);
  return `${h}.${p}.${flipped.toString('base64url')}`;
}

/** Signs arbitrary claims with a project's derived key, bypassing Keyring.sign's claim shaping. */
async function signRaw(
  gen: SigningGeneration,
  payload: JWTPayload,
  header: Record<string, unknown> = {},
  expiresIn: string | number = '10m',
  projectId = PROJECT,
): Promise<string> {
  const privateKey = (await importJWK(privateJwkOf(gen, projectId), 'ES256')) as CryptoKey;
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', kid: kidFor(projectId, gen.generation), typ: 'JWT', ...header })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(privateKey);
  return canonical(token);
}

let gen1: SigningGeneration;
let keyring: Keyring;
beforeAll(() => {
  gen1 = generation(1);
  keyring = new Keyring([gen1]);
});

describe('Keyring sign / verify', () => {
  it('round-trips every claim, with exp - iat equal to the ttl', async () => {
    const c = claims();
    const token = await keyring.sign(c, 600);
    const verified = await keyring.verify(token);
    expect(verified).toMatchObject(c);
    expect(verified.exp - verified.iat).toBe(600);
    expect(Math.abs(verified.iat - Date.now() / 1000)).toBeLessThan(5);
  });

  it('signs ES256 with a kid that names the project and the generation', async () => {
    const token = await keyring.sign(claims(), 60);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    expect(header).toEqual({ alg: 'ES256', kid: `${PROJECT}.1`, typ: 'JWT' });
    expect(peekKid(token)).toBe(`${PROJECT}.1`);
    expect(parseKid(header.kid)).toEqual({ projectId: PROJECT, generation: 1 });
  });

  it('keeps anonymous tokens apart by audience', async () => {
    const token = await keyring.sign(claims({ aud: `${PROJECT}:anon`, is_anonymous: true, email: null }), 60);
    const verified = await keyring.verify(token);
    expect(verified.aud).toBe(`${PROJECT}:anon`);
    expect(verified.is_anonymous).toBe(true);
  });

  it("refuses an expired token with reason 'expired'", async () => {
    const token = await keyring.sign(claims(), -30);
    expect(await reason(keyring.verify(token))).toBe('expired');
    const raw = await signRaw(gen1, { ...claims(), sub: randomUUID() }, {}, '-1s');
    expect(await reason(keyring.verify(raw))).toBe('expired');
  });

  it("refuses a token with a tampered payload as 'unparsable'", async () => {
    const token = await keyring.sign(claims(), 60);
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = [h, b64({ ...payload, sub: randomUUID() }), s].join('.');
    expect(await reason(keyring.verify(forged))).toBe('unparsable');
    const elevated = [h, b64({ ...payload, project_id: 'internal' }), s].join('.');
    expect(await reason(keyring.verify(elevated))).toBe('unparsable');
  });

  it("refuses a tampered signature or header as 'unparsable'", async () => {
    const token = await keyring.sign(claims(), 60);
    const [h, p, s] = token.split('.') as [string, string, string];
    const sig = Buffer.from(s, 'base64url');
    sig[5] = sig[5]! ^ 0xff;
    expect(await reason(keyring.verify([h, p, sig.toString('base64url')].join('.')))).toBe('unparsable');
    expect(await reason(keyring.verify([h, p, ''].join('.')))).toBe('unparsable');
    expect(await reason(keyring.verify([b64({ alg: 'ES256', kid: `${PROJECT}.1`, typ: 'JWT', x: 1 }), p, s].join('.')))).toBe('unparsable');
  });

  it("refuses alg: none as 'unparsable'", async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims(), iat: now, exp: now + 600 };
    for (const alg of ['none', 'None', 'NONE']) {
      const token = `${b64({ alg, kid: `${PROJECT}.1`, typ: 'JWT' })}.${b64(payload)}.`;
      expect(await reason(keyring.verify(token))).toBe('unparsable');
    }
  });

  it("refuses HS256 signed with the public key as the HMAC secret (algorithm confusion) as 'unparsable'", async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims(), iat: now, exp: now + 600 };
    const publicJwk = keyring.jwks(PROJECT).keys[0]!;
    const pem = await exportSPKI((await importJWK(publicJwk, 'ES256')) as CryptoKey);
    for (const secret of [pem, JSON.stringify(publicJwk), publicJwk.x!]) {
      const signingInput = `${b64({ alg: 'HS256', kid: `${PROJECT}.1`, typ: 'JWT' })}.${b64(payload)}`;
      const mac = createHmac('sha256', secret).update(signingInput).digest('base64url');
      expect(await reason(keyring.verify(`${signingInput}.${mac}`))).toBe('unparsable');
    }
  });

  it("refuses a token whose kid is unknown, missing, malformed, or points at another key, as 'unparsable'", async () => {
    const otherSeed = generation(1);
    const foreign = await new Keyring([otherSeed]).sign(claims(), 60);
    expect(await reason(keyring.verify(foreign))).toBe('unparsable');
    // Right kid, wrong key: signed by another deployment's key under our kid.
    expect(await reason(keyring.verify(await signRaw(otherSeed, claims())))).toBe('unparsable');
    const noKid = await signRaw(gen1, claims(), { kid: undefined });
    expect(peekKid(noKid)).toBeNull();
    expect(await reason(keyring.verify(noKid))).toBe('unparsable');
    for (const kid of [`${PROJECT}.2`, `${PROJECT}.01`, `${PROJECT}`, `${PROJECT}.1.1`, '.1', `${'a'.repeat(65)}.1`, 'a b.1']) {
      expect(await reason(keyring.verify(await signRaw(gen1, claims(), { kid })))).toBe('unparsable');
    }
  });

  it.each(['sub', 'project_id', 'branch_id', 'refresh_token_id', 'aud', 'iss', 'role', 'is_anonymous'] as const)(
    "refuses a correctly signed token without %s as 'unparsable'",
    async (claim) => {
      const c: Record<string, unknown> = { ...claims() };
      delete c[claim];
      expect(await reason(keyring.verify(await signRaw(gen1, c as JWTPayload)))).toBe('unparsable');
    },
  );

  it("refuses a correctly signed token without exp, or with role other than 'authenticated'", async () => {
    const privateKey = (await importJWK(privateJwkOf(gen1), 'ES256')) as CryptoKey;
    const noExp = canonical(
      await new SignJWT({ ...claims() })
        .setProtectedHeader({ alg: 'ES256', kid: `${PROJECT}.1` })
        .setIssuedAt()
        .sign(privateKey),
    );
    expect(await reason(keyring.verify(noExp))).toBe('unparsable');
    expect(await reason(keyring.verify(await signRaw(gen1, { ...claims(), role: 'service_role' } as JWTPayload)))).toBe('unparsable');
    expect(await reason(keyring.verify(await signRaw(gen1, { ...claims(), is_anonymous: 'false' } as unknown as JWTPayload)))).toBe('unparsable');
  });

  it("refuses garbage as 'unparsable'", async () => {
    for (const token of ['', 'abc', 'a.b.c', 'a.b', `${b64({ alg: 'ES256' })}.${b64({})}`, 'eyJ.eyJ.x']) {
      expect(await reason(keyring.verify(token))).toBe('unparsable');
    }
  });

  it('refuses an RS256 token even if its kid is known', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ ...claims() })
      .setProtectedHeader({ alg: 'RS256', kid: `${PROJECT}.1` })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
    expect(await reason(keyring.verify(token))).toBe('unparsable');
  });

  it('refuses to sign for a project id no kid can carry', async () => {
    await expect(keyring.sign(claims({ project_id: 'a.b' }), 60)).rejects.toThrow();
    await expect(keyring.sign(claims({ project_id: '' }), 60)).rejects.toThrow();
  });
});

describe('a key per project', () => {
  it('derives a different key for every project and generation, the same one from the same seed (restart, second instance)', () => {
    const a1 = deriveProjectKey(gen1.seed, PROJECT, 1);
    expect(deriveProjectKey(gen1.seed, PROJECT, 1).publicJwk).toEqual(a1.publicJwk);
    expect(deriveProjectKey(gen1.seed, OTHER_PROJECT, 1).publicJwk.x).not.toBe(a1.publicJwk.x);
    expect(deriveProjectKey(gen1.seed, 'internal', 1).publicJwk.x).not.toBe(a1.publicJwk.x);
    expect(deriveProjectKey(gen1.seed, PROJECT, 2).publicJwk.x).not.toBe(a1.publicJwk.x);
    expect(deriveProjectKey(randomBytes(32), PROJECT, 1).publicJwk.x).not.toBe(a1.publicJwk.x);
    // The public key is the private scalar's: a node KeyObject made from the JWK checks the point.
    expect(createPublicKey({ key: privateJwkOf(gen1), format: 'jwk' }).export({ format: 'jwk' })).toMatchObject({ x: a1.publicJwk.x, y: a1.publicJwk.y });
  });

  it("a token of project A fails signature verification with project B's JWKS, and verifies with A's", async () => {
    const tokenA = await keyring.sign(claims({ project_id: PROJECT, email_verified: true }), 60);
    const jwksA = createLocalJWKSet(keyring.jwks(PROJECT));
    const jwksB = createLocalJWKSet(keyring.jwks(OTHER_PROJECT));
    await expect(jwtVerify(tokenA, jwksA, { algorithms: ['ES256'] })).resolves.toBeDefined();
    // Even a verifier that checks no audience: B's JWKS has no key for A's kid...
    await expect(jwtVerify(tokenA, jwksB, { algorithms: ['ES256'] })).rejects.toThrow();
    // ...and B's key under A's kid does not verify A's signature either.
    const relabelled = { keys: keyring.jwks(OTHER_PROJECT).keys.map((k) => ({ ...k, kid: `${PROJECT}.1` })) };
    await expect(jwtVerify(tokenA, createLocalJWKSet(relabelled), { algorithms: ['ES256'] })).rejects.toThrow('signature verification failed');
  });

  it('refuses a token whose claims name another project than its key (kid) does', async () => {
    // Signed with project A's real key, but claiming to be B's: A's owner must not mint B's tokens.
    const crossed = await signRaw(gen1, { ...claims({ project_id: OTHER_PROJECT }) }, {}, '10m', PROJECT);
    expect(await reason(keyring.verify(crossed))).toBe('unparsable');
    // And a kid naming B over A's signature fails the signature check.
    const relabelled = await signRaw(gen1, { ...claims({ project_id: OTHER_PROJECT }) }, { kid: `${OTHER_PROJECT}.1` }, '10m', PROJECT);
    expect(await reason(keyring.verify(relabelled))).toBe('unparsable');
  });

  it('publishes one public key per loaded generation for the project, and nothing private', () => {
    const ring = new Keyring([generation(1, 86_400_000), generation(2)], 1);
    const { keys } = ring.jwks(PROJECT);
    expect(keys.map((k) => k.kid)).toEqual([`${PROJECT}.2`, `${PROJECT}.1`]);
    for (const jwk of keys) {
      expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwk).not.toHaveProperty('d');
    }
    expect(ring.jwks(OTHER_PROJECT).keys.map((k) => k.kid)).toEqual([`${OTHER_PROJECT}.2`, `${OTHER_PROJECT}.1`]);
  });

  it('keeps derived keys in a bounded cache, and never caches a key of a token that failed', async () => {
    const ring = new Keyring([generation(1)], undefined, 100);
    // Made-up projects (a kid naming them, a signature nobody made) leave no key behind.
    for (let i = 0; i < 50; i++) {
      const fake = `${b64({ alg: 'ES256', kid: `${randomUUID()}.1`, typ: 'JWT' })}.${b64(claims())}.${Buffer.alloc(64, 1).toString('base64url')}`;
      expect(await reason(ring.verify(fake))).toBe('unparsable');
    }
    expect(ring.projectKeyCacheSize).toBe(0);
    await ring.verify(await ring.sign(claims(), 60));
    expect(ring.projectKeyCacheSize).toBe(1);
    for (let i = 0; i < 120; i++) ring.jwks(`p${i}`);
    expect(ring.projectKeyCacheSize).toBe(100);
    // Least recently used goes first: a project in use stays.
    const busy = await ring.sign(claims({ project_id: 'busy' }), 60);
    for (let i = 0; i < 150; i++) {
      ring.jwks(`q${i}`);
      if (i % 10 === 0) ring.jwks('busy');
    }
    expect(ring.projectKeyCacheSize).toBe(100);
    expect(ring.cachesKey('busy.1')).toBe(true);
    expect(ring.cachesKey('q0.1')).toBe(false);
    expect((await ring.verify(busy)).project_id).toBe('busy');
    expect(PROJECT_KEY_CACHE_MAX).toBeGreaterThanOrEqual(1000);
  });
});

describe('canonical (low-S) signatures', () => {
  it('signs only low-S, and refuses the high-S twin of a valid token (which plain ECDSA accepts)', async () => {
    const jwks = createLocalJWKSet(keyring.jwks(PROJECT));
    for (let i = 0; i < 40; i++) {
      const token = await keyring.sign(claims(), 60);
      expect(isCanonicalSignature(Buffer.from(token.split('.')[2]!, 'base64url'))).toBe(true);
      const twin = highS(token);
      expect(twin).not.toBe(token);
      // The twin is a valid ECDSA signature: jose (WebCrypto) accepts it...
      await expect(jwtVerify(twin, jwks, { algorithms: ['ES256'] })).resolves.toBeDefined();
      // ...Latch does not, whether or not the low-S original was verified (and cached) before.
      if (i % 2) await keyring.verify(token);
      expect(await reason(keyring.verify(twin))).toBe('unparsable');
    }
  });

  it('checks r and s against the group order', () => {
    const n = Buffer.from(P256_ORDER.toString(16), 'hex');
    const half = Buffer.from((P256_ORDER >> 1n).toString(16).padStart(64, '0'), 'hex');
    const halfPlusOne = Buffer.from(((P256_ORDER >> 1n) + 1n).toString(16).padStart(64, '0'), 'hex');
    const one = Buffer.alloc(32);
    one[31] = 1;
    const zero = Buffer.alloc(32);
    expect(isCanonicalSignature(Buffer.concat([one, half]))).toBe(true);
    expect(isCanonicalSignature(Buffer.concat([one, halfPlusOne]))).toBe(false);
    expect(isCanonicalSignature(Buffer.concat([one, zero]))).toBe(false);
    expect(isCanonicalSignature(Buffer.concat([zero, one]))).toBe(false);
    expect(isCanonicalSignature(Buffer.concat([n, one]))).toBe(false);
    expect(isCanonicalSignature(Buffer.alloc(63, 1))).toBe(false);
    expect(isCanonicalSignature(Buffer.alloc(65, 1))).toBe(false);
    expect(toLowS(Buffer.concat([one, halfPlusOne])).subarray(32)).toEqual(
      Buffer.from((P256_ORDER - (P256_ORDER >> 1n) - 1n).toString(16).padStart(64, '0'), 'hex'),
    );
    expect(toLowS(Buffer.concat([one, half]))).toEqual(Buffer.concat([one, half]));
  });
});

describe('key rotation', () => {
  it('signs with the signing generation and still verifies tokens of the older one', async () => {
    const older = generation(1, 40 * 86_400_000);
    const newer = generation(2, 2 * 3_600_000);
    const before = await new Keyring([older]).sign(claims(), 60);
    const rotated = new Keyring([older, newer]);
    expect(rotated.currentGeneration).toBe(2);
    expect(rotated.hasGeneration(1)).toBe(true);
    expect(rotated.hasGeneration(3)).toBe(false);
    expect(peekKid(await rotated.sign(claims(), 60))).toBe(`${PROJECT}.2`);
    expect((await rotated.verify(before)).sub).toBeTypeOf('string');
    // A published generation that does not sign yet still verifies.
    const prepublished = new Keyring([older, newer], 1);
    expect(peekKid(await prepublished.sign(claims(), 60))).toBe(`${PROJECT}.1`);
    expect((await prepublished.verify(await rotated.sign(claims(), 60))).sub).toBeTypeOf('string');
    // After the old generation is dropped, its tokens die, even ones verified (cached) before.
    rotated.setGenerations([newer]);
    expect(await reason(rotated.verify(before))).toBe('unparsable');
  });

  it('needs at least one generation, and a loaded signing generation', () => {
    expect(() => new Keyring([])).toThrow();
    expect(() => new Keyring([generation(1)], 2)).toThrow();
  });
});

describe('peekKid / parseKid', () => {
  it('reads the kid without verifying, and is null for anything else', () => {
    expect(peekKid(`${b64({ alg: 'ES256', kid: 'k1' })}.x.y`)).toBe('k1');
    expect(peekKid(`${b64({ alg: 'ES256', kid: 5 })}.x.y`)).toBeNull();
    expect(peekKid(`${b64({ alg: 'ES256' })}.x.y`)).toBeNull();
    expect(peekKid('not-base64-json.x.y')).toBeNull();
    expect(peekKid('')).toBeNull();
    expect(peekKid(`${b64(null)}.x.y`)).toBeNull();
  });

  it('parses only the canonical `<project>.<generation>` form', () => {
    expect(parseKid('internal.3')).toEqual({ projectId: 'internal', generation: 3 });
    expect(parseKid(kidFor(PROJECT, 12))).toEqual({ projectId: PROJECT, generation: 12 });
    for (const kid of [
      'internal',
      'internal.',
      '.1',
      'internal.0',
      'internal.01',
      'internal.-1',
      'internal.1e3',
      'a/b.1',
      `${'a'.repeat(65)}.1`,
      'internal.1234567890',
    ]) {
      expect(parseKid(kid)).toBeNull();
    }
  });
});

describe('verified-token cache', () => {
  it('answers a token it verified before with the same claims, and still refuses it once expired', async () => {
    const ring = new Keyring([gen1]);
    const token = await ring.sign(claims(), 2);
    const first = await ring.verify(token);
    expect(ring.verifiedCacheSize).toBe(1);
    expect(await ring.verify(token)).toBe(first);
    expect(ring.verifiedCacheSize).toBe(1);
    // exp is whole seconds: wait until it has passed, the cached entry must not outlive it.
    await new Promise((resolve) => setTimeout(resolve, first.exp * 1000 - Date.now() + 50));
    expect(await reason(ring.verify(token))).toBe('expired');
    expect(ring.verifiedCacheSize).toBe(0);
  });

  it('never caches a refused token, and a tampered copy of a cached token is still refused', async () => {
    const ring = new Keyring([gen1]);
    const token = await ring.sign(claims(), 60);
    await ring.verify(token);
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(await reason(ring.verify([h, b64({ ...payload, sub: randomUUID() }), s].join('.')))).toBe('unparsable');
    expect(await reason(ring.verify(`${token}x`))).toBe('unparsable');
    expect(ring.verifiedCacheSize).toBe(1);
  });

  it('stays bounded', async () => {
    const ring = new Keyring([gen1]);
    for (let i = 0; i < 10_050; i++) ring.verifySync(await ring.sign(claims(), 60));
    expect(ring.verifiedCacheSize).toBe(10_000);
  });
});
