import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Harness, ProjectFixture } from './harness.js';
import type { Zoo } from './oauth-zoo.js';
import { authorizeUrl, startZooHarness, stopZooHarness } from './oauth-driver.js';
import { createHash, randomBytes } from 'node:crypto';

/**
 * The OAuth callback's time in Latch, without the provider's round trips (issue 15, "Figures for
 * the note"): GitHub against the zoo (token request, /user, /user/emails). The server reports its
 * own split in the callback's Server-Timing header (time waiting on the provider, and Latch's time:
 * the rest of the request); the test reads Latch's part per callback, and the wall time beside it.
 * Prints p50/p99; `npm run test:long -- server/test/oauth-callback.long.test.ts`.
 */
let zoo: Zoo;
let h: Harness;
let project: ProjectFixture;

beforeAll(async () => {
  ({ zoo, h } = await startZooHarness());
  project = await h.createProject({
    config: {
      allow_localhost: true,
      oauth_providers: [
        { id: 'github', enabled: true, type: 'standard', client_id: zoo.clients.github!.clientId, client_secret: zoo.clients.github!.clientSecret },
      ],
    },
  });
}, 120_000);
afterAll(() => stopZooHarness({ zoo, h }));

async function prepared(): Promise<{ url: string; cookie: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = await fetch(
    authorizeUrl(h, project, 'github', { codeChallenge: createHash('sha256').update(verifier).digest('base64url'), state: randomBytes(8).toString('hex') }),
    { redirect: 'manual' },
  );
  const cookie = authorize.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const consent = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
  return { url: consent.headers.get('location')!, cookie };
}

async function measure(flow: { url: string; cookie: string }): Promise<{ total: number; latch: number }> {
  const start = performance.now();
  const res = await fetch(flow.url, { redirect: 'manual', headers: { cookie: flow.cookie } });
  const total = performance.now() - start;
  expect(res.status).toBe(302);
  // The server's own split: the time it waited on the provider, and the rest (Server-Timing).
  const latch = /latch;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
  expect(latch).not.toBeNull();
  return { total, latch: Number(latch![1]) };
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

it('measures the callback at 1 and 20 connections', async () => {
  let n = 0;
  zoo.setUser('github', { id: '424242', email: 'bench@example.com' });
  const report: string[] = [];
  for (const connections of [1, 20]) {
    const samples: number[] = [];
    const totals: number[] = [];
    for (let round = 0; round < (connections === 1 ? 200 : 15); round++) {
      const flows = await Promise.all(Array.from({ length: connections }, () => prepared()));
      const results = await Promise.all(flows.map((f) => measure(f)));
      if (round < 2) continue; // warm-up
      for (const r of results) {
        totals.push(r.total);
        samples.push(r.latch);
        n++;
      }
    }
    report.push(
      `callback at ${connections} connection(s), n=${samples.length}: wall p50 ${pct(totals, 50).toFixed(1)} ms p99 ${pct(totals, 99).toFixed(1)} ms; ` +
        `Latch's own time p50 ${pct(samples, 50).toFixed(1)} ms p99 ${pct(samples, 99).toFixed(1)} ms`,
    );
  }
  console.log(`\n${report.join('\n')}\n`);
  expect(n).toBeGreaterThan(0);
});
