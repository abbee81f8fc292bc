import { describe, expect, it } from 'vitest';
import type { ProjectForRequest } from '../domains/projects/queries.js';
import { PROJECT_AUTH_CACHE_TTL_MS, ProjectAuthCache } from './project-auth-cache.js';

const row = (id: string) => ({ id, tenancy_id: `t-${id}`, key_valid: true, key_expires_at: null }) as unknown as ProjectForRequest;

function clockedCache(ttl = 5_000) {
  const clock = { now: 1_000_000 };
  return { clock, cache: new ProjectAuthCache(ttl, () => clock.now) };
}

describe('ProjectAuthCache', () => {
  it('bounds staleness to a few seconds', () => {
    expect(PROJECT_AUTH_CACHE_TTL_MS).toBeGreaterThan(0);
    expect(PROJECT_AUTH_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
  });

  it('keys on project, branch, key column and key hash', () => {
    const keys = new Set([
      ProjectAuthCache.key('p', 'main', null),
      ProjectAuthCache.key('p', 'dev', null),
      ProjectAuthCache.key('p', 'main', { column: 'publishable_client_key_hash', hash: 'h' }),
      ProjectAuthCache.key('p', 'main', { column: 'secret_server_key_hash', hash: 'h' }),
      ProjectAuthCache.key('p', 'main', { column: 'secret_server_key_hash', hash: 'h2' }),
      ProjectAuthCache.key('q', 'main', { column: 'secret_server_key_hash', hash: 'h' }),
    ]);
    expect(keys.size).toBe(6);
  });

  it('answers until the TTL has passed, then forgets', () => {
    const { clock, cache } = clockedCache(5_000);
    cache.set('k', row('a'), cache.currentGeneration, null);
    clock.now += 4_999;
    expect(cache.get('k')?.id).toBe('a');
    clock.now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("never outlives the key's own expiry", () => {
    const { clock, cache } = clockedCache(5_000);
    cache.set('k', row('a'), cache.currentGeneration, new Date(clock.now + 1_000));
    clock.now += 999;
    expect(cache.get('k')?.id).toBe('a');
    clock.now += 1;
    expect(cache.get('k')).toBeUndefined();
    // Already expired: not stored at all.
    cache.set('k2', row('b'), cache.currentGeneration, new Date(clock.now - 1));
    expect(cache.get('k2')).toBeUndefined();
  });

  it('drops everything on invalidate, and refuses an answer looked up before the invalidation', () => {
    const { cache } = clockedCache();
    cache.set('k', row('a'), cache.currentGeneration, null);
    const startedBeforeWrite = cache.currentGeneration;
    cache.invalidate();
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', row('old'), startedBeforeWrite, null);
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', row('new'), cache.currentGeneration, null);
    expect(cache.get('k')?.id).toBe('new');
  });

  it('stays bounded, evicting the oldest entries', () => {
    const { cache } = clockedCache();
    for (let i = 0; i < 1_500; i++) cache.set(`k${i}`, row(String(i)), cache.currentGeneration, null);
    expect(cache.size).toBe(1_000);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k1499')?.id).toBe('1499');
  });
});
