import { beforeAll, describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../server/test/harness.js';
import { QueryObserver } from '@tanstack/query-core';
import { CACHE_FETCH_THROTTLE_MS, CACHE_GC_TIME_MS, type QueryState, createQueryClient, defineQuery } from './cache.js';
import { ClientApp, type ClientUser } from './client-app.js';
import { ServerApp } from './server-app.js';
import { useProxy } from './test/proxy.js';

const h = useHarness();
const proxy = useProxy(h);
let project: ProjectFixture;
beforeAll(async () => {
  project = await h.createProject();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const clientApp = () => new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: proxy.url, tokenStore: 'memory' });

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('the read cache (@tanstack/query-core)', () => {
  it('keeps data while subscribed and for 5 s after the last subscriber leaves, then fetches again', async () => {
    const app = clientApp();
    await app.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    const getMe = () => proxy.count('users.getMe');
    const start = getMe();

    const seen: QueryState<ClientUser | null>[] = [];
    const stop = app.subscribe(
      () => app.currentUserQuery(),
      (state) => seen.push(state),
    );
    expect(seen[0]?.status).toBe('pending');
    await until(() => seen.at(-1)?.status === 'success');
    expect(getMe()).toBe(start + 1);

    // Served from the cache while subscribed: no request.
    expect((await app.getUser())?.id).toBe(seen.at(-1)?.data?.id);
    expect(getMe()).toBe(start + 1);

    // A mutation updates what subscribers see.
    await app.updateUser({ display_name: 'Cached Ann' });
    await until(() => seen.at(-1)?.data?.display_name === 'Cached Ann');

    stop();
    await sleep(CACHE_GC_TIME_MS - 1500);
    expect((await app.getUser())?.display_name).toBe('Cached Ann');
    expect(getMe()).toBe(start + 1); // still cached 3.5 s after the last subscriber left

    await sleep(1700);
    expect((await app.getUser())?.display_name).toBe('Cached Ann');
    expect(getMe()).toBe(start + 2); // gone 5 s after: fetched again
  });

  it('a subscription follows the session: sign-out shows null, sign-in the new user', async () => {
    const app = clientApp();
    const email = h.uniqueEmail();
    await app.signUpWithPassword({ email, password: 'correct-horse-1' });
    const seen: QueryState<ClientUser | null>[] = [];
    const stop = app.subscribe(
      () => app.currentUserQuery(),
      (state) => seen.push(state),
    );
    await until(() => seen.at(-1)?.data?.primary_email === email);
    await app.signOut();
    await until(() => seen.at(-1)?.status === 'success' && seen.at(-1)?.data === null);
    await app.signInWithPassword({ email, password: 'correct-horse-1' });
    await until(() => seen.at(-1)?.data?.primary_email === email);
    stop();
  });

  it('server mutations invalidate cached lists', async () => {
    const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: proxy.url });
    const query = { query: 'cache-list' };
    const before = await server.listUsers(query);
    const lists = proxy.count('users.list');
    await server.listUsers(query);
    expect(proxy.count('users.list')).toBe(lists); // cached
    const created = await server.createUser({ primary_email: h.uniqueEmail('cache-list'), primary_email_auth_enabled: true, password: 'correct-horse-1' });
    const after = await server.listUsers(query);
    expect(proxy.count('users.list')).toBe(lists + 1);
    expect(after.items.length).toBe(before.items.length + 1);
    expect(after.items.some((u) => u.id === created.id)).toBe(true);

    expect((await server.getUserById(created.id))?.id).toBe(created.id);
    await server.updateUserById(created.id, { display_name: 'Renamed' });
    expect((await server.getUserById(created.id))?.display_name).toBe('Renamed');
    await server.deleteUserById(created.id);
    expect(await server.getUserById(created.id)).toBeNull();
  });
});

describe('fetch throttle (spec: concurrency 1, throttle 300 ms)', () => {
  it('starts fetches of one read at least 300 ms apart, sends a burst of invalidations as few requests, and never delays other reads', async () => {
    const client = createQueryClient();
    const starts: number[] = [];
    let otherStarts = 0;
    const read = defineQuery(['throttled'], async () => {
      starts.push(Date.now());
      await sleep(5);
      return starts.length;
    });
    const other = defineQuery(['other'], async () => ++otherStarts);
    const observer = new QueryObserver(client, read);
    const stop = observer.subscribe(() => {});
    await until(() => starts.length === 1);
    // Ten invalidations within ~50 ms: each cancels the refetch still waiting for its turn.
    for (let i = 0; i < 10; i++) {
      void client.invalidateQueries({ queryKey: ['throttled'] });
      await sleep(5);
    }
    // Another read is not held back by this one's throttle.
    const before = Date.now();
    await client.fetchQuery(other);
    expect(Date.now() - before).toBeLessThan(CACHE_FETCH_THROTTLE_MS);
    await until(() => observer.getCurrentResult().data === 2 && !observer.getCurrentResult().isFetching, 3000);
    await sleep(CACHE_FETCH_THROTTLE_MS + 50);
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(CACHE_FETCH_THROTTLE_MS - 1);
    stop();
    client.clear();
  });
});
