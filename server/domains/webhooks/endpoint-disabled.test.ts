import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type OwnerSession, startHarness } from '../../test/harness.js';
import { type SmtpSink, startSmtpSink } from '../../test/smtp-sink.js';
import { WEBHOOK_DISABLED_REASON } from './delivery.js';
import { endpointLabel } from './disabled-notice.js';
import { waitFor } from '../../test/wait-for.js';

/**
 * An endpoint that fails for 5 days with no success in between is disabled, and its project's
 * owners are told by email (sent from the internal project over the deployment's SMTP server, here
 * a real SMTP sink), once, to their verified addresses only. The 5 days are skipped by moving the
 * endpoint's failing_since back; everything else is the real worker over real HTTP and SMTP.
 */

let h: Harness;
let sink: SmtpSink;
let receiver: Server;
let receiverUrl: string;
let received = 0;
const INTERNAL = { 'x-latch-project-id': 'internal', 'x-latch-access-type': 'client' };

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startHarness({ webhooksAllowPrivate: true, email: { smtpUrl: sink.url, from: 'noreply@latch.test', pollIntervalMs: 25 } });
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(500, { 'content-type': 'text/plain' }).end('down for maintenance');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await h?.close();
  await sink?.close();
});

/** An owner of the internal project whose address is proven through the emailed code (or not). */
async function owner(verified: boolean): Promise<OwnerSession> {
  const email = h.uniqueEmail(verified ? 'verified-owner' : 'unverified-owner');
  const res = await h.post(
    '/auth/password/sign-up',
    { email, password: 'owner-password-1', ...(verified ? { verification_callback_url: 'http://localhost:3000/handler/email-verification' } : {}) },
    INTERNAL,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  if (verified) {
    const mail = await sink.waitForTo(email);
    expect((await h.post('/contact-channels/verify', { code: mail.code }, INTERNAL)).status).toBe(200);
  }
  return { userId: res.body.user_id, email, accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
}

/** An endpoint of a new project that has been failing (per its failing_since) for 6 days, and one more failure now. */
async function failForDays(ownerSession: OwnerSession, displayName: string, path: string) {
  const project = await h.createProject({ owner: ownerSession, displayName });
  const created = await h.post('/internal/webhooks/endpoints', { url: `${receiverUrl}${path}` }, project.admin());
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const endpointId = created.body.id as string;
  const first = (await h.post(`/internal/webhooks/endpoints/${endpointId}/test`, {}, project.admin())).body.delivery_id as string;
  const db = h.latch.deps.db;
  await waitFor(
    'the first failure',
    async () => {
      const row = await db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', endpointId).executeTakeFirst();
      return row?.failing_since ?? undefined;
    },
    30_000,
  );
  // Time travel: the failing run started 6 days ago; the next failure finds it over 5 days old.
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: sql<Date>`now() - interval '6 days'` })
    .where('id', '=', endpointId)
    .execute();
  await db
    .updateTable('jobs')
    .set({ next_attempt_at: sql<Date>`now() - interval '1 second'` })
    .where('id', '=', first)
    .where('status', '=', 'pending')
    .execute();
  const disabled = await waitFor(
    'the endpoint disabled',
    async () => {
      const res = await h.get(`/internal/webhooks/endpoints/${endpointId}`, project.admin());
      return res.body.enabled === false ? res.body : undefined;
    },
    30_000,
  );
  return { project, endpointId, disabled };
}

describe('webhooks: an endpoint disabled after days of failure', () => {
  it("emails the project's verified owners once, from the internal project, over SMTP", async () => {
    const verifiedOwner = await owner(true);
    const path = '/hooks/orders?token=receiver-secret-token';
    const { endpointId, disabled, project } = await failForDays(verifiedOwner, 'Acme <Orders>', path);
    expect(disabled.disabled_reason).toBe(WEBHOOK_DISABLED_REASON);

    const mail = await sink.waitFor((m) => m.to.includes(verifiedOwner.email) && m.subject === 'A webhook endpoint was disabled');
    expect(mail.from?.address).toBe('noreply@latch.test');
    expect(mail.text).toContain('Acme <Orders>');
    expect(mail.html).toContain('Acme &lt;Orders&gt;');
    expect(mail.text).toContain(`${receiverUrl}/hooks/orders`);
    expect(mail.text).toContain(WEBHOOK_DISABLED_REASON);
    // The receiver's own token in the query string is not mailed.
    expect(mail.text + mail.html).not.toContain('receiver-secret-token');
    expect(mail.text).toContain(`${h.latch.deps.baseUrl()}/projects/${project.id}/webhooks`);

    // The email belongs to the internal project's outbox, not to the project's.
    const outbox = await waitFor(
      'the outbox row settled',
      async () => {
        const rows = await h.latch.deps.db
          .selectFrom('email_outbox as o')
          .innerJoin('tenancies as t', 't.id', 'o.tenancy_id')
          .select(['t.project_id', 'o.state'])
          .where('o.to_email', '=', verifiedOwner.email)
          .where('o.subject', '=', 'A webhook endpoint was disabled')
          .execute();
        return rows.every((row) => row.state !== 'pending') ? rows : undefined;
      },
      30_000,
    );
    expect(outbox).toEqual([{ project_id: 'internal', state: 'sent' }]);

    // Once: further failures of the disabled endpoint send nothing more (nor any request).
    const before = received;
    const again = await h.post(`/internal/webhooks/endpoints/${endpointId}/test`, {}, project.admin());
    expect(again.status).toBe(200);
    await h.latch.deps.db
      .updateTable('jobs')
      .set({ next_attempt_at: sql<Date>`now() - interval '1 second'` })
      .where('id', '=', again.body.delivery_id)
      .execute();
    await waitFor(
      'the new job settled',
      async () => {
        const job = await h.latch.deps.db.selectFrom('jobs').select('status').where('id', '=', again.body.delivery_id).executeTakeFirst();
        return job?.status === 'done' ? job : undefined;
      },
      30_000,
    );
    expect(received).toBe(before);
    const count = await h.latch.deps.db
      .selectFrom('email_outbox')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('to_email', '=', verifiedOwner.email)
      .where('subject', '=', 'A webhook endpoint was disabled')
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(1);
  });

  it('an owner whose address is not proven gets no email (the endpoint is still disabled, with its reason)', async () => {
    const unverified = await owner(false);
    const { disabled } = await failForDays(unverified, 'Unproven', '/hooks/unproven');
    expect(disabled.disabled_reason).toBe(WEBHOOK_DISABLED_REASON);
    const queued = await h.latch.deps.db.selectFrom('email_outbox').select('id').where('to_email', '=', unverified.email).execute();
    expect(queued).toEqual([]);
  });

  it('labels the endpoint by origin and path only', () => {
    expect(endpointLabel('https://hooks.example.com/in/latch?token=abc#x')).toBe('https://hooks.example.com/in/latch');
    expect(endpointLabel('not a url?secret=1')).toBe('not a url');
  });
});
