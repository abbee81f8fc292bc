import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AdminApp } from '../../../sdk/admin-app.js';
import { type ProjectFixture, startHarness, useHarness } from '../../test/harness.js';
import { WEBHOOK_MAX_ATTEMPTS } from './delivery.js';
import { emitWebhookEvent } from './events.js';
import { resolveWebhookTarget, setWebhookTimeoutMs, WebhookTargetRefused } from './outbound.js';
import { waitFor } from '../../test/wait-for.js';

/**
 * Outbound webhooks against a real server and a local receiver on 127.0.0.1 that verifies every
 * request with the `standardwebhooks` package (the reference verifier receivers use).
 */

const h = useHarness({ webhooksAllowPrivate: true, email: { pollIntervalMs: 25 } });

type Behaviour = 'ok' | 'fail' | 'hang';
interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The receiver: per path, a script of behaviours (the last one repeats), and everything received. */
const received: Received[] = [];
const scripts = new Map<string, Behaviour[]>();
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const script = scripts.get(path) ?? ['ok'];
      const behaviour = script.length > 1 ? script.shift()! : script[0]!;
      if (behaviour === 'hang') return; // never answers: the sender's timeout must cut it
      res.writeHead(behaviour === 'ok' ? 200 : 500, { 'content-type': 'text/plain' });
      res.end(behaviour === 'ok' ? 'thanks' : 'receiver exploded');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});
afterEach(() => setWebhookTimeoutMs(15_000));

let pathCounter = 0;
const newPath = () => `/hook-${++pathCounter}-${Date.now()}`;

async function addEndpoint(project: ProjectFixture, path: string, body: Record<string, unknown> = {}) {
  const res = await h.post('/internal/webhooks/endpoints', { url: `${receiverUrl}${path}`, ...body }, project.admin());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.secret).toMatch(/^whsec_/);
  return res.body as { id: string; secret: string };
}

const at = (path: string) => received.filter((r) => r.path === path);

function verified(secret: string, request: Received): { type: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; data: Record<string, unknown> };
}

/** Makes the delivery's next attempt due now (the schedule's waits are minutes to hours). */
async function dueNow(deliveryId: string): Promise<void> {
  await h.latch.deps.db
    .updateTable('jobs')
    .set({ next_attempt_at: sql<Date>`now() - interval '1 second'` })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute();
}

async function deliveries(project: ProjectFixture, endpointId: string) {
  const res = await h.get(`/internal/webhooks/endpoints/${endpointId}/deliveries`, project.admin());
  expect(res.status).toBe(200);
  return res.body.items as {
    id: string;
    state: string;
    attempts: number;
    last_status: number | null;
    last_response_snippet: string | null;
    event_type: string;
    message_id: string;
  }[];
}

describe('webhooks: delivery', () => {
  it("signs user.created with Standard Webhooks headers, and an endpoint never sees another project's events", async () => {
    const a = await h.createProject();
    const b = await h.createProject();
    const pathA = newPath();
    const pathB = newPath();
    const endpointA = await addEndpoint(a, pathA);
    await addEndpoint(b, pathB);
    const user = await h.post('/users', { primary_email: h.uniqueEmail('hooked') }, a.server());
    expect(user.status).toBe(201);
    const request = await waitFor('user.created at A', () => at(pathA).find((r) => verified(endpointA.secret, r).type === 'user.created'));
    expect(request.headers['webhook-id']).toMatch(/^msg_/);
    expect(request.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(request.headers['webhook-signature']).toMatch(/^v1,/);
    const event = verified(endpointA.secret, request);
    expect(event.data.id).toBe(user.body.id);
    // A tampered body does not verify.
    expect(() => new Webhook(endpointA.secret).verify(request.body.replace('user.created', 'user.deleted'), request.headers)).toThrow();
    // B's endpoint: nothing from A, whatever happens there.
    await h.post('/users', { primary_email: h.uniqueEmail('b-user') }, b.server());
    await waitFor('B receives its own user', () => at(pathB).length > 0);
    for (const r of at(pathB)) expect(JSON.stringify(JSON.parse(r.body).data)).not.toContain(user.body.id);
    const log = await deliveries(a, endpointA.id);
    await waitFor('A log says sent', async () => (await deliveries(a, endpointA.id)).some((d) => d.state === 'sent' && d.last_status === 200));
    expect(log.every((d) => d.event_type.length > 0)).toBe(true);
  });

  it('filters by event type; session.created carries the sign-in method; team events arrive', async () => {
    const project = await h.createProject();
    const path = newPath();
    const endpoint = await addEndpoint(project, path, { event_types: ['session.created', 'team.created'] });
    const user = await h.signUpUser(project);
    const session = await waitFor('session.created', () => at(path).find((r) => verified(endpoint.secret, r).type === 'session.created'));
    expect(verified(endpoint.secret, session).data).toMatchObject({ user_id: user.userId, sign_in_method: 'password' });
    const team = await h.post('/teams', { display_name: 'Hooked team' }, project.server());
    expect(team.status).toBe(201);
    await waitFor('team.created', () => at(path).find((r) => verified(endpoint.secret, r).type === 'team.created'));
    expect(
      at(path)
        .map((r) => verified(endpoint.secret, r).type)
        .every((t) => t === 'session.created' || t === 'team.created'),
    ).toBe(true);
  });

  it("a sign-up's user.created and session.created, one transaction's two events, both arrive; a disabled endpoint gets the next sign-up's neither", async () => {
    const project = await h.createProject();
    const path = newPath();
    const endpoint = await addEndpoint(project, path);
    const user = await h.signUpUser(project);
    const ofUser = () =>
      at(path)
        .map((r) => verified(endpoint.secret, r))
        .filter((e) => e.data.id === user.userId || e.data.user_id === user.userId);
    await waitFor('both events of the sign-up', () => ofUser().length === 2);
    expect(
      ofUser()
        .map((e) => e.type)
        .sort(),
    ).toEqual(['session.created', 'user.created']);
    // The endpoints each transaction read are its own: switched off, the endpoint is not in the next one's.
    expect((await h.patch(`/internal/webhooks/endpoints/${endpoint.id}`, { enabled: false }, project.admin())).status).toBe(200);
    // Deliveries are written with their event, in its transaction: none for what came after.
    await h.signUpUser(project);
    await h.post('/users', { primary_email: h.uniqueEmail('after-off') }, project.server());
    expect(await deliveries(project, endpoint.id)).toHaveLength(2);
  });

  it('retries after a 500 and a timeout, then succeeds; the log shows each attempt; a retry resends the same webhook-id', async () => {
    setWebhookTimeoutMs(1_000);
    const project = await h.createProject();
    const path = newPath();
    scripts.set(path, ['fail', 'hang', 'ok']);
    const endpoint = await addEndpoint(project, path);
    const sent = await h.post(`/internal/webhooks/endpoints/${endpoint.id}/test`, {}, project.admin());
    expect(sent.status).toBe(200);
    const { delivery_id: deliveryId, message_id: messageId } = sent.body;
    const first = await waitFor('attempt 1 recorded', async () =>
      (await deliveries(project, endpoint.id)).find((d) => d.id === deliveryId && d.attempts === 1),
    );
    expect(first).toMatchObject({ state: 'pending', last_status: 500, last_response_snippet: 'receiver exploded' });
    await dueNow(deliveryId);
    await waitFor('attempt 2 (timeout) recorded', async () => (await deliveries(project, endpoint.id)).find((d) => d.id === deliveryId && d.attempts === 2));
    await dueNow(deliveryId);
    const done = await waitFor('sent', async () => (await deliveries(project, endpoint.id)).find((d) => d.id === deliveryId && d.state === 'sent'));
    expect(done).toMatchObject({ attempts: 3, last_status: 200, last_response_snippet: 'thanks' });
    expect(at(path).map((r) => r.headers['webhook-id'])).toEqual([messageId, messageId, messageId]);
    for (const r of at(path)) expect(verified(endpoint.secret, r).type).toBe('webhook.test');

    const retried = await h.post(`/internal/webhooks/endpoints/${endpoint.id}/deliveries/${deliveryId}/retry`, {}, project.admin());
    expect(retried.status).toBe(200);
    await waitFor('retried delivery', () => at(path).length === 4);
    expect(at(path)[3]!.headers['webhook-id']).toBe(messageId);
  });

  it('a delivery that keeps failing becomes dead after its attempts', async () => {
    const project = await h.createProject();
    const path = newPath();
    scripts.set(path, ['fail']);
    const endpoint = await addEndpoint(project, path);
    const { delivery_id: deliveryId } = (await h.post(`/internal/webhooks/endpoints/${endpoint.id}/test`, {}, project.admin())).body;
    await waitFor('first failure', async () => (await deliveries(project, endpoint.id)).find((d) => d.id === deliveryId && d.attempts === 1));
    // Skip the day of waiting: the job is on its last attempt.
    await h.latch.deps.db
      .updateTable('jobs')
      .set({ attempts: WEBHOOK_MAX_ATTEMPTS - 1, next_attempt_at: sql<Date>`now() - interval '1 second'` })
      .where('id', '=', deliveryId)
      .execute();
    const dead = await waitFor('dead', async () => (await deliveries(project, endpoint.id)).find((d) => d.id === deliveryId && d.state === 'dead'));
    expect(dead).toMatchObject({ attempts: WEBHOOK_MAX_ATTEMPTS, last_status: 500 });
    const job = await h.latch.deps.db.selectFrom('jobs').select('status').where('id', '=', deliveryId).executeTakeFirstOrThrow();
    expect(job.status).toBe('dead');
  });

  it('during a secret rotation both signatures are sent and each secret verifies; after the overlap only the new one', async () => {
    const project = await h.createProject();
    const path = newPath();
    const endpoint = await addEndpoint(project, path);
    const rotated = await h.post(`/internal/webhooks/endpoints/${endpoint.id}/rotate-secret`, { overlap_seconds: 3600 }, project.admin());
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(rotated.body.previous_secret_expires_at_millis).toBeGreaterThan(Date.now());
    await h.post(`/internal/webhooks/endpoints/${endpoint.id}/test`, {}, project.admin());
    const during = await waitFor('delivery during overlap', () => at(path)[0]);
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verified(endpoint.secret, during).type).toBe('webhook.test');
    expect(verified(rotated.body.secret, during).type).toBe('webhook.test');

    const again = await h.post(`/internal/webhooks/endpoints/${endpoint.id}/rotate-secret`, { overlap_seconds: 0 }, project.admin());
    await h.post(`/internal/webhooks/endpoints/${endpoint.id}/test`, {}, project.admin());
    const after = await waitFor('delivery after overlap', () => at(path)[1]);
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verified(again.body.secret, after).type).toBe('webhook.test');
    expect(() => verified(rotated.body.secret, after)).toThrow();
  });

  it('replays the events since a time to one endpoint', async () => {
    const project = await h.createProject();
    const path = newPath();
    const endpoint = await addEndpoint(project, path, { event_types: ['user.created'] });
    const since = Date.now() - 1000;
    await h.post('/users', { primary_email: h.uniqueEmail('replay') }, project.server());
    await waitFor('first delivery', () => at(path).length === 1);
    const replay = await h.post(`/internal/webhooks/endpoints/${endpoint.id}/replay`, { since_millis: since }, project.admin());
    expect(replay.body).toEqual({ replayed: 1 });
    await waitFor('replayed delivery', () => at(path).length === 2);
    expect(at(path)[1]!.headers['webhook-id']).toBe(at(path)[0]!.headers['webhook-id']);
  });

  it('an event emitted in a transaction that rolls back is never stored nor sent', async () => {
    const project = await h.createProject();
    const path = newPath();
    await addEndpoint(project, path);
    const tenancy = await h.latch.deps.db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).executeTakeFirstOrThrow();
    await expect(
      h.latch.deps.db.transaction().execute(async (trx) => {
        await emitWebhookEvent(trx, tenancy.id, 'user.deleted', { id: 'rolled-back-user' });
        throw new Error('the change fails after the event was written');
      }),
    ).rejects.toThrow('the change fails');
    const messages = await h.latch.deps.db.selectFrom('webhook_messages').select('id').where('tenancy_id', '=', tenancy.id).execute();
    expect(messages).toEqual([]);
    const jobs = await h.latch.deps.db.selectFrom('jobs').select('id').where('tenancy_id', '=', tenancy.id).where('kind', '=', 'webhook.delivery').execute();
    expect(jobs).toEqual([]);
    // A user creation that fails (duplicate email) sends no user.created either.
    const email = h.uniqueEmail('dup');
    expect((await h.post('/users', { primary_email: email, primary_email_auth_enabled: true }, project.server())).status).toBe(201);
    expect((await h.post('/users', { primary_email: email, primary_email_auth_enabled: true }, project.server())).status).toBe(409);
    await waitFor('the first creation delivered', () => at(path).length === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(at(path)).toHaveLength(1);
  });
});

describe('webhooks: SDK', () => {
  it('AdminApp manages endpoints, sends a test event and reads the deliveries log', async () => {
    const project = await h.createProject();
    const admin = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl: h.url });
    const path = newPath();
    const created = await admin.createWebhookEndpoint({ url: `${receiverUrl}${path}`, description: 'sdk' });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await admin.listWebhookEndpoints()).map((e) => e.id)).toEqual([created.id]);
    const { delivery_id } = await admin.sendWebhookTestEvent(created.id);
    await waitFor('sent', async () => (await admin.listWebhookDeliveries(created.id)).find((d) => d.id === delivery_id && d.state === 'sent'));
    expect(verified(created.secret, at(path)[0]!).type).toBe('webhook.test');
    const disabled = await admin.updateWebhookEndpoint(created.id, { enabled: false });
    expect(disabled.enabled).toBe(false);
    await admin.deleteWebhookEndpoint(created.id);
    expect(await admin.listWebhookEndpoints()).toEqual([]);
  });
});

describe('webhooks: SSRF guard', () => {
  it('refuses private, loopback and link-local targets unless LATCH_WEBHOOKS_ALLOW_PRIVATE', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://169.254.169.254/latest', 'http://10.1.2.3/', 'http://[::1]/', 'http://[::ffff:192.168.0.1]/']) {
      await expect(resolveWebhookTarget(url, false)).rejects.toBeInstanceOf(WebhookTargetRefused);
      await expect(resolveWebhookTarget(url, true)).resolves.toBeTruthy();
    }
    await expect(resolveWebhookTarget('ftp://example.com/', true)).rejects.toBeInstanceOf(WebhookTargetRefused);
    await expect(resolveWebhookTarget('http://user:pw@example.com/', true)).rejects.toBeInstanceOf(WebhookTargetRefused);
    expect((await resolveWebhookTarget('http://93.184.215.14/', false)).address).toBe('93.184.215.14');
  });

  it('a deployment without the switch refuses a loopback endpoint at creation', async () => {
    const strict = await startHarness({});
    try {
      const project = await strict.createProject();
      const res = await strict.post('/internal/webhooks/endpoints', { url: `${receiverUrl}/never` }, project.admin());
      expect([res.status, res.body.code]).toEqual([400, 'WEBHOOK_URL_NOT_ALLOWED']);
    } finally {
      await strict.close();
    }
  });
});
