import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { precompiled } from '../../db/precompiled.js';

export const ENDPOINT_COLUMNS = [
  'id',
  'url',
  'description',
  'event_types',
  'enabled',
  'disabled_reason',
  'secret_sealed',
  'previous_secret_sealed',
  'previous_secret_expires_at',
  'failing_since',
  'created_at',
] as const;

export interface EndpointRow {
  id: string;
  url: string;
  description: string;
  event_types: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
}

export async function insertEndpoint(
  db: Executor,
  row: { tenancy_id: string; id: string; url: string; description: string; event_types: string | null; enabled: boolean; secret_sealed: string },
): Promise<EndpointRow> {
  forgetEnabledEndpoints(db);
  return db.insertInto('webhook_endpoints').values(row).returning(ENDPOINT_COLUMNS).executeTakeFirstOrThrow();
}

export async function listEndpoints(db: Executor, tenancyId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('tenancy_id', '=', tenancyId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1000)
    .execute();
}

type EnabledEndpoint = { id: string; event_types: string | null };

/**
 * The enabled endpoints a transaction has already read, per tenancy: a sign-up emits user.created
 * and session.created in one transaction, and asking twice found the same rows. Only a transaction
 * keeps them (it ends with the request); the writes below forget what their transaction read.
 */
const readInTransaction = new WeakMap<Executor, Map<string, Promise<EnabledEndpoint[]>>>();

function forgetEnabledEndpoints(db: Executor): void {
  readInTransaction.delete(db);
}

/** The endpoints an event goes to: enabled ones (their event filter is applied by the caller). */
export async function listEnabledEndpoints(db: Executor, tenancyId: string): Promise<EnabledEndpoint[]> {
  if (!db.isTransaction) return enabledEndpointsQuery(db, tenancyId);
  let read = readInTransaction.get(db);
  if (!read) readInTransaction.set(db, (read = new Map()));
  let rows = read.get(tenancyId);
  if (!rows) {
    rows = enabledEndpointsQuery(db, tenancyId);
    read.set(tenancyId, rows);
    // A failed read is not kept (the transaction is aborted anyway; nothing should reuse it).
    rows.catch(() => read.delete(tenancyId));
  }
  return rows;
}

// Precompiled: every sign-in and sign-up asks it (session.created, user.created), mostly to find none.
const enabledEndpointsQuery = precompiled((db, tenancyId: string) =>
  db.selectFrom('webhook_endpoints').select(['id', 'event_types']).where('tenancy_id', '=', tenancyId).where('enabled', '=', sql.lit(true)),
);

export async function findEndpoint(db: Executor, tenancyId: string, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
}

export async function updateEndpoint(
  db: Executor,
  tenancyId: string,
  id: string,
  patch: Partial<Omit<EndpointRow, 'id' | 'created_at'>>,
): Promise<EndpointRow | undefined> {
  forgetEnabledEndpoints(db);
  return db.updateTable('webhook_endpoints').set(patch).where('tenancy_id', '=', tenancyId).where('id', '=', id).returning(ENDPOINT_COLUMNS).executeTakeFirst();
}

export async function deleteEndpoint(db: Executor, tenancyId: string, id: string): Promise<boolean> {
  forgetEnabledEndpoints(db);
  const result = await db.deleteFrom('webhook_endpoints').where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertMessage(db: Executor, row: { tenancy_id: string; id: string; event_type: string; payload: string }): Promise<void> {
  await db.insertInto('webhook_messages').values(row).execute();
}

export async function insertDelivery(db: Executor, row: { tenancy_id: string; id: string; message_id: string; endpoint_id: string }): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/** Everything one delivery attempt needs, tenancy-scoped. */
export async function findDeliveryToSend(db: Executor, tenancyId: string, deliveryId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_messages as m', (join) => join.onRef('m.tenancy_id', '=', 'd.tenancy_id').onRef('m.id', '=', 'd.message_id'))
    .innerJoin('webhook_endpoints as e', (join) => join.onRef('e.tenancy_id', '=', 'd.tenancy_id').onRef('e.id', '=', 'd.endpoint_id'))
    .select([
      'd.id',
      'd.state',
      'd.message_id',
      'm.payload',
      'm.created_at as message_created_at',
      'e.id as endpoint_id',
      'e.url',
      'e.enabled',
      'e.secret_sealed',
      'e.previous_secret_sealed',
      'e.previous_secret_expires_at',
    ])
    .where('d.tenancy_id', '=', tenancyId)
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

/** What the last attempt saw (written by the attempt itself, so the log shows it while retries wait). */
export async function recordAttempt(
  db: Executor,
  tenancyId: string,
  deliveryId: string,
  attempt: { attempts: number; last_status: number | null; last_error: string | null; last_response_snippet: string | null },
): Promise<void> {
  await db.updateTable('webhook_deliveries').set(attempt).where('tenancy_id', '=', tenancyId).where('id', '=', deliveryId).execute();
}

export async function settleDelivery(db: Executor, tenancyId: string, deliveryId: string, state: 'pending' | 'sent' | 'dead', attempts: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ state, attempts, ...(state === 'sent' ? { sent_at: sql<Date>`now()`, last_error: null } : {}) })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', deliveryId)
    .execute();
}

export async function endpointOfDelivery(db: Executor, tenancyId: string, deliveryId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('endpoint_id')
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  return row?.endpoint_id;
}

export async function markEndpointHealthy(db: Executor, tenancyId: string, endpointId: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('tenancy_id', '=', tenancyId).where('id', '=', endpointId).execute();
}

/** Starts the endpoint's failing run if none is running; disables it once the run is older than `disableAfterMs`. */
export async function markEndpointFailing(db: Executor, tenancyId: string, endpointId: string, disableAfterMs: number, reason: string): Promise<boolean> {
  forgetEnabledEndpoints(db);
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: sql<Date>`coalesce(failing_since, now())` })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', endpointId)
    .execute();
  const disabled = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: reason })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', endpointId)
    .where('enabled', '=', true)
    .where('failing_since', '<', new Date(Date.now() - disableAfterMs))
    .executeTakeFirst();
  return Number(disabled.numUpdatedRows) > 0;
}

export const DELIVERY_COLUMNS = [
  'd.id',
  'd.message_id',
  'd.endpoint_id',
  'm.event_type',
  'd.state',
  'd.attempts',
  'd.last_status',
  'd.last_error',
  'd.last_response_snippet',
  'd.created_at',
  'd.sent_at',
] as const;

/** An endpoint's deliveries, each with its message's event type. */
function endpointDeliveries(db: Executor, tenancyId: string, endpointId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_messages as m', (join) => join.onRef('m.tenancy_id', '=', 'd.tenancy_id').onRef('m.id', '=', 'd.message_id'))
    .select(DELIVERY_COLUMNS)
    .where('d.tenancy_id', '=', tenancyId)
    .where('d.endpoint_id', '=', endpointId);
}

export async function listDeliveries(db: Executor, tenancyId: string, endpointId: string, limit: number) {
  return endpointDeliveries(db, tenancyId, endpointId).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

export async function findDelivery(db: Executor, tenancyId: string, endpointId: string, deliveryId: string) {
  return endpointDeliveries(db, tenancyId, endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
}

/** The messages since `since` an endpoint would have received (its filter is applied by the caller). */
export async function listMessagesSince(db: Executor, tenancyId: string, since: Date, limit: number): Promise<{ id: string; event_type: string }[]> {
  return db
    .selectFrom('webhook_messages')
    .select(['id', 'event_type'])
    .where('tenancy_id', '=', tenancyId)
    .where('created_at', '>=', since)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * What the email about a disabled endpoint needs: the endpoint's URL, its project, the internal
 * project (the sender: owners are its users) and the owners' verified primary addresses (members
 * of the project's owner team in the internal project; an unproven address is never written to,
 * so nobody can point these emails at someone else's inbox).
 */
export async function findDisabledEndpointNotice(db: Executor, tenancyId: string, endpointId: string) {
  const { rows } = await sql<{
    url: string;
    project_id: string;
    project_display_name: string;
    internal_tenancy_id: string;
    internal_display_name: string;
    internal_logo_url: string | null;
    internal_full_logo_url: string | null;
    owner_email: string | null;
  }>`
    SELECT e.url, p.id AS project_id, p.display_name AS project_display_name,
           it.id AS internal_tenancy_id, ip.display_name AS internal_display_name,
           ip.logo_url AS internal_logo_url, ip.full_logo_url AS internal_full_logo_url,
           u.primary_email AS owner_email
    FROM webhook_endpoints e
    JOIN tenancies t ON t.id = e.tenancy_id
    JOIN projects p ON p.id = t.project_id
    JOIN tenancies it ON it.project_id = 'internal' AND it.branch_id = 'main'
    JOIN projects ip ON ip.id = 'internal'
    LEFT JOIN team_members m ON m.tenancy_id = it.id AND m.team_id = p.owner_team_id
    LEFT JOIN users u ON u.tenancy_id = it.id AND u.id = m.user_id AND u.primary_email_verified AND u.primary_email IS NOT NULL
    WHERE e.tenancy_id = ${tenancyId} AND e.id = ${endpointId}
    ORDER BY u.primary_email
  `.execute(db);
  const first = rows[0];
  if (!first) return undefined;
  return {
    url: first.url,
    projectId: first.project_id,
    projectDisplayName: first.project_display_name,
    internal: {
      tenancyId: first.internal_tenancy_id,
      displayName: first.internal_display_name,
      logoUrl: first.internal_logo_url,
      fullLogoUrl: first.internal_full_logo_url,
    },
    ownerEmails: [...new Set(rows.flatMap((row) => (row.owner_email ? [row.owner_email] : [])))],
  };
}
