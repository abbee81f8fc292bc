import { type JSONWebKeySet, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { deriveKey } from '../crypto/encryption.js';
import { KeyringHolder, PUBLISH_AHEAD_MS } from '../access/keyring.js';
import { type RunningLatch, startLatch } from '../start.js';
import { type ApiResponse, type OwnerSession, type ProjectFixture, useHarness } from './harness.js';

/**
 * A signing key per project (issue 13, item 6), through real HTTP: every project and the internal
 * project sign with their own ES256 key, served at their own JWKS URL; a token of one project never
 * verifies against another project's keys, even for a verifier that forgets `aud`; non-canonical
 * (high-S) signatures are refused; keys survive a restart, agree across instances and rotate with
 * overlap. The pure parts (derivation, kid, low-S, caches) are in server/crypto/jwt.test.ts.
 */

const IS_POSTGRES = process.env.LATCH_TEST_DB === 'postgres';
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const newProject = (): Promise<ProjectFixture> => h.createProject({ owner });
const me = (project: ProjectFixture, accessToken: string) => h.get('/users/me', project.client(accessToken));
const jwksOf = async (projectId: string, base = h.url): Promise<JSONWebKeySet> => {
  const res = await h.call(`${base}/api/v1/projects/${projectId}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  return res.body as JSONWebKeySet;
};

function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
}

/** The same token with its signature's s replaced by n - s: still a valid ECDSA signature, but not the canonical one. */
function highSTwin(token: string): string {
  const [head, payload, signature] = token.split('.') as [string, string, string];
  const sig = Buffer.from(signature, 'base64url');
  const s = BigInt(`0x${sig.subarray(32).toString('hex')}`);
  const flipped = Buffer.concat([sig.subarray(0, 32), Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex')]);
  return `${head}.${payload}.${flipped.toString('base64url')}`;
}

describe('a signing key per project', () => {
  it("a token of project A fails signature verification with project B's JWKS (no audience check), and verifies with A's", async () => {
    const [a, b] = [await newProject(), await newProject()];
    const user = await h.signUpUser(a);
    const [jwksA, jwksB] = [await jwksOf(a.id), await jwksOf(b.id)];
    // Sanity: A's own JWKS verifies A's token.
    await expect(jwtVerify(user.accessToken, createLocalJWKSet(jwksA), { algorithms: ['ES256'] })).resolves.toBeDefined();
    // A verifier of project B that forgets `aud` (and `iss`) still refuses it: B's JWKS does not hold A's key.
    await expect(jwtVerify(user.accessToken, createLocalJWKSet(jwksB), { algorithms: ['ES256'] })).rejects.toThrow();
    // Nor does any of B's keys verify A's signature when a verifier ignores the kid.
    for (const key of jwksB.keys) {
      await expect(
        jwtVerify(user.accessToken, createLocalJWKSet({ keys: [{ ...key, kid: decodeProtectedHeader(user.accessToken).kid }] }), { algorithms: ['ES256'] }),
      ).rejects.toThrow('signature verification failed');
    }
    // The two sets share no key, and each kid names its project.
    const xs = (jwks: JSONWebKeySet) => jwks.keys.map((k) => k.x);
    expect(xs(jwksA).some((x) => xs(jwksB).includes(x))).toBe(false);
    for (const key of jwksA.keys) expect(key.kid).toMatch(new RegExp(`^${a.id}\\.\\d+$`));
    expect(decodeProtectedHeader(user.accessToken).kid).toMatch(new RegExp(`^${a.id}\\.\\d+$`));
  });

  it('gives the internal project (owners, admin access tokens) its own key too', async () => {
    const project = await newProject();
    const internalJwks = await jwksOf('internal');
    expect(decodeProtectedHeader(owner.accessToken).kid).toMatch(/^internal\.\d+$/);
    await expect(jwtVerify(owner.accessToken, createLocalJWKSet(internalJwks), { algorithms: ['ES256'] })).resolves.toBeDefined();
    // An owned project's JWKS does not verify the owner's (admin) token...
    await expect(jwtVerify(owner.accessToken, createLocalJWKSet(await jwksOf(project.id)), { algorithms: ['ES256'] })).rejects.toThrow();
    // ...and a project user's token does not verify as an internal one.
    const user = await h.signUpUser(project);
    await expect(jwtVerify(user.accessToken, createLocalJWKSet(internalJwks), { algorithms: ['ES256'] })).rejects.toThrow();
    // The owner's token still works as an admin access token for the owned project.
    expect((await h.get('/internal/projects/current', project.ownerAdmin())).status).toBe(200);
  });

  it('refuses the high-S twin of a valid access token with UNPARSABLE_ACCESS_TOKEN (and of an admin access token with UNPARSABLE_ADMIN_ACCESS_TOKEN)', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const twin = highSTwin(user.accessToken);
    // The twin is a valid ECDSA signature over the same bytes: a plain verifier (jose) accepts it.
    await expect(jwtVerify(twin, createLocalJWKSet(await jwksOf(project.id)), { algorithms: ['ES256'] })).resolves.toBeDefined();
    expectKnownError(await me(project, twin), 'UNPARSABLE_ACCESS_TOKEN', 401);
    // Also once the genuine token has been verified (and cached), and it keeps working.
    expect((await me(project, user.accessToken)).status).toBe(200);
    expectKnownError(await me(project, twin), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expect((await me(project, user.accessToken)).status).toBe(200);

    const adminTwin = highSTwin(owner.accessToken);
    expectKnownError(
      await h.get('/internal/projects/current', { 'x-latch-project-id': project.id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': adminTwin }),
      'UNPARSABLE_ADMIN_ACCESS_TOKEN',
      401,
    );
  });

  it('serves PROJECT_NOT_FOUND for an unknown project rather than deriving it a key', async () => {
    expectKnownError(await h.get('/projects/3b0c1f4e-0000-4000-8000-000000000000/.well-known/jwks.json'), 'PROJECT_NOT_FOUND', 404);
  });

  it("keeps a project's tokens valid after a restart: keys loaded again from the same database and secret are the same", async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    // What start-up does, on the running server's database and LATCH_SECRET.
    const restarted = await KeyringHolder.load(h.latch.deps.db, deriveKey(h.latch.deps.env.secret, 'signing-keys'));
    expect((await restarted.verify(user.accessToken)).sub).toBe(user.userId);
    expect(await restarted.jwks(project.id)).toEqual(await jwksOf(project.id));
    // A different LATCH_SECRET cannot even read the seeds (they are stored encrypted).
    await expect(KeyringHolder.load(h.latch.deps.db, deriveKey('another-secret-0123456789abcdef0123456789', 'signing-keys'))).rejects.toThrow(/LATCH_SECRET/);
  });

  it.skipIf(!IS_POSTGRES)(
    'agrees across instances and restarts on one PostgreSQL database (skipped on PGlite: an in-process database cannot be opened by a second server)',
    async () => {
      const project = await newProject();
      const user = await h.signUpUser(project);
      let second: RunningLatch = await startLatch({ env: h.latch.deps.env, database: h.database, quiet: true });
      try {
        const onSecond = (path: string) => `${second.url}/api/v1${path}`;
        expect((await h.call(onSecond('/users/me'), { headers: project.client(user.accessToken) })).body.id).toBe(user.userId);
        expect(await jwksOf(project.id, second.url)).toEqual(await jwksOf(project.id));
        // A token the second instance signs verifies on the first, and against the first's JWKS.
        const refreshed = await h.call(onSecond('/auth/sessions/current/refresh'), {
          method: 'POST',
          body: {},
          headers: { ...project.client(), 'x-latch-refresh-token': user.refreshToken },
        });
        expect(refreshed.status).toBe(200);
        expect((await me(project, refreshed.body.access_token)).body.id).toBe(user.userId);
        await expect(
          jwtVerify(refreshed.body.access_token, createLocalJWKSet(await jwksOf(project.id)), { algorithms: ['ES256'], audience: project.id }),
        ).resolves.toBeDefined();
        // The second instance restarts: the first one's token still verifies there.
        await second.close();
        second = await startLatch({ env: h.latch.deps.env, database: h.database, quiet: true });
        expect((await h.call(`${second.url}/api/v1/users/me`, { headers: project.client(user.accessToken) })).body.id).toBe(user.userId);
      } finally {
        await second.close();
      }
    },
  );
});

// Last in the file: rotation changes the server's keyring for every test after it.
describe('rotation with overlap', () => {
  it('publishes the next key ahead, switches to it, keeps verifying the old one, then retires it', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const oldKid = decodeProtectedHeader(user.accessToken).kid!;
    const oldGeneration = Number(oldKid.split('.').pop());
    const db = h.latch.deps.db;

    const next = await h.latch.deps.keyring.rotate();
    expect(next).toBe(oldGeneration + 1);
    // Published at once (so verifiers that cache the JWKS know it before it signs)...
    const published = await jwksOf(project.id);
    expect(published.keys.map((k) => k.kid)).toEqual([`${project.id}.${next}`, oldKid]);
    // ...but it does not sign yet.
    const meanwhile = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': user.refreshToken });
    expect(decodeProtectedHeader(meanwhile.body.access_token).kid).toBe(oldKid);

    // Once published long enough, the new generation signs; the old token keeps verifying (overlap).
    await db
      .updateTable('signing_key_generations')
      .set({ created_at: new Date(Date.now() - PUBLISH_AHEAD_MS - 60_000) })
      .where('generation', '=', next)
      .execute();
    await h.latch.deps.keyring.refresh();
    const rotated = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': user.refreshToken });
    expect(decodeProtectedHeader(rotated.body.access_token).kid).toBe(`${project.id}.${next}`);
    expect((await me(project, rotated.body.access_token)).body.id).toBe(user.userId);
    expect((await me(project, user.accessToken)).body.id).toBe(user.userId);
    const jwks = createLocalJWKSet(await jwksOf(project.id));
    for (const token of [user.accessToken, rotated.body.access_token])
      await expect(jwtVerify(token, jwks, { algorithms: ['ES256'], audience: project.id })).resolves.toBeDefined();
    // The internal project rotates with it: owners' tokens keep working.
    expect((await h.get('/internal/projects/current', project.ownerAdmin())).status).toBe(200);

    // Past the overlap (older than rotation + keep-verifying windows), the old generation is retired.
    await db
      .updateTable('signing_key_generations')
      .set({ created_at: new Date(Date.now() - 100 * 86_400_000) })
      .where('generation', '=', oldGeneration)
      .execute();
    await h.latch.deps.keyring.refresh();
    expect((await jwksOf(project.id)).keys.map((k) => k.kid)).toEqual([`${project.id}.${next}`]);
    expectKnownError(await me(project, user.accessToken), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expect(decodeJwt(user.accessToken).exp! * 1000).toBeGreaterThan(Date.now());
    expect((await me(project, rotated.body.access_token)).body.id).toBe(user.userId);
  });
});
