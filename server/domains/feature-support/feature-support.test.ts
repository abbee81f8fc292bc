import { describe, expect, it } from 'vitest';
import { ClientApp } from '../../../sdk/client-app.js';
import { FeatureNotSupportedError } from '../../../sdk/features/feature-support.js';
import { ServerApp } from '../../../sdk/server-app.js';
import { useHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus } from '../../test/team-fixtures.js';

/** POST /check-feature-support through real HTTP, and the SDK asking before a feature. */
const h = useHarness();

describe('POST /check-feature-support', () => {
  it('answers per project: payments without Stripe keys or test mode is not supported, with the reason', async () => {
    const plain = await h.createProject();
    const testMode = await h.createProject({ config: { payments: { test_mode: true } } });
    const check = async (headers: Record<string, string | undefined>, feature_name: string) => {
      const res = await h.post('/check-feature-support', { feature_name, client_version: 'latch-sdk@9.9.9' }, headers);
      expectStatus(res, 200);
      return res.body as { supported: boolean; reason: string | null; server_version: string };
    };
    const payments = await check(plain.client(), 'payments');
    expect(payments).toMatchObject({ supported: false, server_version: '0.1.0' });
    expect(payments.reason).toContain('Stripe');
    expect(await check(testMode.client(), 'payments')).toMatchObject({ supported: true, reason: null });
    expect(await check(plain.server(), 'webhooks')).toMatchObject({ supported: true, reason: null });
    const ai = await check(plain.admin(), 'ai-chat');
    // The test server has no AI endpoint configured.
    expect(ai.supported).toBe(false);
    expect(ai.reason).toContain('LATCH_AI_BASE_URL');
    expect((await check(plain.client(), 'data-vault')).reason).toContain('no data vault store');
    const unknown = await check(plain.client(), 'teleportation');
    expect(unknown.supported).toBe(false);
    expect(unknown.reason).toContain('latch-sdk@9.9.9');
  });

  it('needs project credentials and a feature name', async () => {
    const project = await h.createProject();
    expectKnownError(await h.post('/check-feature-support', { feature_name: 'payments' }, {}), 401, 'CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED');
    expectKnownError(await h.post('/check-feature-support', {}, project.client()), 400, 'SCHEMA_ERROR');
  });

  it('the SDK asks once per app and feature, and refuses a checkout the server cannot do', async () => {
    const project = await h.createProject();
    const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: h.url });
    const client = new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: h.url, tokenStore: 'memory' });
    const first = client.checkFeatureSupport('payments');
    expect(client.checkFeatureSupport('payments')).toBe(first);
    expect((await first).supported).toBe(false);
    const user = await server.createUser({ primary_email: h.uniqueEmail('buyer') });
    const failure = await server
      .createCheckoutUrl({ userId: user.id, productId: 'pro', returnUrl: 'http://localhost:3000/back' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FeatureNotSupportedError);
    expect((failure as FeatureNotSupportedError).reason).toContain('Stripe');
  });
});
