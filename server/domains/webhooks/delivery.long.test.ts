import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { type Cleanups, call, freshPostgresDatabase, killHard, postgresReachable, setUpProject, sleep, startServer } from '../../test/child-server.js';
import { POSTGRES_ADMIN_URL as ADMIN_URL } from '../../test/global-setup.js';

/**
 * kill -9 mid-delivery loses no webhook event (issue 19): `npm run test:long`, never part of `npm test`.
 *
 * Latch runs as a real child process (`node --import tsx server/main.ts`). A receiver on
 * 127.0.0.1 verifies every request with the `standardwebhooks` package and dedupes on
 * `webhook-id`, as the docs tell receivers to. N users are created (N `user.created` events,
 * each written in the transaction of its user); the receiver holds its answers, so deliveries are
 * in flight when the server is killed with SIGKILL. After a restart on the same database (a PGlite
 * data folder on disk, or PostgreSQL), every event arrives: the deduped count is N, the events
 * name exactly the N users, and the requests that were in flight at the kill arrive a second time
 * with the same `webhook-id` (their jobs stayed leased; LATCH_JOB_LEASE_MS is short here so the
 * test need not wait the default 5 minutes for those leases to run out).
 */

const EVENTS = 40;
const SECRET = randomBytes(48).toString('base64url');
/** How long the receiver holds each answer before the kill: the worker's rounds (8 jobs) are in flight for this long. */
const HOLD_MS = 3000;

const postgresUp = await postgresReachable(ADMIN_URL);
if (!postgresUp) console.warn(`[webhooks kill -9] PostgreSQL is not reachable at ${ADMIN_URL}: its test is skipped`);

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const SERVER_ENV = {
  LATCH_SECRET: SECRET,
  LATCH_WEBHOOKS_ALLOW_PRIVATE: 'true',
  LATCH_EMAIL_POLL_INTERVAL_MS: '100',
  // Above HOLD_MS (an attempt in a healthy run is never leased out from under its worker), short
  // enough that the leases the kill leaves behind run out within the test.
  LATCH_JOB_LEASE_MS: '8000',
};

/** The receiver: verifies, dedupes on webhook-id, and (while `holding`) answers each request only after HOLD_MS. */
function startReceiver() {
  const state = {
    secret: '',
    holding: true,
    /** Bumped at the kill: a request held before it is never answered, so it is surely cut off. */
    generation: 0,
    /** Requests received and not answered yet. */
    inFlight: 0,
    requests: 0,
    /** Deduped: webhook-id → the user id of its user.created event. */
    events: new Map<string, string>(),
    deliveriesById: new Map<string, number>(),
    rejected: [] as string[],
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests++;
      const body = Buffer.concat(chunks).toString('utf8');
      let event: { type: string; data: { id: string } };
      try {
        event = new Webhook(state.secret).verify(body, req.headers as Record<string, string>) as typeof event;
      } catch (error) {
        state.rejected.push(error instanceof Error ? error.message : String(error));
        res.writeHead(400).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      state.deliveriesById.set(id, (state.deliveriesById.get(id) ?? 0) + 1);
      if (event.type === 'user.created') state.events.set(id, event.data.id);
      const generation = state.generation;
      const answer = () => {
        state.inFlight--;
        if (generation === state.generation && !res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      state.inFlight++;
      if (state.holding) setTimeout(answer, HOLD_MS);
      else answer();
    });
  });
  return {
    state,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      });
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    },
  };
}

async function killMidDelivery(database: Record<string, string>) {
  const env = { ...SERVER_ENV, ...database };
  const started = Date.now();
  const phases: string[] = [];
  const phase = (name: string) => {
    phases.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)}s`);
    console.info(`[webhooks kill -9] ${phases.at(-1)}`);
  };
  const receiver = startReceiver();
  const receiverUrl = await receiver.listen();
  let server = await startServer(env, cleanups);
  phase('started');
  const project = await setUpProject(server.url, 'Webhooks kill -9');
  const endpoint = await call(server.url, '/internal/webhooks/endpoints', {
    headers: project.admin(),
    body: { url: receiverUrl, event_types: ['user.created'] },
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  receiver.state.secret = endpoint.body.secret as string;

  // N events: N users, 4 at a time; every creation is answered 201 before the kill.
  const userIds: string[] = [];
  let next = 0;
  const creator = async () => {
    while (next < EVENTS) {
      next++;
      const res = await call(server.url, '/users', {
        headers: project.server(),
        body: { primary_email: `hooked-${randomBytes(4).toString('hex')}@example.com` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      userIds.push(res.body.id as string);
    }
  };
  await Promise.all(Array.from({ length: 4 }, creator));
  phase('users created');
  expect(userIds).toHaveLength(EVENTS);

  // Kill -9 while the receiver holds requests (sent, not answered: their jobs are leased).
  for (let waited = 0; receiver.state.inFlight === 0 && waited < 60_000; waited += 20) await sleep(20);
  receiver.state.generation++;
  const inFlightAtKill = receiver.state.inFlight;
  expect(inFlightAtKill, 'deliveries in flight at the kill').toBeGreaterThan(0);
  await killHard(server);
  phase('killed');
  const deliveredAtKill = receiver.state.events.size;
  expect(deliveredAtKill, 'events the receiver had seen at the kill').toBeLessThan(EVENTS);

  receiver.state.holding = false;
  server = await startServer(env, cleanups);
  phase('restarted');
  try {
    for (let waited = 0; receiver.state.events.size < EVENTS && waited < 90_000; waited += 250) await sleep(250);
    phase('all received');
    expect(receiver.state.rejected, 'requests whose signature did not verify').toEqual([]);
    // At least once, deduped exactly once: the N events, naming exactly the N users.
    expect(receiver.state.events.size).toBe(EVENTS);
    expect(new Set(receiver.state.events.values())).toEqual(new Set(userIds));

    // And the log agrees: every delivery is sent once its resent attempt was answered.
    let log: { state: string }[] = [];
    for (let waited = 0; waited < 30_000; waited += 250) {
      const res = await call(server.url, `/internal/webhooks/endpoints/${endpoint.body.id}/deliveries?limit=200`, { headers: project.admin() });
      expect(res.status).toBe(200);
      log = res.body.items;
      if (log.length === EVENTS && log.every((d) => d.state === 'sent')) break;
      await sleep(250);
    }
    expect(log.map((d) => d.state)).toEqual(Array.from({ length: EVENTS }, () => 'sent'));
    phase('log all sent');
    // What was in flight at the kill came again, with the same webhook-id (once the leases ran out).
    const duplicates = [...receiver.state.deliveriesById.values()].filter((n) => n > 1).length;
    expect(duplicates, 'webhook-ids delivered more than once').toBeGreaterThanOrEqual(inFlightAtKill);
    const histogram: Record<number, number> = {};
    for (const n of receiver.state.deliveriesById.values()) histogram[n] = (histogram[n] ?? 0) + 1;
    return { inFlightAtKill, deliveredAtKill, duplicates, requests: receiver.state.requests, histogram, phases };
  } finally {
    await killHard(server);
  }
}

describe('webhooks: kill -9 mid-delivery', () => {
  // Most of the time is two start-ups of `node --import tsx server/main.ts` (and, on PGlite, the
  // migrations of a fresh data folder): about 25 s of the test itself on an idle machine.
  it('PGlite on disk: every event arrives after a restart (the receiver dedupes)', { timeout: 400_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'latch-webhooks-kill-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const result = await killMidDelivery({ DATABASE_URL: '', LATCH_DATA_DIR: dir });
    console.info(`[webhooks kill -9] PGlite: ${JSON.stringify(result)}`);
  });

  it.skipIf(!postgresUp)('PostgreSQL: every event arrives after a restart (the receiver dedupes)', { timeout: 300_000 }, async () => {
    const { url } = await freshPostgresDatabase(ADMIN_URL, 'latch_webhooks_kill', cleanups);
    const result = await killMidDelivery({ DATABASE_URL: url });
    console.info(`[webhooks kill -9] PostgreSQL: ${JSON.stringify(result)}`);
  });
});
