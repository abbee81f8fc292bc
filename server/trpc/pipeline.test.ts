import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { TRPCClientError, createTRPCClient, httpLink } from '@trpc/client';
import { sql } from 'kysely';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnownErrors, knownErrorsByCode } from '../../contract/errors/known-errors.js';
import { toWireError } from '../errors/wire.js';
import type { AppRouter } from '../router.js';
import { type ApiResponse, type CallOptions, type Harness, type Headers_, type ProjectFixture, type UserSession, startHarness } from '../test/harness.js';

/**
 * The request pipeline and the wire contract (ARCHITECTURE.md "Wire contract"): headers every
 * response carries, the x-latch-* header checks in order, body parsing, routing, CORS, the tRPC
 * transport agreeing with REST, and the non-API routes of the process.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** What a leaked stack trace or server path looks like. */
const STACK_LIKE = /\n\s+at |\bat (?:async )?[\w$.<>]+ \(|\/work\/|\/server\/|node_modules|file:\/\/|\.[cm]?[jt]s:\d+/;

let h: Harness;
let project: ProjectFixture;
let user: UserSession;
/** Every API response seen in this file, checked at the end for stack traces. */
const seen: { label: string; text: string }[] = [];

function remember<T>(label: string, res: ApiResponse<T>): ApiResponse<T> {
  seen.push({ label, text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? null) });
  return res;
}

async function call<T = any>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  return remember(`${options.method ?? 'GET'} ${path}`, await h.call<T>(path, options));
}
const get = <T = any>(path: string, headers?: Headers_) => call<T>(path, { method: 'GET', headers });
const post = <T = any>(path: string, body: unknown, headers?: Headers_) => call<T>(path, { method: 'POST', body, headers });

/** A catalogued error: exactly {code, details?, error}, the header equal to the code, the catalogue's status. */
function expectKnownError(res: ApiResponse, code?: string, status?: number): void {
  const label = `${res.status} ${JSON.stringify(res.body)}`;
  expect(res.body, label).toBeTypeOf('object');
  const keys = Object.keys(res.body).sort();
  expect(['code', 'details', 'error'], label).toEqual(expect.arrayContaining(keys));
  expect(keys, label).toContain('code');
  expect(keys, label).toContain('error');
  expect(res.body.code, label).toMatch(/^[A-Z][A-Z0-9_]+$/);
  expect(res.body.error, label).toBeTypeOf('string');
  expect(res.body.error.length, label).toBeGreaterThan(0);
  if ('details' in res.body) expect(res.body.details !== null && typeof res.body.details === 'object' && !Array.isArray(res.body.details), label).toBe(true);
  expect(res.headers.get('x-latch-known-error'), label).toBe(res.body.code);
  const catalogued = knownErrorsByCode.get(res.body.code);
  expect(catalogued, `${res.body.code} is not in the catalogue`).toBeDefined();
  if (res.headers.get('x-latch-actual-status') === null) expect(res.status, label).toBe(catalogued!.status);
  if (code !== undefined) expect(res.body.code, label).toBe(code);
  if (status !== undefined) expect(res.status, label).toBe(status);
}

/** The same for a tRPC response: the catalogued body sits in error.data.latch. */
function expectTrpcKnownError(res: ApiResponse, code: string, status: number): void {
  const label = `${res.status} ${JSON.stringify(res.body)}`;
  const latch = res.body?.error?.data?.latch;
  expect(latch, label).toBeDefined();
  expectKnownError({ status: res.status, headers: res.headers, body: latch }, code, status);
  expect(res.body.error.message, label).toBe(latch.error);
  expect(res.body.error.data.httpStatus, label).toBe(status);
}

function cleanHeaders(headers: Headers_): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function trpcClient(headers: Headers_) {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${h.url}/api/trpc`, headers: () => cleanHeaders(headers) })] });
}

async function trpcGet(procedure: string, input: unknown, headers: Headers_ = {}): Promise<ApiResponse> {
  return call(`/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { method: 'GET', headers });
}

beforeAll(async () => {
  h = await startHarness();
  project = await h.createProject();
  user = await h.signUpUser(project);
});
afterAll(async () => h?.close());

describe('headers on every response', () => {
  it('sends a fresh x-latch-request-id (UUID v4) on successes, errors and non-API routes', async () => {
    const responses = [
      await get('/projects/current', project.client()),
      await get('/users/me'),
      await get('/nope'),
      await post('/auth/password/sign-in', { email: 'not an email' }, project.client()),
      await get('/health'),
      await get('/metrics'),
      await call(`${h.url}/`),
      await trpcGet('projects.current', {}, project.client()),
      await trpcGet('users.getMe', {}),
      await call('/users/me', { method: 'OPTIONS', headers: { origin: 'http://example.test' } }),
    ];
    const ids = responses.map((res) => res.headers.get('x-latch-request-id'));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sends cache-control: no-store on /api (REST and tRPC, success and error)', async () => {
    const responses = [
      await get('/projects/current', project.client()),
      await get('/users/me'),
      await get('/definitely/not/a/route'),
      await trpcGet('projects.current', {}, project.client()),
      await trpcGet('users.getMe', {}),
      await get('/api/v1/docs/openapi.json'),
    ];
    for (const res of responses) expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers JSON with snake_case keys', async () => {
    const res = await get('/users/me', project.client(user.accessToken));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    for (const key of Object.keys(res.body)) expect(key).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});

describe('error bodies', () => {
  it('are exactly {code, details?, error} with x-latch-known-error equal to the code', async () => {
    const cases = [
      await get('/users/me'),
      await get('/users/me', project.client()),
      await get('/users/not-a-uuid', project.server()),
      await get(`/users/${randomUUID()}`, project.server()),
      await post('/auth/password/sign-in', { email: user.email, password: 'wrong password!' }, project.client()),
      await post('/auth/password/sign-in', { email: 'nope' }, project.client()),
      await get('/nope'),
    ];
    for (const res of cases) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectKnownError(res);
    }
    expectKnownError(cases[3]!, 'USER_NOT_FOUND', 404);
    expectKnownError(cases[4]!, 'EMAIL_PASSWORD_MISMATCH', 400);
    expectKnownError(cases[5]!, 'SCHEMA_ERROR', 400);
    // A schema error names the fields.
    expect(cases[5]!.body.details.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'email' }), expect.objectContaining({ path: 'password' })]),
    );
  });

  it('do not carry the known-error header on success', async () => {
    const res = await get('/projects/current', project.client());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-latch-known-error')).toBeNull();
    expect(res.headers.get('x-latch-actual-status')).toBeNull();
  });
});

describe('project authentication headers', () => {
  it.each([
    ['x-latch-publishable-client-key', () => project.publishableClientKey],
    ['x-latch-secret-server-key', () => project.secretServerKey],
    ['x-latch-super-secret-admin-key', () => project.superSecretAdminKey],
    ['x-latch-admin-access-token', () => project.owner.accessToken],
  ])('a key (%s) without x-latch-access-type → PROJECT_KEY_WITHOUT_ACCESS_TYPE', async (name, value) => {
    const res = await get('/projects/current', { 'x-latch-project-id': project.id, [name]: value() });
    expectKnownError(res, 'PROJECT_KEY_WITHOUT_ACCESS_TYPE', 400);
  });

  it.each(['root', 'Client', 'ADMIN', 'anonymous', 'server,admin', 'client server'])('x-latch-access-type: %j → INVALID_ACCESS_TYPE', async (accessType) => {
    const res = await get('/projects/current', { ...project.admin(), 'x-latch-access-type': accessType });
    expectKnownError(res, 'INVALID_ACCESS_TYPE', 400);
    expect(res.body.details).toEqual({ access_type: accessType });
  });

  it.each(['client', 'server', 'admin'])('access type %s without x-latch-project-id → ACCESS_TYPE_WITHOUT_PROJECT_ID', async (accessType) => {
    const res = await get('/projects/current', { 'x-latch-access-type': accessType, 'x-latch-publishable-client-key': project.publishableClientKey });
    expectKnownError(res, 'ACCESS_TYPE_WITHOUT_PROJECT_ID', 400);
  });

  it('a project id without x-latch-access-type or any key → ACCESS_TYPE_REQUIRED; a public call without either still works', async () => {
    expectKnownError(await get('/projects/current', { 'x-latch-project-id': project.id }), 'ACCESS_TYPE_REQUIRED', 400);
    expectKnownError(await get('/users/me', { 'x-latch-project-id': project.id }), 'ACCESS_TYPE_REQUIRED', 400);
    // Without a project id there is nothing to resolve: the route decides (here: project credentials needed).
    expectKnownError(await get('/projects/current', {}), 'CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED', 401);
  });

  it('an unknown project id → CURRENT_PROJECT_NOT_FOUND, whatever the access type', async () => {
    for (const headers of [project.client(), project.server(), project.admin(), project.ownerAdmin()]) {
      for (const id of [randomUUID(), 'nope', project.id.toUpperCase()]) {
        const res = await get('/projects/current', { ...headers, 'x-latch-project-id': id });
        expectKnownError(res, 'CURRENT_PROJECT_NOT_FOUND', 400);
      }
    }
  });

  it('x-latch-branch-id: nope → BRANCH_DOES_NOT_EXIST; main is the default branch', async () => {
    expectKnownError(await get('/projects/current', { ...project.client(), 'x-latch-branch-id': 'nope' }), 'BRANCH_DOES_NOT_EXIST', 400);
    expectKnownError(await get('/users', { ...project.server(), 'x-latch-branch-id': 'nope' }), 'BRANCH_DOES_NOT_EXIST', 400);
    const main = await get('/projects/current', { ...project.client(), 'x-latch-branch-id': 'main' });
    expect(main.status).toBe(200);
    expect(main.body.id).toBe(project.id);
  });

  it('client access without a publishable key: refused on a normal project, allowed on the internal project', async () => {
    const res = await get('/projects/current', { 'x-latch-project-id': project.id, 'x-latch-access-type': 'client' });
    expectKnownError(res, 'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT', 401);
    const internal = await get('/projects/current', h.internalClient());
    expect(internal.status).toBe(200);
    expect(internal.body.id).toBe('internal');
    const owner = await get('/users/me', h.internalClient(project.owner.accessToken));
    expect(owner.status).toBe(200);
    expect(owner.body.id).toBe(project.owner.userId);
  });

  it('a wrong key for the access type → its INVALID_* error', async () => {
    expectKnownError(
      await get('/projects/current', { ...project.client(), 'x-latch-publishable-client-key': 'pck_wrong' }),
      'INVALID_PUBLISHABLE_CLIENT_KEY',
      401,
    );
    expectKnownError(await get('/users', { ...project.server(), 'x-latch-secret-server-key': 'ssk_wrong' }), 'INVALID_SECRET_SERVER_KEY', 401);
    expectKnownError(
      await get('/internal/api-keys', { ...project.admin(), 'x-latch-super-secret-admin-key': 'sak_wrong' }),
      'INVALID_SUPER_SECRET_ADMIN_KEY',
      401,
    );
    // A key of one kind does not work as another kind.
    expectKnownError(await get('/users', { ...project.server(), 'x-latch-secret-server-key': project.publishableClientKey }), 'INVALID_SECRET_SERVER_KEY', 401);
    expectKnownError(
      await get('/internal/api-keys', { ...project.admin(), 'x-latch-super-secret-admin-key': project.secretServerKey }),
      'INVALID_SUPER_SECRET_ADMIN_KEY',
      401,
    );
    expectKnownError(
      await get('/internal/api-keys', { ...project.admin(), 'x-latch-super-secret-admin-key': undefined, 'x-latch-admin-access-token': 'garbage' }),
      'UNPARSABLE_ADMIN_ACCESS_TOKEN',
      401,
    );
    expectKnownError(await get('/users/me', project.client('garbage')), 'UNPARSABLE_ACCESS_TOKEN', 401);
  });
});

describe('x-latch-override-error-status', () => {
  it('sends errors with status 200 and x-latch-actual-status, body unchanged', async () => {
    for (const [path, headers] of [
      ['/users/me', {}],
      ['/users/me', project.client()],
      ['/users/not-a-uuid', project.server()],
      ['/nope', {}],
    ] as const) {
      const plain = await get(path, headers);
      const overridden = await get(path, { ...headers, 'x-latch-override-error-status': 'true' });
      expect(plain.status).toBeGreaterThanOrEqual(400);
      expect(overridden.status).toBe(200);
      expect(overridden.headers.get('x-latch-actual-status')).toBe(String(plain.status));
      expect(overridden.headers.get('x-latch-known-error')).toBe(plain.body.code);
      expect(overridden.body).toEqual(plain.body);
      expectKnownError(overridden, plain.body.code);
    }
  });

  it('leaves successes alone, and only reacts to the value true', async () => {
    const ok = await get('/projects/current', { ...project.client(), 'x-latch-override-error-status': 'true' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-latch-actual-status')).toBeNull();
    const notTrue = await get('/users/me', { 'x-latch-override-error-status': 'false' });
    expect(notTrue.status).toBe(401);
    expect(notTrue.headers.get('x-latch-actual-status')).toBeNull();
  });

  it('applies to body-parser errors too', async () => {
    const res = await call('/auth/password/sign-in', {
      method: 'POST',
      rawBody: '{"email":',
      headers: { ...project.client(), 'x-latch-override-error-status': 'true' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-latch-actual-status')).toBe('400');
    expectKnownError(res, 'BODY_PARSING_ERROR');
  });

  it('applies to the tRPC transport: one call, a batch, errors before any call runs; the body is unchanged', async () => {
    const override = { 'x-latch-override-error-status': 'true' };
    const cases: [string, () => (headers: Headers_) => Promise<ApiResponse>][] = [
      ['no user', () => (headers) => trpcGet('users.getMe', {}, { ...project.client(), ...headers })],
      ['bad input', () => (headers) => trpcGet('users.get', { user_id: 'x' }, { ...project.server(), ...headers })],
      ['unknown procedure', () => (headers) => trpcGet('nope.nope', {}, headers)],
      ['unreadable input', () => (headers) => call('/api/trpc/projects.current?input=%7B', { method: 'GET', headers: { ...project.client(), ...headers } })],
      [
        'a batch whose calls all fail',
        () => (headers) =>
          call(`/api/trpc/users.getMe,users.getMe?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: {}, 1: {} }))}`, {
            method: 'GET',
            headers: { ...project.client(), ...headers },
          }),
      ],
    ];
    for (const [label, make] of cases) {
      const send = make();
      const plain = await send({});
      const overridden = await send(override);
      expect(plain.status, label).toBeGreaterThanOrEqual(400);
      expect(overridden.status, label).toBe(200);
      expect(overridden.headers.get('x-latch-actual-status'), label).toBe(String(plain.status));
      expect(overridden.headers.get('x-latch-known-error'), label).toBe(plain.headers.get('x-latch-known-error'));
      expect(overridden.body, label).toEqual(plain.body);
    }
    expectTrpcKnownError({ ...(await trpcGet('users.getMe', {}, { ...project.client(), ...override })), status: 400 }, 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
    // A success, and a mixed batch (207, a 2xx whose body every platform shows), are left alone.
    const ok = await trpcGet('projects.current', {}, { ...project.client(), ...override });
    expect([ok.status, ok.headers.get('x-latch-actual-status')]).toEqual([200, null]);
    const mixed = await call(`/api/trpc/projects.current,users.getMe?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: {}, 1: {} }))}`, {
      method: 'GET',
      headers: { ...project.client(), ...override },
    });
    expect([mixed.status, mixed.headers.get('x-latch-actual-status')]).toEqual([207, null]);
  });
});

describe('x-latch-auth', () => {
  it('a JSON object {"accessToken": …} authenticates like x-latch-access-token', async () => {
    const res = await get('/users/me', { ...project.client(), 'x-latch-auth': JSON.stringify({ accessToken: user.accessToken }) });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(user.userId);
    const both = await get('/users/me', {
      ...project.client(),
      'x-latch-auth': JSON.stringify({ accessToken: user.accessToken, refreshToken: user.refreshToken }),
    });
    expect(both.status).toBe(200);
    // An empty object is a valid header that authenticates no one.
    expectKnownError(await get('/users/me', { ...project.client(), 'x-latch-auth': '{}' }), 'CANNOT_GET_OWN_USER_WITHOUT_USER');
  });

  it('x-latch-access-token wins over the accessToken in x-latch-auth', async () => {
    const res = await get('/users/me', { ...project.client(user.accessToken), 'x-latch-auth': JSON.stringify({ accessToken: 'garbage' }) });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(user.userId);
  });

  it('its refreshToken refreshes', async () => {
    const res = await post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-auth': JSON.stringify({ refreshToken: user.refreshToken }) });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBeTypeOf('string');
  });

  it.each([
    'null',
    '[]',
    '"x"',
    '{"accessToken": 5}',
    '{"refreshToken": false}',
    '{"accessToken": null}',
    'true',
    '42',
    'not json',
    '{accessToken: "x"}',
    '{"accessToken": "x"',
  ])('x-latch-auth: %s → SCHEMA_ERROR', async (value) => {
    const res = await get('/users/me', { ...project.client(), 'x-latch-auth': value });
    expectKnownError(res, 'SCHEMA_ERROR', 400);
    expect(res.body.error).toMatch(/x-latch-auth/);
  });
});

describe('request bodies', () => {
  const signIn = (options: Partial<CallOptions>) => call('/auth/password/sign-in', { method: 'POST', headers: project.client(), ...options });

  it('malformed JSON → BODY_PARSING_ERROR 400', async () => {
    for (const rawBody of ['{"email":', '{email: "x"}', "{'a': 1}", '{"a": 1,}', 'undefined']) {
      expectKnownError(await signIn({ rawBody }), 'BODY_PARSING_ERROR', 400);
    }
  });

  it('a JSON value that is not an object → SCHEMA_ERROR 400', async () => {
    for (const rawBody of ['[]', '[1, 2]', '"a string"', '42', 'true']) {
      expectKnownError(await signIn({ rawBody }), 'SCHEMA_ERROR', 400);
    }
  });

  it('a body over 2 MB → PAYLOAD_TOO_LARGE 413', async () => {
    const big = JSON.stringify({ email: user.email, password: 'x'.repeat(2 * 1024 * 1024 + 16) });
    expectKnownError(await signIn({ rawBody: big }), 'PAYLOAD_TOO_LARGE', 413);
    // Refused by the body parser before tRPC sees it, so the REST error shape.
    expectKnownError(await call('/api/trpc/auth.passwordSignIn', { method: 'POST', rawBody: big, headers: project.client() }), 'PAYLOAD_TOO_LARGE', 413);
  });

  it('a body just under the limit is parsed (and then judged on its content)', async () => {
    const res = await signIn({ rawBody: JSON.stringify({ email: user.email, password: 'x'.repeat(1024 * 1024) }) });
    expectKnownError(res, 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('accepts application/json; charset=utf-8 (and other casings of it)', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      const res = await signIn({ rawBody: JSON.stringify({ email: user.email, password: user.password }), contentType });
      expect(res.status, contentType).toBe(200);
      expect(res.body.user_id).toBe(user.userId);
    }
  });

  it('refuses an unsupported charset as a body-parsing error, not a 500', async () => {
    const res = await signIn({ rawBody: JSON.stringify({ email: user.email, password: user.password }), contentType: 'application/json; charset=klingon' });
    expectKnownError(res, undefined, 400);
  });

  it('a body that is not JSON (text/plain, form, no content-type) is refused as such, naming the content type, not read as the input', async () => {
    const text = await signIn({ rawBody: JSON.stringify({ email: user.email, password: user.password }), contentType: 'text/plain' });
    expectKnownError(text, 'BODY_PARSING_ERROR', 400);
    expect(text.body.error).toContain('"text/plain"');
    expect(text.body.error).toContain('Content-Type: application/json');
    const form = await signIn({ form: { email: user.email, password: user.password } });
    expectKnownError(form, 'BODY_PARSING_ERROR', 400);
    expect(form.body.error).toContain('application/x-www-form-urlencoded');
    const untyped = await fetch(`${h.url}/api/v1/auth/password/sign-in`, {
      method: 'POST',
      headers: Object.fromEntries(Object.entries(project.client()).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      body: new Uint8Array(Buffer.from(JSON.stringify({ email: user.email, password: user.password }))),
    });
    expect(untyped.status).toBe(400);
    expect(((await untyped.json()) as { error: string }).error).toContain('no content-type');
    // A JSON subtype is JSON; a body-less request needs no content type at all.
    expect((await signIn({ rawBody: JSON.stringify({ email: user.email, password: user.password }), contentType: 'application/vnd.api+json' })).status).toBe(
      200,
    );
  });

  it('refuses unknown body properties on strict inputs', async () => {
    const res = await signIn({ body: { email: user.email, password: user.password, is_admin: true } });
    expectKnownError(res, 'SCHEMA_ERROR', 400);
  });
});

describe('hostile input never reaches the database (catalogued 400s, never a 500)', () => {
  const deep = (n: number) => `{"client_metadata":${'['.repeat(n)}${']'.repeat(n)}}`;

  it('a NUL character anywhere in the input → SCHEMA_ERROR naming the field, on REST and tRPC', async () => {
    const me = project.client(user.accessToken);
    expect((await call('/users/me', { method: 'PATCH', body: { display_name: 'Before NUL' }, headers: me })).status).toBe(200);
    const cases: [string, ApiResponse][] = [
      ['display_name', await call('/users/me', { method: 'PATCH', body: { display_name: 'a\u0000b' }, headers: me })],
      ['client_metadata.note', await call('/users/me', { method: 'PATCH', body: { client_metadata: { note: 'x\u0000' } }, headers: me })],
      ['client_metadata.a\u0000', await call('/users/me', { method: 'PATCH', body: { client_metadata: { 'a\u0000': 1 } }, headers: me })],
      ['display_name', await call('/internal/projects/current', { method: 'PATCH', body: { display_name: 'x\u0000' }, headers: project.admin() })],
      ['query', await get('/users?query=%00', project.server())],
      ['project_id', await get('/projects/%00/.well-known/jwks.json')],
    ];
    for (const [path, res] of cases) {
      expectKnownError(res, 'SCHEMA_ERROR', 400);
      expect(res.body.details.issues, JSON.stringify(res.body)).toEqual([{ path, message: 'must not contain the NUL character' }]);
    }
    const trpc = await call('/api/trpc/users.updateMe', { method: 'POST', body: { display_name: 'a\u0000b' }, headers: me });
    expectTrpcKnownError(trpc, 'SCHEMA_ERROR', 400);
    expect(trpc.body.error.data.latch.details.issues).toEqual([{ path: 'display_name', message: 'must not contain the NUL character' }]);
    const trpcQuery = await trpcGet('users.list', { query: '\u0000' }, project.server());
    expectTrpcKnownError(trpcQuery, 'SCHEMA_ERROR', 400);
    // Nothing was stored.
    expect((await get('/users/me', me)).body.display_name).toBe('Before NUL');
  });

  it('the OAuth token route refuses NUL characters too', async () => {
    const res = await call('/auth/oauth/token', {
      method: 'POST',
      form: { grant_type: 'refresh_token', refresh_token: user.refreshToken, client_id: `${project.id}\u0000`, client_secret: project.publishableClientKey },
    });
    expectKnownError(res, 'SCHEMA_ERROR', 400);
  });

  it('an unpaired surrogate (not Unicode) → SCHEMA_ERROR instead of silently stored as U+FFFD', async () => {
    const res = await call('/users/me', { method: 'PATCH', rawBody: '{"display_name":"a\\ud800b"}', headers: project.client(user.accessToken) });
    expectKnownError(res, 'SCHEMA_ERROR', 400);
    const pair = await call('/users/me', { method: 'PATCH', body: { display_name: 'emoji 🔑 ok' }, headers: project.client(user.accessToken) });
    expect(pair.status).toBe(200);
    expect(pair.body.display_name).toBe('emoji 🔑 ok');
  });

  it('absurdly nested JSON → SCHEMA_ERROR on REST and tRPC (body and ?input=), reasonable nesting is fine', async () => {
    const me = project.client(user.accessToken);
    for (const n of [100, 5_000, 100_000]) {
      expectKnownError(await call('/users/me', { method: 'PATCH', rawBody: deep(n), headers: me }), 'SCHEMA_ERROR', 400);
      // Refused before the tRPC adapter (which would overflow re-serializing it): the REST error shape.
      expectKnownError(await call('/api/trpc/users.updateMe', { method: 'POST', rawBody: deep(n), headers: me }), 'SCHEMA_ERROR', 400);
    }
    expectTrpcKnownError(
      await call(`/api/trpc/users.getMe?input=${encodeURIComponent(`{"a":${'['.repeat(200)}${']'.repeat(200)}}`)}`, { method: 'GET', headers: me }),
      'SCHEMA_ERROR',
      400,
    );
    const ok = await call('/users/me', { method: 'PATCH', rawBody: deep(20), headers: me });
    expect(ok.status).toBe(200);
  });

  it('forged list cursors and out-of-range times → SCHEMA_ERROR', async () => {
    const cursor = (text: string) => Buffer.from(text).toString('base64url');
    for (const forged of [
      cursor(`1:${'-'.repeat(36)}`),
      cursor('99999999999999999:7d444840-9dc0-41dd-85a5-1c1b2f6b0ad2'),
      cursor('8640000000000001:7d444840-9dc0-41dd-85a5-1c1b2f6b0ad2'),
      'garbage',
      cursor('x:y'),
    ]) {
      expectKnownError(await get(`/users?cursor=${forged}`, project.server()), 'SCHEMA_ERROR', 400);
    }
    for (const expires of [8_640_000_000_000_001, Number.MAX_SAFE_INTEGER]) {
      const res = await post(
        '/internal/api-keys',
        {
          description: 'far future',
          expires_at_millis: expires,
          has_publishable_client_key: true,
          has_secret_server_key: false,
          has_super_secret_admin_key: false,
        },
        project.admin(),
      );
      expectKnownError(res, 'SCHEMA_ERROR', 400);
    }
  });
});

describe('routing', () => {
  it('an unknown route → NOT_FOUND 404, catalogued', async () => {
    for (const path of ['/nope', '/users/me/extra', '/api/v1', '/api/v1/', '/internal', '/auth/password']) {
      expectKnownError(await get(path), 'NOT_FOUND', 404);
    }
    expectKnownError(await post('/users/me/extra', {}), 'NOT_FOUND', 404);
  });

  it('a known path with the wrong method → METHOD_NOT_ALLOWED 405, catalogued', async () => {
    expectKnownError(await call('/projects/current', { method: 'DELETE' }), 'METHOD_NOT_ALLOWED', 405);
    expectKnownError(await call('/users/me', { method: 'PUT', body: {} }), 'METHOD_NOT_ALLOWED', 405);
    expectKnownError(await call(`/users/${randomUUID()}`, { method: 'POST', body: {} }), 'METHOD_NOT_ALLOWED', 405);
    expectKnownError(await call('/auth/password/sign-in', { method: 'GET' }), 'METHOD_NOT_ALLOWED', 405);
  });

  it('URL-decodes path parameters: /users/%6De is /users/me, an encoded UUID is the UUID', async () => {
    const me = await get('/users/me', project.client(user.accessToken));
    expect(me.status).toBe(200);
    const encoded = await get('/users/%6De', project.client(user.accessToken));
    expect(encoded.status).toBe(200);
    expect(encoded.body).toEqual(me.body);
    const byId = await get(`/users/${user.userId.replaceAll('-', '%2D')}`, project.server());
    expect(byId.status).toBe(200);
    expect(byId.body.id).toBe(user.userId);
  });

  it('refuses path parameters that decode to something invalid, without a 500', async () => {
    for (const param of ['%E0%A4%A', '%', '%ZZ', 'a%2Fb', '..%2F..%2Fprojects%2Fcurrent', '%00', `${user.userId}%00`, '%20me']) {
      const res = await get(`/users/${param}`, project.server());
      expectKnownError(res, 'SCHEMA_ERROR', 400);
    }
  });

  it('literal routes beat parameter routes: /auth/sessions/current is not /auth/sessions/{id}', async () => {
    const signedIn = await post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client());
    expect(signedIn.status).toBe(200);
    const headers = project.client(signedIn.body.access_token);
    // If {id} captured "current", this would be a SCHEMA_ERROR (not a UUID).
    const out = await call('/auth/sessions/current', { method: 'DELETE', headers });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    const refresh = await post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': signedIn.body.refresh_token });
    expectKnownError(refresh, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
  });

  it('/users/me works for the signed-in user whichever route serves it, and me without a user is a catalogued error', async () => {
    const me = await get('/users/me', project.client(user.accessToken));
    const byId = await get(`/users/${user.userId}`, project.client(user.accessToken));
    expect(me.status).toBe(200);
    expect(byId.status).toBe(200);
    expect(me.body).toEqual(byId.body);
    expectKnownError(await get('/users/me', project.server()), 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
    const patched = await call('/users/me', { method: 'PATCH', body: { display_name: 'Pipeline' }, headers: project.client(user.accessToken) });
    expect(patched.status).toBe(200);
    expect(patched.body.display_name).toBe('Pipeline');
  });
});

describe('CORS', () => {
  it('answers a preflight from any origin with 204 and the x-latch-* request headers allowed', async () => {
    const res = await call('/users/me', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://example.test',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'x-latch-access-token, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://example.test');
    const allowed = res.headers
      .get('access-control-allow-headers')!
      .split(',')
      .map((s) => s.trim().toLowerCase());
    for (const name of [
      'x-latch-access-token',
      'x-latch-project-id',
      'x-latch-access-type',
      'x-latch-publishable-client-key',
      'x-latch-refresh-token',
      'x-latch-auth',
      'x-latch-override-error-status',
      'content-type',
    ]) {
      expect(allowed).toContain(name);
    }
    expect(res.headers.get('access-control-allow-methods')).toMatch(/PATCH/);
    expect(res.headers.get('vary')?.toLowerCase()).toContain('origin');
    // No cookies are used, so credentials are never allowed.
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('a preflight for tRPC too', async () => {
    const res = await call('/api/trpc/users.getMe', { method: 'OPTIONS', headers: { origin: 'http://example.test', 'access-control-request-method': 'GET' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://example.test');
  });

  it('exposes x-latch-known-error (and the request id) on normal responses', async () => {
    for (const res of [
      await get('/users/me', { origin: 'http://example.test' }),
      await get('/projects/current', { ...project.client(), origin: 'http://example.test' }),
    ]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('http://example.test');
      const exposed = res.headers
        .get('access-control-expose-headers')!
        .split(',')
        .map((s) => s.trim().toLowerCase());
      expect(exposed).toEqual(expect.arrayContaining(['x-latch-known-error', 'x-latch-request-id', 'x-latch-actual-status']));
    }
  });

  it('sends no CORS headers without an Origin', async () => {
    const res = await get('/projects/current', project.client());
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('echoes only the configured origins when LATCH_CORS_ORIGINS is set', async () => {
    const restricted = await startHarness({ corsOrigins: ['http://allowed.test'] });
    try {
      const allowed = await restricted.call('/projects/current', { method: 'OPTIONS', headers: { origin: 'http://allowed.test' } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('http://allowed.test');
      const other = await restricted.call('/projects/current', { method: 'OPTIONS', headers: { origin: 'http://evil.test' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const normal = await restricted.call('/users/me', { headers: { origin: 'http://evil.test' } });
      expect(normal.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await restricted.close();
    }
  });
});

describe('tRPC transport (/api/trpc)', () => {
  it('serves a query over GET with ?input=', async () => {
    const res = await trpcGet('projects.current', {}, project.client());
    expect(res.status).toBe(200);
    expect(res.body.result.data.id).toBe(project.id);
    expect(res.body.result.data).toEqual((await get('/projects/current', project.client())).body);
  });

  it('works with the typed @trpc/client (httpLink, custom headers)', async () => {
    const client = trpcClient(project.client(user.accessToken));
    const current = await client.projects.current.query({});
    expect(current.id).toBe(project.id);
    const me = await client.users.getMe.query({});
    expect(me.id).toBe(user.userId);
    const signedIn = await trpcClient(project.client()).auth.passwordSignIn.mutate({ email: user.email, password: user.password });
    expect(signedIn.user_id).toBe(user.userId);
  });

  it('a failing call has the REST status, the known-error header and error.data.latch = the REST body', async () => {
    const cases: { rest: () => Promise<ApiResponse>; trpc: () => Promise<ApiResponse> }[] = [
      { rest: () => get('/users/me'), trpc: () => trpcGet('users.getMe', {}) },
      { rest: () => get('/users/me', project.client()), trpc: () => trpcGet('users.getMe', {}, project.client()) },
      {
        rest: () => get('/users/me', { ...project.client(), 'x-latch-access-type': 'root' }),
        trpc: () => trpcGet('users.getMe', {}, { ...project.client(), 'x-latch-access-type': 'root' }),
      },
      {
        rest: () => get(`/users/${randomUUID()}`, project.server()),
        trpc: async () => ({ ...(await trpcGet('users.get', { user_id: randomUUID() }, project.server())) }),
      },
      { rest: () => get('/users/x', project.server()), trpc: () => trpcGet('users.get', { user_id: 'x' }, project.server()) },
      {
        rest: () => post('/auth/password/sign-in', { email: 'nope', password: 'x' }, project.client()),
        trpc: () => call('/api/trpc/auth.passwordSignIn', { method: 'POST', body: { email: 'nope', password: 'x' }, headers: project.client() }),
      },
      {
        rest: () => post('/auth/password/sign-in', { email: user.email, password: 'wrong password' }, project.client()),
        trpc: () =>
          call('/api/trpc/auth.passwordSignIn', { method: 'POST', body: { email: user.email, password: 'wrong password' }, headers: project.client() }),
      },
    ];
    for (const { rest, trpc } of cases) {
      const r = await rest();
      const t = await trpc();
      expectKnownError(r);
      const label = JSON.stringify(t.body);
      expect(t.status, label).toBe(r.status);
      expect(t.headers.get('x-latch-known-error'), label).toBe(r.body.code);
      // USER_NOT_FOUND has no per-request parts; the others are compared whole.
      expect(t.body.error.data.latch, label).toEqual(r.body);
      expect(t.body.error.message).toBe(r.body.error);
      expect(t.body.error.data.httpStatus).toBe(r.status);
      expect(JSON.stringify(t.body)).not.toMatch(/"stack"/);
    }
  });

  it('the typed client surfaces the same code in TRPCClientError.data.latch', async () => {
    const error = await trpcClient(project.client())
      .users.getMe.query({})
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<AppRouter>).data as { latch: { code: string }; httpStatus: number };
    expect(data.latch.code).toBe('CANNOT_GET_OWN_USER_WITHOUT_USER');
    expect(data.httpStatus).toBe(400);
  });

  it('unknown procedures and wrong methods are catalogued like REST', async () => {
    expectTrpcKnownError(await trpcGet('nope.nope', {}), 'NOT_FOUND', 404);
    expectTrpcKnownError(await trpcGet('auth.passwordSignIn', { email: user.email, password: user.password }, project.client()), 'METHOD_NOT_ALLOWED', 405);
    expectTrpcKnownError(await call('/api/trpc/projects.current', { method: 'POST', body: {}, headers: project.client() }), 'METHOD_NOT_ALLOWED', 405);
  });

  it('malformed JSON bodies and bad ?input= are BODY_PARSING_ERROR', async () => {
    // A malformed body is refused by express.json before tRPC: the REST error shape, same code.
    expectKnownError(
      await call('/api/trpc/auth.passwordSignIn', { method: 'POST', rawBody: '{"email":', headers: project.client() }),
      'BODY_PARSING_ERROR',
      400,
    );
    expectTrpcKnownError(await call('/api/trpc/projects.current?input=%7B', { method: 'GET', headers: project.client() }), 'BODY_PARSING_ERROR', 400);
    expectTrpcKnownError(await call('/api/trpc/projects.current?input=nope', { method: 'GET', headers: project.client() }), 'BODY_PARSING_ERROR', 400);
    // Batches keep tRPC's own envelope, but a bad batch input is still a client error.
    const batch = await call('/api/trpc/projects.current,projects.current?batch=1&input=%5B%5D', { method: 'GET', headers: project.client() });
    expect(batch.status).toBeGreaterThanOrEqual(400);
    expect(batch.status).toBeLessThan(500);
  });
});

describe('non-API routes', () => {
  it('GET /health reports the database', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok' });
  });

  it('GET /metrics is Prometheus text, counting responses by status', async () => {
    const count = (text: string, status: number) => Number(new RegExp(`^latch_http_responses_total\\{status="${status}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const before = await get('/metrics');
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(before.body).toContain('# TYPE latch_http_responses_total counter');
    expect(before.body).toMatch(/^latch_process_resident_memory_bytes \d+$/m);
    expect(before.body).toMatch(/^latch_db_transaction_retries_total \d+$/m);
    for (const line of (before.body as string).trim().split('\n')) expect(line).toMatch(/^(# (HELP|TYPE) .+|[a-z_]+(\{[a-z_]+="[^"]*"\})? \d+)$/);
    await get('/nope');
    await get('/nope');
    const after = await get('/metrics');
    expect(count(after.body, 404)).toBeGreaterThanOrEqual(count(before.body, 404) + 2);
    expect(count(after.body, 200)).toBeGreaterThan(0);
  });

  it('GET /api/v1/docs is the HTML reference page and its assets are served', async () => {
    for (const path of ['/api/v1/docs', '/api/v1/docs/']) {
      const res = await fetch(`${h.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('/api/v1/docs/openapi.json');
      expect(html).toContain('swagger-ui-bundle.js');
    }
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const res = await fetch(`${h.url}/api/v1/docs/assets/${asset}`);
      expect(res.status, asset).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('GET /api/v1/docs/openapi.json is the committed document', async () => {
    const res = await get('/api/v1/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')));
  });

  it('GET / answers 200 with HTML', async () => {
    const res = await fetch(`${h.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await res.text()).length).toBeGreaterThan(0);
  });
});

describe('unexpected failures', () => {
  it('an internal error is a 500 INTERNAL_SERVER_ERROR with the request id, no stack and no SQL, on REST and tRPC; it is logged with the stack', async () => {
    const broken = await startHarness();
    const logged: { message: string; extra?: Record<string, unknown> }[] = [];
    broken.latch.deps.log.error = (message, extra) => logged.push({ message, extra });
    try {
      const owned = await broken.createProject();
      // Break the database under the running server (no server change): every request resolving a project fails.
      await sql`ALTER TABLE tenancies RENAME TO tenancies_gone`.execute(broken.latch.deps.db);

      const rest = await broken.get('/projects/current', owned.client());
      remember('broken REST', rest);
      expectKnownError(rest, 'INTERNAL_SERVER_ERROR', 500);
      const requestId = rest.headers.get('x-latch-request-id');
      expect(rest.body.details).toEqual({ request_id: requestId });
      expect(rest.body.error).toContain(requestId);
      const text = JSON.stringify(rest.body);
      expect(text).not.toMatch(STACK_LIKE);
      expect(text).not.toMatch(/tenancies|relation|select|syntax|postgres|pglite/i);
      // Logged server side, with the request id and the stack.
      const entry = logged.find((l) => l.message.includes(requestId!));
      expect(entry).toBeDefined();
      expect(String(entry!.extra?.error)).toMatch(/tenancies/);

      const overridden = await broken.get('/projects/current', { ...owned.client(), 'x-latch-override-error-status': 'true' });
      expect(overridden.status).toBe(200);
      expect(overridden.headers.get('x-latch-actual-status')).toBe('500');
      expect(overridden.body.code).toBe('INTERNAL_SERVER_ERROR');

      const trpc = await broken.call(`/api/trpc/projects.current?input=${encodeURIComponent('{}')}`, { method: 'GET', headers: owned.client() });
      remember('broken tRPC', trpc);
      expect(trpc.status).toBe(500);
      expect(trpc.headers.get('x-latch-known-error')).toBe('INTERNAL_SERVER_ERROR');
      expect(trpc.body.error.data.latch).toEqual({
        code: 'INTERNAL_SERVER_ERROR',
        details: { request_id: trpc.headers.get('x-latch-request-id') },
        error: expect.stringContaining(trpc.headers.get('x-latch-request-id')!),
      });
      const trpcText = JSON.stringify(trpc.body);
      expect(trpcText).not.toMatch(STACK_LIKE);
      expect(trpcText).not.toMatch(/"stack"|tenancies|relation/i);

      // The server recovers once the database does.
      await sql`ALTER TABLE tenancies_gone RENAME TO tenancies`.execute(broken.latch.deps.db);
      expect((await broken.get('/projects/current', owned.client())).status).toBe(200);
    } finally {
      await broken.close();
    }
  });

  it('toWireError: a plain Error is a 500 with the request id and nothing of the error', () => {
    const error = new Error('boom: SELECT secret FROM users at /work/main/server/x.ts:1:1');
    const wire = toWireError(error, 'req-123');
    expect(wire.status).toBe(500);
    expect(wire.body).toEqual({ code: 'INTERNAL_SERVER_ERROR', details: { request_id: 'req-123' }, error: expect.stringContaining('req-123') });
    expect(JSON.stringify(wire.body)).not.toMatch(/boom|SELECT|\/work|stack/);
    expect(wire.unexpected).toBe(error);
    for (const thrown of ['a string', 42, null, undefined, { status: 400, message: 'looks known' }]) {
      const w = toWireError(thrown, 'r');
      expect(w.status).toBe(500);
      expect(w.body.code).toBe('INTERNAL_SERVER_ERROR');
    }
  });

  it('toWireError: known errors pass through, also wrapped as a tRPC cause', () => {
    const known = new KnownErrors.UserNotFound();
    expect(toWireError(known, 'r')).toEqual({ status: 404, body: known.toBody(), unexpected: null });
    const wrapped = new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: known });
    expect(toWireError(wrapped, 'r')).toEqual({ status: 404, body: known.toBody(), unexpected: null });
    const plainCause = new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new Error('db down') });
    expect(toWireError(plainCause, 'r').status).toBe(500);
    expect(JSON.stringify(toWireError(plainCause, 'r').body)).not.toContain('db down');
  });

  it('toWireError: tRPC codes map to the catalogue', () => {
    const zod = z.object({ email: z.string() }).safeParse({ email: 5 }).error!;
    const schema = toWireError(new TRPCError({ code: 'BAD_REQUEST', cause: zod }), 'r');
    expect(schema.status).toBe(400);
    expect(schema.body.code).toBe('SCHEMA_ERROR');
    expect(schema.body.details).toEqual({ issues: [{ path: 'email', message: expect.any(String) }] });
    expect(toWireError(new TRPCError({ code: 'PARSE_ERROR', message: 'bad json' }), 'r')).toMatchObject({ status: 400, body: { code: 'BODY_PARSING_ERROR' } });
    expect(toWireError(new TRPCError({ code: 'NOT_FOUND' }), 'r')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(toWireError(new TRPCError({ code: 'METHOD_NOT_SUPPORTED' }), 'r')).toMatchObject({ status: 405, body: { code: 'METHOD_NOT_ALLOWED' } });
    expect(toWireError(new TRPCError({ code: 'PAYLOAD_TOO_LARGE' }), 'r')).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    // tRPC's own request checks are the caller's mistake, not a 500.
    expect(toWireError(new TRPCError({ code: 'BAD_REQUEST', message: 'Batch call exceeds maximum size' }), 'r')).toMatchObject({
      status: 400,
      body: { code: 'SCHEMA_ERROR', error: 'Batch call exceeds maximum size' },
    });
    let syntax: unknown;
    try {
      JSON.parse('{');
    } catch (error) {
      syntax = error;
    }
    expect(toWireError(new TRPCError({ code: 'BAD_REQUEST', cause: syntax }), 'r')).toMatchObject({ status: 400, body: { code: 'BODY_PARSING_ERROR' } });
    // But a BAD_REQUEST caused by a server bug (a refine that throws) is not blamed on the caller.
    const buggy = toWireError(new TRPCError({ code: 'BAD_REQUEST', cause: new TypeError("Cannot read properties of undefined (reading 'x')") }), 'r');
    expect(buggy.status).toBe(500);
    expect(JSON.stringify(buggy.body)).not.toContain('Cannot read');
  });
});

describe('no stack traces', () => {
  it('no response seen in this file contains a stack trace or a server path', () => {
    expect(seen.length).toBeGreaterThan(50);
    for (const { label, text } of seen) {
      if (label.includes('/metrics')) continue;
      expect(text, label).not.toMatch(STACK_LIKE);
    }
  });
});
