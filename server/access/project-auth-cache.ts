import type { ProjectForRequest } from '../domains/projects/queries.js';

/**
 * How long one instance may reuse a project + key lookup without asking the database again. It
 * bounds staleness across instances: a key revoked (or a project config changed) through another
 * instance keeps working here for at most this long. Writes made through this instance clear the
 * cache at once (`invalidate`), those of other instances as soon as their PostgreSQL notification
 * arrives (access/cache-signals.ts; milliseconds), and a key's own `expires_at` is never overstepped.
 */
export const PROJECT_AUTH_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 1_000;

interface Entry {
  row: ProjectForRequest;
  until: number;
}

/**
 * In-process cache of `findProjectForRequest`, keyed by (project, branch, key column, key hash).
 * Only complete successes are kept (project and tenancy found, key valid or no key sent): a wrong
 * or revoked key, an unknown project or branch always asks the database, so nothing negative goes
 * stale. Every authenticated request does this lookup, so it saves one round trip per request.
 */
export class ProjectAuthCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by `invalidate`: a lookup that started before a write must not store its old answer. */
  private generation = 0;
  /** Lookups under way, by generation and key (`shared`). */
  private readonly pending = new Map<string, Promise<ProjectForRequest | undefined>>();

  constructor(
    private readonly ttlMs = PROJECT_AUTH_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  static key(projectId: string, branchId: string, key: { column: string; hash: string } | null): string {
    return key ? `${projectId}\u0000${branchId}\u0000${key.column}\u0000${key.hash}` : `${projectId}\u0000${branchId}`;
  }

  get(cacheKey: string): ProjectForRequest | undefined {
    const entry = this.entries.get(cacheKey);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.row;
    this.entries.delete(cacheKey);
    return undefined;
  }

  /**
   * Runs `load` for a missed key, or joins the one already running for it (in this generation):
   * a burst of requests to a project whose entry is cold or just expired sends one query, not one
   * per request. Without it, 300 parallel sign-ups on a fresh project queued 300 lookups on the
   * database ahead of every other project's requests.
   */
  shared<T extends ProjectForRequest | undefined>(cacheKey: string, load: () => Promise<T>): Promise<T> {
    const key = `${this.generation}\u0000${cacheKey}`;
    let pending = this.pending.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = load().finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  /** The generation to pass back to `set`: read it before the database lookup starts. */
  get currentGeneration(): number {
    return this.generation;
  }

  set(cacheKey: string, row: ProjectForRequest, generation: number, keyExpiresAt: Date | null): void {
    if (generation !== this.generation) return;
    let until = this.now() + this.ttlMs;
    if (keyExpiresAt) until = Math.min(until, keyExpiresAt.getTime());
    if (until <= this.now()) return;
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(cacheKey)) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(cacheKey, { row, until });
  }

  /** Told of every `invalidate`, to pass it on to the other instances (access/cache-signals.ts). */
  private announce: (() => void) | null = null;

  onInvalidate(announce: () => void): void {
    this.announce = announce;
  }

  /** After any write to projects, tenancies or API keys (call it after the commit): here and, announced, on the other instances. */
  invalidate(): void {
    this.invalidateLocal();
    this.announce?.();
  }

  /** Clears this instance's entries only (another instance's write was announced). */
  invalidateLocal(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
