import type { IncomingMessage } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../env.js';
import { type Harness, startHarness } from '../test/harness.js';
import { metricsAccessError } from './metrics-access.js';

/** Issue 13 item 12: /metrics not public, HSTS over https, the API reference not frameable. */

const harnesses: Harness[] = [];
afterAll(async () => Promise.all(harnesses.map((h) => h.close())));
async function harness(overrides: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness(overrides);
  harnesses.push(h);
  return h;
}

const TOKEN = 'metrics-token-0123456789abcdef';

function fakeRequest(remoteAddress: string, headers: Record<string, string> = {}): IncomingMessage {
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

// Each HTTP test starts its own servers (different settings): generous time on a shared machine.
describe('GET /metrics', { timeout: 120_000 }, () => {
  it('answers only loopback peers that did not come through a proxy when LATCH_METRICS_TOKEN is unset', () => {
    for (const local of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(metricsAccessError(fakeRequest(local), null), local).toBeNull();
    for (const remote of ['10.0.0.5', '192.168.1.2', '203.0.113.9', '::ffff:10.1.2.3', 'fd00::1', '2001:db8::1']) {
      expect(metricsAccessError(fakeRequest(remote), null)?.code, remote).toBe('METRICS_LOOPBACK_ONLY');
    }
    // A reverse proxy on the same host: every visitor arrives from loopback, with a forwarding header.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      expect(metricsAccessError(fakeRequest('127.0.0.1', { [header]: '203.0.113.9' }), null)?.code, header).toBe('METRICS_LOOPBACK_ONLY');
    }
  });

  it('needs the bearer token from every peer, loopback included, when LATCH_METRICS_TOKEN is set', () => {
    expect(metricsAccessError(fakeRequest('203.0.113.9', { authorization: `Bearer ${TOKEN}` }), TOKEN)).toBeNull();
    for (const authorization of [undefined, '', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, `Bearer ${TOKEN.slice(1)}`, 'Bearer']) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      expect(metricsAccessError(fakeRequest('127.0.0.1', headers), TOKEN)?.code, String(authorization)).toBe('METRICS_TOKEN_REQUIRED');
    }
  });

  it('refuses over HTTP with catalogued errors: a forwarded request without a token, a wrong or missing token', async () => {
    const open = await harness();
    expect((await open.get('/metrics')).status).toBe(200);
    const proxied = await open.get('/metrics', { 'x-forwarded-for': '203.0.113.9' });
    expect({ status: proxied.status, code: proxied.body?.code, header: proxied.headers.get('x-latch-known-error') }).toEqual({
      status: 403,
      code: 'METRICS_LOOPBACK_ONLY',
      header: 'METRICS_LOOPBACK_ONLY',
    });
    expect(JSON.stringify(proxied.body)).not.toContain('latch_http_responses_total');

    const guarded = await harness({ metricsToken: TOKEN });
    const missing = await guarded.get('/metrics');
    expect({ status: missing.status, code: missing.body?.code, header: missing.headers.get('x-latch-known-error') }).toEqual({
      status: 401,
      code: 'METRICS_TOKEN_REQUIRED',
      header: 'METRICS_TOKEN_REQUIRED',
    });
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await guarded.get('/metrics', { authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(401);
    const ok = await guarded.get('/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('latch_http_responses_total');
  });

  it('reads LATCH_METRICS_TOKEN from the environment and refuses a short one', () => {
    const env = (vars: Record<string, string>) => loadEnv({ LATCH_SECRET: 'x'.repeat(48), ...vars });
    expect(env({}).metricsToken).toBeNull();
    expect(env({ LATCH_METRICS_TOKEN: ` ${TOKEN} ` }).metricsToken).toBe(TOKEN);
    expect(() => env({ LATCH_METRICS_TOKEN: 'short' })).toThrow(/LATCH_METRICS_TOKEN/);
  });
});

describe('Strict-Transport-Security', { timeout: 120_000 }, () => {
  it('is sent on every response when LATCH_BASE_URL is https, hot paths and errors included', async () => {
    const h = await harness({ baseUrl: 'https://auth.example.com' });
    // The public URL is the proxy's; the test talks to the server itself.
    const local = (path: string) => h.call(`http://127.0.0.1:${h.latch.port}${path}`);
    for (const res of [
      await local('/health'),
      await local('/api/v1/users/me'),
      await local('/api/v1/docs'),
      await local('/api/v1/nope'),
      await local('/api/v1/projects/current'),
      await local('/metrics'),
    ]) {
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
    }
  });

  it('is sent when a trusted proxy says the request came over https, and never over plain http', async () => {
    const h = await harness();
    expect((await h.get('/health')).headers.get('strict-transport-security')).toBeNull();
    expect((await h.get('/users/me')).headers.get('strict-transport-security')).toBeNull();
    // The harness talks over loopback, which the default LATCH_TRUST_PROXY trusts.
    expect((await h.get('/health', { 'x-forwarded-proto': 'https' })).headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect((await h.get('/users/me', { 'x-forwarded-proto': 'https' })).headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect((await h.get('/health', { 'x-forwarded-proto': 'http' })).headers.get('strict-transport-security')).toBeNull();
    // An untrusted peer cannot claim https.
    const untrusting = await harness({ trustProxy: false });
    expect((await untrusting.get('/health', { 'x-forwarded-proto': 'https' })).headers.get('strict-transport-security')).toBeNull();
  });
});

describe('/api/v1/docs', { timeout: 120_000 }, () => {
  it("cannot be framed by another site (frame-ancestors 'none')", async () => {
    const h = await harness();
    const res = await h.get('/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});
