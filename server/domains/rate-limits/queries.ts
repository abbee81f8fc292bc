import { type Compilable, type ExpressionBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { precompiled } from '../../db/precompiled.js';

/**
 * The rate_limits table: one fixed-window counter per (bucket, key). Keys carry the tenancy id
 * themselves (service.ts builds them), so these functions take none: a counter is not tenancy
 * data, and a limit may one day span projects. Every time comes from the database's clock, so
 * instances with skewed clocks still agree on when a window ends.
 */

export interface CounterKey {
  bucket: string;
  key: string;
}

export interface CounterState extends CounterKey {
  count: number;
  /** Whole seconds until the window ends (at least 1). */
  retry_after_seconds: number;
}

const retryAfter = sql<number>`greatest(1, ceil(extract(epoch from window_ends_at - now())))::integer`.as('retry_after_seconds');

/**
 * The order every statement locks counters in: a sign-in's buckets in the order its stages count
 * them (hitCountersInStages holds the first stage's rows while it counts the next), then any other
 * bucket by name, then by key. Hits and refunds sort by it, so no two statements wait on each
 * other's rows in opposite orders.
 */
const LOCK_RANK: Record<string, number> = { sign_in_email_ip: 0, sign_in_email: 1, sign_in_ip: 2, password_hash_ip: 3 };
const rank = (bucket: string) => LOCK_RANK[bucket] ?? 4;

function byKey(a: CounterKey, b: CounterKey): number {
  if (a.bucket !== b.bucket) return rank(a.bucket) - rank(b.bucket) || (a.bucket < b.bucket ? -1 : 1);
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function anyOf(keys: readonly CounterKey[]) {
  return (eb: ExpressionBuilder<DB, 'rate_limits'>) => eb.or(keys.map((k) => eb.and([eb('bucket', '=', k.bucket), eb('key', '=', k.key)])));
}

/**
 * Adds one to each counter, atomically, in one statement (INSERT … ON CONFLICT DO UPDATE … RETURNING):
 * a missing or expired window starts again at 1 and ends `windowSeconds` from now; a live one
 * counts on. Concurrent hits on one counter serialize on its row, so none is lost. Rows are
 * written in (bucket, key) order (byKey's lock order), so two requests hitting the same counters lock them in the same
 * order and cannot deadlock. Keys must be distinct.
 */
export async function hitCounters(db: Executor, hits: readonly (CounterKey & { windowSeconds: number })[]): Promise<CounterState[]> {
  if (hits.length === 0) return [];
  const sorted = [...hits].sort(byKey);
  const params = sorted.flatMap((hit) => [hit.bucket, hit.key, 1, hit.windowSeconds]);
  // Every sign-in and sign-up hits 1 to 3 counters: those shapes run precompiled (prepared on PostgreSQL).
  if (sorted.length <= PRECOMPILED_HITS) return hitQueries[sorted.length - 1]!(db, ...params);
  return hitStatement(db, params).execute();
}

const PRECOMPILED_HITS = 3;

/** The hit statement; its parameters are (bucket, key, 1, windowSeconds) per counter. */
function hitStatement(db: Executor, params: readonly unknown[]) {
  const rows = [];
  for (let i = 0; i < params.length; i += 4) {
    rows.push({
      bucket: params[i] as string,
      key: params[i + 1] as string,
      count: params[i + 2] as number,
      window_ends_at: sql<Date>`now() + ${params[i + 3] as number}::integer * interval '1 second'`,
    });
  }
  return db
    .insertInto('rate_limits')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['bucket', 'key']).doUpdateSet({
        count: sql<number>`CASE WHEN rate_limits.window_ends_at <= now() THEN 1 ELSE rate_limits.count + 1 END`,
        window_ends_at: sql<Date>`CASE WHEN rate_limits.window_ends_at <= now() THEN excluded.window_ends_at ELSE rate_limits.window_ends_at END`,
      }),
    )
    .returning(['bucket', 'key', 'count', retryAfter]);
}

const hitQueries = Array.from({ length: PRECOMPILED_HITS }, () => precompiled((db, ...params: unknown[]) => hitStatement(db, params)));

/** A counter of a staged hit, with the maximum past which the later stages are not counted. */
export interface StagedHit extends CounterKey {
  windowSeconds: number;
  max: number;
}

/**
 * Counts stage after stage in one statement: each stage's counters (hitCounters' upsert) only
 * when no counter of the stages before it went past its maximum. Returns the counters that were
 * counted, each with its stage. One round trip where a sign-in's chained limits took three. Keys
 * must be distinct; callers give the stages in lockOrder (below), as every other hit and refund
 * locks them, so no two statements wait on each other's rows.
 */
export async function hitCountersInStages(db: Executor, stages: readonly (readonly StagedHit[])[]): Promise<(CounterState & { stage: number })[]> {
  // An empty stage (a limit switched off, no client IP) counts nothing and stops nothing; the
  // answer still numbers the stages as given.
  const live = stages.flatMap((stage, index) => (stage.length > 0 ? [{ index, hits: [...stage].sort(byKey) }] : []));
  if (live.length === 0) return [];
  const params = live.flatMap((stage) => stage.hits.flatMap((hit) => [hit.bucket, hit.key, hit.windowSeconds, hit.max]));
  const sizes = live.map((stage) => stage.hits.length);
  return (await stagedQuery(db, sizes, params)).map((row) => ({ ...row, stage: live[row.stage]!.index }));
}

/**
 * A statement whose SQL depends on how many rows it takes (its VALUES lists), precompiled once per
 * shape (the row counts): a sign-in's counters come in one or two shapes. `build` gets the shape and
 * the parameters in their order, as precompiled requires.
 */
function precompiledPerShape<R>(build: (db: Executor, shape: readonly number[], params: readonly unknown[]) => Compilable<R>) {
  const byShape = new Map<string, (db: Executor, ...params: unknown[]) => Promise<R[]>>();
  return (db: Executor, shape: readonly number[], params: readonly unknown[]): Promise<R[]> => {
    const key = shape.join(',');
    let query = byShape.get(key);
    if (!query) {
      query = precompiled((db, ...values: unknown[]) => build(db, shape, values));
      byShape.set(key, query);
    }
    return query(db, ...params);
  };
}

/** The staged upserts (shape: counters per stage). */
const stagedQuery = precompiledPerShape((db, sizes, params) => {
  let at = 0;
  const ctes = [];
  const results = [];
  for (const [stage, size] of sizes.entries()) {
    const rows = [];
    for (let i = 0; i < size; i++, at += 4) {
      rows.push(sql`(${sql.lit(i)}::integer, ${params[at]}::text, ${params[at + 1]}::text, ${params[at + 2]}::integer, ${params[at + 3]}::integer)`);
    }
    ctes.push(sql`${sql.raw(`v${stage}`)}(ord, bucket, key, seconds, max) as (values ${sql.join(rows)})`);
    // The stage before was counted (it did not meet an earlier refusal) and went past no maximum.
    const earlierPassed =
      stage === 0
        ? sql``
        : sql`where exists (select 1 from ${sql.raw(`s${stage - 1}`)})
            and not exists (select 1 from ${sql.raw(`s${stage - 1}`)} s join ${sql.raw(`v${stage - 1}`)} v
              on v.bucket = s.bucket and v.key = s.key where s.count > v.max)`;
    ctes.push(sql`${sql.raw(`s${stage}`)} as (
      insert into rate_limits (bucket, key, count, window_ends_at)
      select v.bucket, v.key, 1, now() + v.seconds * interval '1 second' from ${sql.raw(`v${stage}`)} v ${earlierPassed}
      order by v.ord
      on conflict (bucket, key) do update set
        count = case when rate_limits.window_ends_at <= now() then 1 else rate_limits.count + 1 end,
        window_ends_at = case when rate_limits.window_ends_at <= now() then excluded.window_ends_at else rate_limits.window_ends_at end
      returning bucket, key, count, greatest(1, ceil(extract(epoch from window_ends_at - now())))::integer as retry_after_seconds
    )`);
    results.push(sql`select bucket, key, count, retry_after_seconds, ${sql.lit(stage)}::integer as stage from ${sql.raw(`s${stage}`)}`);
  }
  const statement = sql<CounterState & { stage: number }>`with ${sql.join(ctes)} ${sql.join(results, sql` union all `)}`;
  return { compile: () => statement.compile(db) };
});

/** The live counters among these keys (an expired window counts as zero and is not returned). */
export async function readCounters(db: Executor, keys: readonly CounterKey[]): Promise<CounterState[]> {
  if (keys.length === 0) return [];
  // A sign-up's address-probe check reads one counter, an API key check one or two.
  return readQuery(
    db,
    [keys.length],
    keys.flatMap((k) => [k.bucket, k.key]),
  );
}

/** The read (shape: the number of counters; parameters bucket, key per counter). */
const readQuery = precompiledPerShape((db, [size = 0], params) =>
  db
    .selectFrom('rate_limits')
    .select(['bucket', 'key', 'count', retryAfter])
    .where(anyOf(Array.from({ length: size }, (_, i) => ({ bucket: params[2 * i] as string, key: params[2 * i + 1] as string }))))
    .where('window_ends_at', '>', sql<Date>`now()`),
);

/**
 * Takes one back from each live counter (an attempt that turned out not to count), never below
 * zero, in one statement. The rows are locked first in hitCounters' (bucket, key) order (the
 * `ord` column carries it; the database's collation may sort the keys otherwise): a plain UPDATE …
 * OR … locked them in scan order and deadlocked against concurrent hits (seen under 50 concurrent
 * sign-ins).
 */
export async function unhitCounters(db: Executor, keys: readonly CounterKey[]): Promise<void> {
  if (keys.length === 0) return;
  await unhitQuery(
    db,
    [keys.length],
    [...keys].sort(byKey).flatMap((k) => [k.bucket, k.key]),
  );
}

/** The refund (shape: the number of counters; every successful sign-in refunds one shape). */
const unhitQuery = precompiledPerShape((db, [size = 0], params) => {
  const rows = Array.from({ length: size }, (_, i) => sql`(${sql.lit(i)}::integer, ${params[2 * i]}::text, ${params[2 * i + 1]}::text)`);
  const statement = sql`with locked as (
      select r.bucket, r.key from (values ${sql.join(rows)}) as v(ord, bucket, key)
      join rate_limits r on r.bucket = v.bucket and r.key = v.key
      where r.window_ends_at > now() and r.count > 0
      order by v.ord
      for update of r
    )
    update rate_limits set count = rate_limits.count - 1 from locked
    where rate_limits.bucket = locked.bucket and rate_limits.key = locked.key`;
  return { compile: () => statement.compile(db) };
});

/**
 * Deletes the counters of one bucket whose key is `key` or starts with `keyPrefix` (clearing an
 * address's sign-in failures). Scans that bucket's rows; called only on rare events (a reset).
 */
export async function deleteCounters(db: Executor, bucket: string, match: { key: string } | { keyPrefix: string }): Promise<void> {
  let query = db.deleteFrom('rate_limits').where('bucket', '=', bucket);
  query = 'key' in match ? query.where('key', '=', match.key) : query.where(sql<string>`left(key, ${match.keyPrefix.length}::integer)`, '=', match.keyPrefix);
  await query.execute();
}

/**
 * Deletes up to `limit` expired counters; returns how many. The outer condition is repeated on
 * purpose: a row revived by a concurrent hit after the subquery saw it expired is re-checked and
 * kept.
 */
export async function deleteExpiredCounters(db: Executor, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('rate_limits')
    .where((eb) =>
      eb(
        eb.refTuple('bucket', 'key'),
        'in',
        eb
          .selectFrom('rate_limits as expired')
          .select(['expired.bucket', 'expired.key'])
          .where('expired.window_ends_at', '<=', sql<Date>`now()`)
          .limit(limit)
          .$asTuple('bucket', 'key'),
      ),
    )
    .where('window_ends_at', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
