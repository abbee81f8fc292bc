import { createHmac, randomUUID } from 'node:crypto';
import { type CryptoKey, type JWTPayload, SignJWT, exportSPKI, generateKeyPair, importJWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AccessTokenClaims, Keyring, type StoredSigningKey, TokenVerificationError, generateSigningKey, peekKid } from './jwt.js';

const PROJECT = '0b0b7c1e-6f0e-4a37-9a4e-3f7f1f4c2d10';

function claims(overrides: Partial<Omit<AccessTokenClaims, 'iat' | 'exp'>> = {}): Omit<AccessTokenClaims, 'iat' | 'exp'> {
  return {
    sub: randomUUID(),
    iss: `http://localhost:8400/api/v1/projects/${PROJECT}`,
    aud: PROJECT,
    project_id: PROJECT,
    branch_id: 'main',
    refresh_token_id: randomUUID(),
    role: 'authenticated',
    name: 'Ada',
    email: 'ada@example.com',
    email_verified: true,
    selected_team_id: null,
    is_anonymous: false,
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

/** Signs arbitrary claims with a stored key, bypassing Keyring.sign's claim shaping. */
async function signRaw(key: StoredSigningKey, payload: JWTPayload, header: Record<string, unknown> = {}, expiresIn = '10m'): Promise<string> {
  const privateKey = (await importJWK(key.privateJwk, 'ES256')) as CryptoKey;
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT', ...header }).setIssuedAt().setExpirationTime(expiresIn).sign(privateKey);
}

let key: StoredSigningKey;
let keyring: Keyring;
beforeAll(async () => {
  key = await generateSigningKey();
  keyring = await Keyring.create([key]);
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

  it('signs ES256 with the kid in the header', async () => {
    const token = await keyring.sign(claims(), 60);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    expect(header).toEqual({ alg: 'ES256', kid: key.kid, typ: 'JWT' });
    expect(peekKid(token)).toBe(key.kid);
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
    const raw = await signRaw(key, { ...claims(), sub: randomUUID() }, {}, '-1s');
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
    expect(await reason(keyring.verify([b64({ alg: 'ES256', kid: key.kid, typ: 'JWT', x: 1 }), p, s].join('.')))).toBe('unparsable');
  });

  it("refuses alg: none as 'unparsable'", async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims(), iat: now, exp: now + 600 };
    for (const alg of ['none', 'None', 'NONE']) {
      const token = `${b64({ alg, kid: key.kid, typ: 'JWT' })}.${b64(payload)}.`;
      expect(await reason(keyring.verify(token))).toBe('unparsable');
    }
  });

  it("refuses HS256 signed with the public key as the HMAC secret (algorithm confusion) as 'unparsable'", async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims(), iat: now, exp: now + 600 };
    const publicKey = await importJWK(key.publicJwk, 'ES256');
    const pem = await exportSPKI(publicKey as CryptoKey);
    for (const secret of [pem, JSON.stringify(key.publicJwk), key.publicJwk.x!]) {
      const signingInput = `${b64({ alg: 'HS256', kid: key.kid, typ: 'JWT' })}.${b64(payload)}`;
      const mac = createHmac('sha256', secret).update(signingInput).digest('base64url');
      expect(await reason(keyring.verify(`${signingInput}.${mac}`))).toBe('unparsable');
    }
  });

  it("refuses a token whose kid is unknown, missing, or points at another key, as 'unparsable'", async () => {
    const other = await generateSigningKey();
    const foreign = await (await Keyring.create([other])).sign(claims(), 60);
    expect(await reason(keyring.verify(foreign))).toBe('unparsable');
    // Right kid, wrong key: signed by another key under our kid.
    const impostor = await signRaw({ ...other, kid: key.kid }, claims());
    expect(await reason(keyring.verify(impostor))).toBe('unparsable');
    const noKid = await signRaw(key, claims(), { kid: undefined });
    expect(peekKid(noKid)).toBeNull();
    expect(await reason(keyring.verify(noKid))).toBe('unparsable');
  });

  it.each(['sub', 'project_id', 'branch_id', 'refresh_token_id', 'aud', 'iss', 'role', 'is_anonymous'] as const)(
    "refuses a correctly signed token without %s as 'unparsable'",
    async (claim) => {
      const c: Record<string, unknown> = { ...claims() };
      delete c[claim];
      expect(await reason(keyring.verify(await signRaw(key, c as JWTPayload)))).toBe('unparsable');
    },
  );

  it("refuses a correctly signed token without exp, or with role other than 'authenticated'", async () => {
    const privateKey = (await importJWK(key.privateJwk, 'ES256')) as CryptoKey;
    const noExp = await new SignJWT({ ...claims() }).setProtectedHeader({ alg: 'ES256', kid: key.kid }).setIssuedAt().sign(privateKey);
    expect(await reason(keyring.verify(noExp))).toBe('unparsable');
    expect(await reason(keyring.verify(await signRaw(key, { ...claims(), role: 'service_role' } as JWTPayload)))).toBe('unparsable');
    expect(await reason(keyring.verify(await signRaw(key, { ...claims(), is_anonymous: 'false' } as unknown as JWTPayload)))).toBe('unparsable');
  });

  it("refuses garbage as 'unparsable'", async () => {
    for (const token of ['', 'abc', 'a.b.c', 'a.b', `${b64({ alg: 'ES256' })}.${b64({})}`, 'eyJ.eyJ.x']) {
      expect(await reason(keyring.verify(token))).toBe('unparsable');
    }
  });

  it('refuses an RS256 token even if its kid is known', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ ...claims() }).setProtectedHeader({ alg: 'RS256', kid: key.kid }).setIssuedAt().setExpirationTime('10m').sign(privateKey);
    expect(await reason(keyring.verify(token))).toBe('unparsable');
  });
});

describe('key rotation', () => {
  it('signs with the newest key and still verifies tokens of the older one', async () => {
    const older = { ...(await generateSigningKey()), createdAt: new Date(Date.now() - 86_400_000) };
    const newer = await generateSigningKey();
    const before = await (await Keyring.create([older])).sign(claims(), 60);
    const rotated = await Keyring.create([older, newer]);
    expect(rotated.newestKid).toBe(newer.kid);
    expect(rotated.hasKid(older.kid)).toBe(true);
    expect(rotated.hasKid(newer.kid)).toBe(true);
    expect(rotated.hasKid(randomUUID())).toBe(false);
    expect(peekKid(await rotated.sign(claims(), 60))).toBe(newer.kid);
    expect((await rotated.verify(before)).sub).toBeTypeOf('string');
    // After the old key is dropped, its tokens die.
    const dropped = await Keyring.create([newer]);
    expect(await reason(dropped.verify(before))).toBe('unparsable');
  });

  it('publishes only public keys in the JWKS', async () => {
    const rotated = await Keyring.create([key, await generateSigningKey()]);
    const { keys } = rotated.jwks();
    expect(keys).toHaveLength(2);
    for (const jwk of keys) {
      expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwk.kid).toBeTypeOf('string');
      expect(jwk).not.toHaveProperty('d');
    }
  });

  it('needs at least one key', async () => {
    await expect(Keyring.create([])).rejects.toThrow();
  });
});

describe('peekKid', () => {
  it('reads the kid without verifying, and is null for anything else', () => {
    expect(peekKid(`${b64({ alg: 'ES256', kid: 'k1' })}.x.y`)).toBe('k1');
    expect(peekKid(`${b64({ alg: 'ES256', kid: 5 })}.x.y`)).toBeNull();
    expect(peekKid(`${b64({ alg: 'ES256' })}.x.y`)).toBeNull();
    expect(peekKid('not-base64-json.x.y')).toBeNull();
    expect(peekKid('')).toBeNull();
    expect(peekKid(`${b64(null)}.x.y`)).toBeNull();
  });
});

describe('verified-token cache', () => {
  it('answers a token it verified before with the same claims, and still refuses it once expired', async () => {
    const ring = await Keyring.create([key]);
    const token = await ring.sign(claims(), 2);
    const first = await ring.verify(token);
    expect(ring.verifiedCacheSize).toBe(1);
    expect(await ring.verify(token)).toBe(first);
    expect(ring.verifiedCacheSize).toBe(1);
    // exp is whole seconds: wait until it has passed, the cached entry must not outlive it.
    await new Promise((resolve) => setTimeout(resolve, (first.exp * 1000 - Date.now()) + 50));
    expect(await reason(ring.verify(token))).toBe('expired');
    expect(ring.verifiedCacheSize).toBe(0);
  });

  it('never caches a refused token, and a tampered copy of a cached token is still refused', async () => {
    const ring = await Keyring.create([key]);
    const token = await ring.sign(claims(), 60);
    await ring.verify(token);
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(await reason(ring.verify([h, b64({ ...payload, sub: randomUUID() }), s].join('.')))).toBe('unparsable');
    expect(await reason(ring.verify(`${token}x`))).toBe('unparsable');
    expect(ring.verifiedCacheSize).toBe(1);
  });

  it('stays bounded', async () => {
    const ring = await Keyring.create([key]);
    for (let i = 0; i < 10_050; i++) ring.verifySync(await ring.sign(claims(), 60));
    expect(ring.verifiedCacheSize).toBe(10_000);
  });
});
