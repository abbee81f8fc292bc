import { describe, expect, it } from 'vitest';
import { type ApiResponse, type Headers_, useHarness } from '../test/harness.js';

/**
 * GET /api/v1/users/me and POST …/auth/sessions/current/refresh take a lean path past express's
 * router (http/fast-lane.ts, withFastLane). Another spelling of the same path (upper case) still goes
 * through express and reaches the same route: both must answer alike, success and every failure.
 */
const h = useHarness({ corsOrigins: ['https://app.example'] });

const VOLATILE = new Set(['x-latch-request-id', 'date', 'content-length', 'etag', 'keep-alive', 'connection']);

function comparable(res: ApiResponse): { status: number; headers: [string, string][]; body: unknown } {
  const headers = [...res.headers.entries()].filter(([name]) => !VOLATILE.has(name)).sort();
  const body = typeof res.body === 'object' && res.body !== null && 'access_token' in res.body ? { access_token: typeof res.body.access_token } : res.body;
  return { status: res.status, headers, body };
}

async function both(method: 'GET' | 'POST', path: string, headers: Headers_, rawBody?: string): Promise<[ApiResponse, ApiResponse]> {
  const options = { method, headers, ...(rawBody !== undefined ? { rawBody } : {}) };
  const hot = await h.call(`/api/v1${path}`, options);
  const viaExpress = await h.call(`/api/v1${path.toUpperCase()}`, options);
  expect(hot.headers.get('x-latch-request-id')).toEqual(expect.any(String));
  expect(viaExpress.headers.get('x-latch-request-id')).toEqual(expect.any(String));
  return [hot, viaExpress];
}

describe('lean path for the hottest routes', () => {
  it('answers GET /users/me like the express route, in success and failure', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    const cases: Headers_[] = [
      project.client(user.accessToken),
      { ...project.client(user.accessToken), origin: 'https://app.example' },
      { ...project.client(user.accessToken), origin: 'https://evil.example' },
      project.client(),
      project.client('not-a-token'),
      { ...project.client(user.accessToken), 'x-latch-publishable-client-key': 'pck_wrong' },
      { ...project.client('not-a-token'), 'x-latch-override-error-status': 'true' },
      { 'x-latch-project-id': project.id },
    ];
    for (const headers of cases) {
      const [hot, viaExpress] = await both('GET', '/users/me', headers);
      expect(comparable(hot)).toEqual(comparable(viaExpress));
    }
    const [ok] = await both('GET', '/users/me', project.client(user.accessToken));
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(user.userId);
    expect(ok.headers.get('cache-control')).toBe('no-store');
  });

  it('answers POST refresh like the express route, bodies and errors included', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    const withToken = { ...project.client(), 'x-latch-refresh-token': user.refreshToken };
    const cases: Array<[Headers_, string | undefined]> = [
      [withToken, '{}'],
      [withToken, undefined],
      [withToken, '{"unexpected": '],
      [withToken, '[]'],
      [withToken, '{"a": "\\u0000"}'],
      [{ ...project.client(), 'x-latch-refresh-token': 'wrong' }, '{}'],
      [project.client(), '{}'],
      [{ ...withToken, origin: 'https://app.example' }, '{}'],
      // The lean JSON reader (json-body.ts) and body-parser must agree on every body and type.
      [withToken, ''],
      [withToken, '"x"'],
      [withToken, '5'],
      [withToken, 'null'],
      [withToken, ' {} '],
      [withToken, '{"extra": 1}'],
      [{ ...withToken, 'content-type': 'application/json; charset=utf-8' }, '{}'],
      [{ ...withToken, 'content-type': 'Application/JSON' }, '{"extra": 1}'],
      [{ ...withToken, 'content-type': 'application/json; charset=latin1' }, '{}'],
      [{ ...withToken, 'content-type': 'text/plain' }, '{"extra": 1}'],
      [{ ...withToken, 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{}'],
      [withToken, `{"pad": "${'x'.repeat(20_000)}"}`],
    ];
    for (const [headers, body] of cases) {
      const [hot, viaExpress] = await both('POST', '/auth/sessions/current/refresh', headers, body);
      expect(comparable(hot), `body ${body}`).toEqual(comparable(viaExpress));
    }
    const [ok, ,] = await both('POST', '/auth/sessions/current/refresh', withToken, '{}');
    expect(ok.status).toBe(200);
    expect(ok.body.access_token).toEqual(expect.any(String));
    const [bad] = await both('POST', '/auth/sessions/current/refresh', withToken, '{"unexpected": ');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-latch-known-error')).toBe(bad.body.code);
    // A body that is not what its content-encoding says was a 500 once: a catalogued 400 now.
    const [gzip] = await both('POST', '/auth/sessions/current/refresh', { ...withToken, 'content-encoding': 'gzip' }, '{}');
    expect([gzip.status, gzip.body.code, gzip.headers.get('x-latch-known-error')]).toEqual([400, 'BODY_PARSING_ERROR', 'BODY_PARSING_ERROR']);
  });

  it('counts hot requests in /metrics like any other', async () => {
    const read = async () => Number(/latch_http_responses_total\{status="401"\} (\d+)/.exec(await (await fetch(`${h.url}/metrics`)).text())?.[1] ?? 0);
    const before = await read();
    const project = await h.createProject();
    await h.call('/api/v1/users/me', { headers: project.client('not-a-token') });
    expect(await read()).toBe(before + 1);
  });
});
