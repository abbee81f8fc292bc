import { beforeAll, describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../server/test/harness.js';
import { AdminApp } from './admin-app.js';
import { KnownErrors, LatchAssertionError } from './errors.js';
import { ServerApp } from './server-app.js';
import { useProxy } from './test/proxy.js';
import { MAX_BATCH_SIZE } from './transport.js';

/**
 * Batching (spec section 7, "batched calls"): the calls an app issues in the same tick travel in
 * one HTTP request, and each settles on its own — a failing call rejects with its own known error
 * while the others succeed — checked through a counting proxy in front of the real server.
 */
const h = useHarness();
const proxy = useProxy(h);
let project: ProjectFixture;
let server: ServerApp;
beforeAll(async () => {
  project = await h.createProject();
  server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: proxy.url });
});

describe('batched calls', () => {
  it('10 calls in one tick are 1 HTTP request; the one that fails does not fail the others', async () => {
    const taken = h.uniqueEmail('taken');
    await server.createUser({ primary_email: taken });
    const before = proxy.requests.length;
    const emails = Array.from({ length: MAX_BATCH_SIZE - 1 }, () => h.uniqueEmail('batch'));
    const results = await Promise.allSettled([...emails, taken].map((email) => server.createUser({ primary_email: email })));
    expect(proxy.requests.length - before).toBe(1);
    expect(proxy.requests.at(-1)?.procedure).toBe(Array(MAX_BATCH_SIZE).fill('users.create').join(','));
    expect(results.slice(0, -1).map((result) => result.status === 'fulfilled' && result.value.primary_email)).toEqual(emails);
    const failed = results.at(-1)!;
    expect(failed.status).toBe('rejected');
    expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(KnownErrors.UserWithEmailAlreadyExists);

    // Reads batch too, and more than the server's limit of 10 go in as many requests as needed.
    const reads = proxy.requests.length;
    const queries = [...emails, taken, 'nobody-here-1', 'nobody-here-2'];
    const lists = await Promise.all(queries.map((query) => server.listUsers({ query })));
    expect(lists.map((list) => list.items.length)).toEqual([...Array(MAX_BATCH_SIZE).fill(1), 0, 0]);
    expect(proxy.requests.length - reads).toBe(2);
  });
});

describe('AdminApp', () => {
  it("refuses a current project other than its own: 'The admin project id must match the app's project id.'", async () => {
    const other = await h.createProject();
    // A fetch (the app's own option) that sends the calls to the other project, as a misrouting proxy would.
    const misrouted: typeof fetch = (input, init) => {
      const headers = {
        ...(init?.headers as Record<string, string>),
        'x-latch-project-id': other.id,
        'x-latch-super-secret-admin-key': other.superSecretAdminKey,
      };
      return fetch(input, { ...init, headers });
    };
    const admin = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl: h.url, fetch: misrouted });
    await expect(admin.getProject()).rejects.toThrow(new LatchAssertionError("The admin project id must match the app's project id."));
    const own = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl: h.url });
    expect((await own.getProject()).id).toBe(project.id);
  });
});
