import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type Harness, type ProjectFixture, startHarness } from './harness.js';

/**
 * Issue 13 items 2 and 12, over HTTP: stacked wildcards are refused when saved and trust nothing
 * when already stored; a callback URL cannot climb out of a path-scoped trusted domain with an
 * encoded `../`; production mode refuses localhost (in any spelling) and bare-IP callbacks and
 * reports numeric and wildcard localhost domains as the localhost they are.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

function expectKnownError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
}

/** A password reset for an address nobody holds: the callback check runs, no mail is sent. */
function sendReset(project: ProjectFixture, callbackUrl: string): Promise<ApiResponse> {
  return h.post('/auth/password/send-reset-code', { email: h.uniqueEmail('nobody'), callback_url: callbackUrl }, project.client());
}

function setDomains(project: ProjectFixture, domains: string[], extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  return h.patch(
    '/internal/projects/current',
    {
      ...extra,
      config: { allow_localhost: false, domains: domains.map((domain) => ({ domain, handler_path: '/handler' })), ...((extra.config as object) ?? {}) },
    },
    project.admin(),
  );
}

describe('stacked wildcards in trusted domains (issue 13 item 2)', () => {
  it('refuses a trusted domain with adjacent wildcards as a SCHEMA_ERROR that says why', async () => {
    const project = await h.createProject();
    for (const domain of ['https://****************.x.com', 'https://***.example.com', 'https://app-**.example.com']) {
      const res = await setDomains(project, [domain]);
      expectKnownError(res, 400, 'SCHEMA_ERROR');
      expect(res.body.error).toContain('adjacent wildcards');
    }
    // The single wildcard and a whole `**` label are still fine.
    expect((await setDomains(project, ['https://*.example.com', 'https://**.example.org'])).status).toBe(200);
  });

  it('a stacked pattern stored before the rule trusts nothing (and is reported), instead of being run as a regex', async () => {
    const project = await h.createProject();
    const stacked = 'https://****************.x.com';
    const row = await h.latch.deps.db.selectFrom('projects').select('config').where('id', '=', project.id).executeTakeFirstOrThrow();
    const config = { ...(row.config as Record<string, unknown>), allow_localhost: false, domains: [{ domain: stacked, handler_path: '/handler' }] };
    await h.latch.deps.db
      .updateTable('projects')
      .set({ config: JSON.stringify(config) as never })
      .where('id', '=', project.id)
      .execute();
    h.latch.deps.projectAuthCache.invalidate();

    const res = await sendReset(project, `https://${'a'.repeat(30)}.x.com/handler/password-reset`);
    expectKnownError(res, 400, 'REDIRECT_URL_NOT_WHITELISTED');
    const problems = (await h.get('/internal/projects/current', project.admin())).body.production_mode_problems as { message: string }[];
    expect(problems.map((p) => p.message)).toContain(`Trusted domain ${stacked} is not a valid URL`);
  });
});

describe('encoded dot segments in callback URLs (issue 13 item 12)', () => {
  it('a callback cannot leave a path-scoped trusted domain with ..%2f, %2e%2e%2f, ..%5c or double encoding', async () => {
    const project = await h.createProject();
    expect((await setDomains(project, ['https://app.example.com/auth/'])).status).toBe(200);
    expect((await sendReset(project, 'https://app.example.com/auth/handler/password-reset')).status).toBe(200);
    for (const url of [
      'https://app.example.com/auth/..%2fadmin',
      'https://app.example.com/auth/%2e%2e%2fadmin',
      'https://app.example.com/auth/..%5cadmin',
      'https://app.example.com/auth/..%252fadmin',
    ]) {
      expectKnownError(await sendReset(project, url), 400, 'REDIRECT_URL_NOT_WHITELISTED');
    }
  });
});

describe('production mode enforces its own problems (issue 13 item 12)', () => {
  it('refuses localhost callbacks in every spelling, even with allow_localhost on and a localhost trusted domain', async () => {
    const project = await h.createProject();
    const localhostDomains = ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://2130706433:3000'];
    expect((await setDomains(project, localhostDomains, { config: { allow_localhost: true } })).status).toBe(200);
    // Not in production mode: localhost is trusted, as the owner asked.
    expect((await sendReset(project, 'http://localhost:3000/handler/password-reset')).status).toBe(200);

    // Switched on while clean (it is refused with problems), then the problems come back: they are
    // shown, and production mode still refuses every localhost callback.
    expect((await setDomains(project, ['https://app.example.com'], { is_production_mode: true })).status).toBe(200);
    const prod = await setDomains(project, localhostDomains, { config: { allow_localhost: true } });
    expect(prod.status).toBe(200);
    expect(prod.body.is_production_mode).toBe(true);
    expect(prod.body.production_mode_problems.length).toBeGreaterThan(0);
    for (const url of [
      'http://localhost:3000/handler/password-reset',
      'http://2130706433:3000/cb',
      'http://0x7f000001:3000/cb',
      'http://0177.0.0.1:3000/cb',
      'http://127.1:3000/cb',
      'http://app.localhost:3000/cb',
      'http://[::1]:3000/cb',
      'http://[::ffff:127.0.0.1]:3000/cb',
    ]) {
      expectKnownError(await sendReset(project, url), 400, 'REDIRECT_URL_NOT_WHITELISTED');
    }
  });

  it('refuses bare-IP callbacks in production mode and keeps trusting real domains', async () => {
    const project = await h.createProject();
    expect((await setDomains(project, ['https://app.example.com'], { is_production_mode: true })).status).toBe(200);
    expect((await setDomains(project, ['https://10.0.0.1', 'https://app.example.com'])).status).toBe(200);
    expectKnownError(await sendReset(project, 'https://10.0.0.1/handler/password-reset'), 400, 'REDIRECT_URL_NOT_WHITELISTED');
    expectKnownError(await sendReset(project, 'https://167772161/handler/password-reset'), 400, 'REDIRECT_URL_NOT_WHITELISTED');
    expect((await sendReset(project, 'https://app.example.com/handler/password-reset')).status).toBe(200);
  });

  it('reports numeric, hex and wildcard localhost domains as localhost, and numeric IPs as direct IPs', async () => {
    const project = await h.createProject();
    const domains = ['https://2130706433', 'https://0x7f000001', 'https://*.localhost', 'https://[::1]', 'https://167772161', 'https://good.example.com'];
    const res = await setDomains(project, domains);
    expect(res.status).toBe(200);
    const messages = (res.body.production_mode_problems as { message: string }[]).map((p) => p.message);
    for (const domain of domains.slice(0, 4))
      expect(messages).toContain(`Localhost is not allowed in production mode: remove ${domain} from the trusted domains`);
    expect(messages).toContain('Direct IPs are not valid trusted domains in production mode: https://167772161');
    expect(messages.some((m) => m.includes('good.example.com'))).toBe(false);
  });
});
