import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { CustomerType } from '../../../contract/config/payments.js';

export interface CustomerKey {
  tenancyId: string;
  type: CustomerType;
  id: string;
}

/** The columns that name a customer in every customer table (payment_customers, item_ledger, customer_products, purchases). */
export function customerColumns(c: CustomerKey): { tenancy_id: string; customer_type: CustomerType; customer_id: string } {
  return { tenancy_id: c.tenancyId, customer_type: c.type, customer_id: c.id };
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
    .values(customerColumns(c))
    .onConflict((oc) => oc.columns(['tenancy_id', 'customer_type', 'customer_id']).doNothing())
    .execute();
  await trx
    .selectFrom('payment_customers')
    .select('customer_id')
    .where((eb) => eb.and(customerColumns(c)))
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
    .where((eb) => eb.and(customerColumns(c)))
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
    .values({ ...customerColumns(c), ...row })
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
    .where((eb) => eb.and(customerColumns(c)))
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
    .where((eb) => eb.and(customerColumns(c)))
    .where((eb) => eb.or([eb('ended_at', 'is', null), eb('ended_at', '>', sql<Date>`now()`)]));
  if (after) {
    query = query.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
  }
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

export async function insertCustomerProduct(trx: Executor, c: CustomerKey, row: Omit<CustomerProductRow, 'ended_at'>): Promise<void> {
  await trx
    .insertInto('customer_products')
    .values({ ...customerColumns(c), ...row, product_snapshot: JSON.stringify(row.product_snapshot) })
    .execute();
}

/** Ends held products (a product line switch, a subscription's end, a refund); null reopens them (a cancellation undone). */
export async function endCustomerProducts(trx: Executor, c: CustomerKey, ids: string[], at: Date | null): Promise<void> {
  await trx
    .updateTable('customer_products')
    .set({ ended_at: at })
    .where((eb) => eb.and(customerColumns(c)))
    .where('id', 'in', ids)
    .execute();
}

// ─── Stripe settings, purchases, events ──────────────────────────────────────────────────────

export async function upsertPaymentSettings(db: Executor, tenancyId: string, sealed: { secretKey: string; webhookSecret: string }): Promise<void> {
  await db
    .insertInto('payment_settings')
    .values({ tenancy_id: tenancyId, stripe_secret_key_sealed: sealed.secretKey, stripe_webhook_secret_sealed: sealed.webhookSecret, updated_at: new Date() })
    .onConflict((oc) =>
      oc
        .column('tenancy_id')
        .doUpdateSet({ stripe_secret_key_sealed: sealed.secretKey, stripe_webhook_secret_sealed: sealed.webhookSecret, updated_at: new Date() }),
    )
    .execute();
}

export async function findPaymentSettings(
  db: Executor,
  tenancyId: string,
): Promise<{ stripe_secret_key_sealed: string; stripe_webhook_secret_sealed: string } | undefined> {
  return db
    .selectFrom('payment_settings')
    .select(['stripe_secret_key_sealed', 'stripe_webhook_secret_sealed'])
    .where('tenancy_id', '=', tenancyId)
    .executeTakeFirst();
}

export async function findStripeCustomerId(db: Executor, c: CustomerKey): Promise<string | null> {
  const row = await db
    .selectFrom('payment_customers')
    .select('stripe_customer_id')
    .where((eb) => eb.and(customerColumns(c)))
    .executeTakeFirst();
  return row?.stripe_customer_id ?? null;
}

export async function setStripeCustomerId(db: Executor, c: CustomerKey, stripeCustomerId: string): Promise<void> {
  await db
    .updateTable('payment_customers')
    .set({ stripe_customer_id: stripeCustomerId })
    .where((eb) => eb.and(customerColumns(c)))
    .execute();
}

export interface PurchaseRow {
  id: string;
  customer_type: CustomerType;
  customer_id: string;
  product_id: string | null;
  price_id: string | null;
  product_snapshot: unknown;
  quantity: number;
  mode: 'test' | 'stripe';
  status: 'pending' | 'completed' | 'expired';
  currency: string | null;
  amount_minor: number | null;
  stripe_checkout_session_id: string | null;
  checkout_url: string | null;
  customer_product_id: string | null;
  created_at: Date;
  completed_at: Date | null;
  /** Set by Stripe events (migration 0019). */
  stripe_subscription_id?: string | null;
  stripe_payment_intent_id?: string | null;
  refunded_at?: Date | null;
}

const PURCHASE_COLUMNS = [
  'id',
  'customer_type',
  'customer_id',
  'product_id',
  'price_id',
  'product_snapshot',
  'quantity',
  'mode',
  'status',
  'currency',
  'amount_minor',
  'stripe_checkout_session_id',
  'checkout_url',
  'customer_product_id',
  'created_at',
  'completed_at',
  'stripe_subscription_id',
  'stripe_payment_intent_id',
  'refunded_at',
] as const;

const toPurchase = (r: Omit<PurchaseRow, 'amount_minor'> & { amount_minor: string | number | null }): PurchaseRow => ({
  ...r,
  amount_minor: r.amount_minor === null ? null : Number(r.amount_minor),
});

export async function insertPurchase(db: Executor, tenancyId: string, row: PurchaseRow): Promise<void> {
  await db
    .insertInto('purchases')
    .values({ tenancy_id: tenancyId, ...row, product_snapshot: JSON.stringify(row.product_snapshot) })
    .execute();
}

/** A pending checkout of this product by this customer (a double click finds the first one's). */
export async function findPendingPurchase(db: Executor, c: CustomerKey, productId: string, priceId: string, since: Date): Promise<PurchaseRow | undefined> {
  const row = await db
    .selectFrom('purchases')
    .select(PURCHASE_COLUMNS)
    .where((eb) => eb.and(customerColumns(c)))
    .where('status', '=', 'pending')
    .where('product_id', '=', productId)
    .where('price_id', '=', priceId)
    .where('created_at', '>', since)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return row && toPurchase(row);
}

export async function findPurchaseBySession(db: Executor, tenancyId: string, sessionId: string, forUpdate = false): Promise<PurchaseRow | undefined> {
  let query = db.selectFrom('purchases').select(PURCHASE_COLUMNS).where('tenancy_id', '=', tenancyId).where('stripe_checkout_session_id', '=', sessionId);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toPurchase(row);
}

export async function completePurchase(db: Executor, tenancyId: string, id: string, customerProductId: string, at: Date): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ status: 'completed', customer_product_id: customerProductId, completed_at: at })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', id)
    .execute();
}

export async function expirePurchase(db: Executor, tenancyId: string, id: string): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ status: 'expired' })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Keyset page of purchases, newest first. */
export async function listPurchases(
  db: Executor,
  tenancyId: string,
  filter: { customerType?: CustomerType; status?: 'pending' | 'completed' | 'expired' },
  before: { createdAt: Date; id: string } | null,
  limit: number,
): Promise<PurchaseRow[]> {
  let query = db.selectFrom('purchases').select(PURCHASE_COLUMNS).where('tenancy_id', '=', tenancyId);
  if (filter.customerType) query = query.where('customer_type', '=', filter.customerType);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (before) {
    query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]));
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toPurchase);
}

/** Records a delivered event id; false when it was already recorded (a repeat delivery). */
export async function recordStripeEvent(db: Executor, tenancyId: string, eventId: string, type: string): Promise<boolean> {
  const inserted = await db
    .insertInto('stripe_events')
    .values({ tenancy_id: tenancyId, event_id: eventId, type })
    .onConflict((oc) => oc.columns(['tenancy_id', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function setPurchaseSession(db: Executor, tenancyId: string, id: string, sessionId: string, url: string): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ stripe_checkout_session_id: sessionId, checkout_url: url })
    .where('tenancy_id', '=', tenancyId)
    .where('id', '=', id)
    .execute();
}

export async function findPurchaseById(db: Executor, tenancyId: string, id: string): Promise<PurchaseRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const row = await db.selectFrom('purchases').select(PURCHASE_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
  return row && toPurchase(row);
}
