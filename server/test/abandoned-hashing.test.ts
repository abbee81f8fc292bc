import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../env.js';
import { type ProjectFixture, type UserSession, useHarness } from './harness.js';
import { waitFor } from './wait-for.js';

/**
 * A sign-in whose client disconnects while its password check waits for a hashing turn is dropped
 * unverified (crypto/passwords.ts, auth.clientGone): the cores are not spent on an answer nobody
 * reads, and the address is not charged a failed attempt for a check that never ran. One hashing
 * slot, so the blockers' checks keep the abandoned ones waiting; 3 failures per (email, IP), so
 * abandoned sign-ins charged as failures would lock the address out.
 */

const PASSWORD = 'correct-horse-battery';
const h = useHarness({
  passwordHashConcurrency: 1,
  rateLimits: { ...DEFAULT_RATE_LIMITS, signInPerEmailIp: 3, signUpsPerIp: 100_000, passwordHashesPerIp: 100_000 },
});

let project: ProjectFixture;
let target: UserSession;
const blockers: UserSession[] = [];
beforeAll(async () => {
  project = await h.createProject();
  target = await h.signUpUser(project, { password: PASSWORD });
  for (let i = 0; i < 8; i++) blockers.push(await h.signUpUser(project, { password: PASSWORD }));
});

async function jobCounts(): Promise<{ run: number; dropped: number }> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const read = (outcome: string) => Number(new RegExp(`^latch_password_jobs_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { run: read('run'), dropped: read('dropped') };
}

/** Sends a sign-in over its own socket and destroys the socket after `afterMs`, before any answer. */
function abandonedSignIn(email: string, afterMs: number): Promise<void> {
  const body = JSON.stringify({ email, password: PASSWORD });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  for (const [key, value] of Object.entries(project.client())) if (value !== undefined) headers[key] = value;
  return new Promise((resolve) => {
    const req = http.request(`${h.url}/api/v1/auth/password/sign-in`, { method: 'POST', headers, agent: false });
    req.on('error', () => resolve());
    req.on('response', () => resolve()); // not expected: the check waits behind the blockers
    req.end(body, () => setTimeout(() => (req.destroy(), resolve()), afterMs));
  });
}

describe('a client that gives up while its password check waits', () => {
  it('costs no hash, and its address is not charged a failed attempt', async () => {
    const before = await jobCounts();
    expect(before.run).toBeGreaterThan(0);
    // Eight correct sign-ins hold the one slot (one hash after another) while eight sign-ins of the
    // target address queue behind them and are abandoned.
    const live = blockers.map((user) => h.post('/auth/password/sign-in', { email: user.email, password: PASSWORD }, project.client()));
    // The blockers first: once one is hashing, the others are queued or on their way.
    await waitFor('a blocker hashing', async () => (await jobCounts()).run > before.run, 10_000);
    await Promise.all(Array.from({ length: 8 }, () => abandonedSignIn(target.email, 5)));
    for (const res of await Promise.all(live)) expect(res.status).toBe(200);
    // Every abandoned call has reached its turn (or arrived after its client left) and been dropped.
    await waitFor('three dropped checks', async () => (await jobCounts()).dropped - before.dropped >= 3, 10_000);
    let settled = await jobCounts();
    await waitFor('the counts to settle', async () => {
      const now = await jobCounts();
      const same = now.run === settled.run && now.dropped === settled.dropped;
      settled = now;
      return same;
    });
    expect(settled.run - before.run).toBeGreaterThanOrEqual(8);
    // What ran are the blockers' checks and at most the few abandoned calls whose turn came before their client left.
    expect(settled.run - before.run + (settled.dropped - before.dropped)).toBeLessThanOrEqual(16);
    expect(settled.dropped - before.dropped).toBeGreaterThanOrEqual(3);
    // Three or more dropped checks charged as failures would have locked the address (3 per email and IP).
    const after = await h.post('/auth/password/sign-in', { email: target.email, password: PASSWORD }, project.client());
    expect(after.status).toBe(200);
  });
});
