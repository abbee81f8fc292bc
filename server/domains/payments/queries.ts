import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { CustomerType } from '../../../contract/config/payments.js';

export interface CustomerKey {
  tenancyId: string;
  type: CustomerType;
  id: string;
}

export async function userExists(db: Executor, tenancyId: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('tenancy_id', '=', tenancyId).where('id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

export async function teamExists(db: Executor, tenancyId: string, teamId: string): Promise<boolean> {
  const row = await db.selectFrom('teams').select('id').where('tenancy_id', '=', tenancyId).where('id', '=', teamId).executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes the customer's lock: the row is created if missing, then locked FOR UPDATE until the
 * transaction ends. Every balance check-and-write and every grant runs under it.
 */
export async function lockCustomer(trx: Executor, c: CustomerKey): Promise<void> {
  await trx
    .insertInto('payment_customers')
    .values({ tenancy_id: c.tenancyId, customer_type: c.type, customer_id: c.id })
    .onConflict((oc) => oc.columns(['tenancy_id', 'customer_type', 'customer_id']).doNothing())
    .execute();
  await trx
    .selectFrom('payment_customers')
    .select('customer_id')
    .where('tenancy_id', '=', c.tenancyId)
    .where('customer_type', '=', c.type)
    .where('customer_id', '=', c.id)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export interface LedgerRow {
  id: string;
  delta: number;
  expires_at: Date | null;
  created_at: Date;
  description: string | null;
  source_kind: 'manual' | 'admin';
}

export async function listLedger(db: Executor, c: CustomerKey, itemId: string): Promise<LedgerRow[]> {
  const rows = await db
    .selectFrom('item_ledger')
    .select(['id', 'delta', 'expires_at', 'created_at', 'description', 'source_kind'])
    .where('tenancy_id', '=', c.tenancyId)
    .where('customer_type', '=', c.type)
    .where('customer_id', '=', c.id)
    .where('item_id', '=', itemId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, delta: Number(r.delta) }));
}

export async function insertLedgerRow(
  trx: Executor,
  c: CustomerKey,
  row: { id: string; item_id: string; delta: number; expires_at: Date | null; description: string | null; source_kind: 'manual' | 'admin'; created_at: Date },
): Promise<void> {
  await trx
    .insertInto('item_ledger')
    .values({ tenancy_id: c.tenancyId, customer_type: c.type, customer_id: c.id, ...row })
    .execute();
}

export interface CustomerProductRow {
  id: string;
  product_id: string | null;
  product_snapshot: unknown;
  quantity: number;
  source: 'api_grant' | 'test_mode' | 'purchase';
  started_at: Date;
  ended_at: Date | null;
  created_at: Date;
}

const CUSTOMER_PRODUCT_COLUMNS = ['id', 'product_id', 'product_snapshot', 'quantity', 'source', 'started_at', 'ended_at', 'created_at'] as const;

/** The products a customer holds or held (the ledger needs ended ones too: their grants may not have expired). */
export async function listAllCustomerProducts(db: Executor, c: CustomerKey): Promise<CustomerProductRow[]> {
  return db
    .selectFrom('customer_products')
    .select(CUSTOMER_PRODUCT_COLUMNS)
    .where('tenancy_id', '=', c.tenancyId)
    .where('customer_type', '=', c.type)
    .where('customer_id', '=', c.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A page of the products a customer holds now, in (created_at, id) order after the cursor. */
export async function listActiveCustomerProducts(
  db: Executor,
  c: CustomerKey,
  after: { createdAt: Date; id: string } | null,
  limit: number,
): Promise<CustomerProductRow[]> {
  let query = db
    .selectFrom('customer_products')
    .select(CUSTOMER_PRODUCT_COLUMNS)
    .where('tenancy_id', '=', c.tenancyId)
    .where('customer_type', '=', c.type)
    .where('customer_id', '=', c.id)
    .where((eb) => eb.or([eb('ended_at', 'is', null), eb('ended_at', '>', sql<Date>`now()`)]));
  if (after) {
    query = query.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
  }
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

export async function insertCustomerProduct(
  trx: Executor,
  c: CustomerKey,
  row: {
    id: string;
    product_id: string | null;
    product_snapshot: unknown;
    quantity: number;
    source: 'api_grant' | 'test_mode' | 'purchase';
    started_at: Date;
    created_at: Date;
  },
): Promise<void> {
  await trx
    .insertInto('customer_products')
    .values({ tenancy_id: c.tenancyId, customer_type: c.type, customer_id: c.id, ...row, product_snapshot: JSON.stringify(row.product_snapshot) })
    .execute();
}

/** Ends held products (a product line switch). */
export async function endCustomerProducts(trx: Executor, c: CustomerKey, ids: string[], at: Date): Promise<void> {
  await trx
    .updateTable('customer_products')
    .set({ ended_at: at })
    .where('tenancy_id', '=', c.tenancyId)
    .where('customer_type', '=', c.type)
    .where('customer_id', '=', c.id)
    .where('id', 'in', ids)
    .execute();
}
