import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { PaymentTransactionsTable, StripeSubscriptionsTable } from '../../db/schema.js';
import type { CustomerType } from '../../../contract/config/payments.js';
import { type CustomerKey, customerColumns } from './queries.js';
import type { TRANSACTION_TYPES } from '../../../contract/schemas/payments.js';

/**
 * Queries of the billing half of payments (migration 0019): Stripe subscriptions as last
 * re-fetched, and the transaction log. queries.ts keeps customers, products, the ledger and purchases.
 */

export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** A transaction row as read: bigint amounts as numbers, items parsed. */
export type TransactionRow = Omit<Selectable<PaymentTransactionsTable>, 'tenancy_id' | 'amount_minor' | 'items'> & {
  amount_minor: number | null;
  items: Record<string, number>;
};

const TRANSACTION_COLUMNS = [
  'id',
  'source_key',
  'type',
  'customer_type',
  'customer_id',
  'purchase_id',
  'product_id',
  'product_display_name',
  'quantity',
  'test_mode',
  'currency',
  'amount_minor',
  'items',
  'stripe_payment_intent_id',
  'description',
  'created_at',
] as const;

type RawTransaction = Omit<TransactionRow, 'amount_minor' | 'items'> & { amount_minor: string | number | null; items: unknown };
const toTransaction = (r: RawTransaction): TransactionRow => ({
  ...r,
  amount_minor: r.amount_minor === null ? null : Number(r.amount_minor),
  items: (typeof r.items === 'string' ? JSON.parse(r.items) : r.items) as Record<string, number>,
});

/** Writes a transaction once: a second write with the same source_key (a repeated event) does nothing. */
export async function insertTransaction(trx: Executor, tenancyId: string, row: TransactionRow): Promise<boolean> {
  const inserted = await trx
    .insertInto('payment_transactions')
    .values({ tenancy_id: tenancyId, ...row, items: JSON.stringify(row.items) })
    .onConflict((oc) => oc.columns(['tenancy_id', 'source_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Keyset page of transactions, newest first. */
export async function listTransactions(
  db: Executor,
  tenancyId: string,
  filter: { type?: TransactionType; customerType?: CustomerType; customerId?: string },
  before: { createdAt: Date; id: string } | null,
  limit: number,
): Promise<TransactionRow[]> {
  let query = db.selectFrom('payment_transactions').select(TRANSACTION_COLUMNS).where('tenancy_id', '=', tenancyId);
  if (filter.type) query = query.where('type', '=', filter.type);
  if (filter.customerType) query = query.where('customer_type', '=', filter.customerType);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (before) {
    query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]));
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toTransaction);
}

/** The purchase or renewal a Stripe payment paid for (refunds and disputes name only the payment). */
export async function findTransactionByPaymentIntent(db: Executor, tenancyId: string, paymentIntentId: string): Promise<TransactionRow | undefined> {
  const row = await db
    .selectFrom('payment_transactions')
    .select(TRANSACTION_COLUMNS)
    .where('tenancy_id', '=', tenancyId)
    .where('stripe_payment_intent_id', '=', paymentIntentId)
    .where('type', 'in', ['purchase', 'renewal'])
    .executeTakeFirst();
  return row && toTransaction(row);
}

export type SubscriptionRow = Omit<Selectable<StripeSubscriptionsTable>, 'tenancy_id' | 'updated_at'>;

const SUBSCRIPTION_COLUMNS = [
  'stripe_subscription_id',
  'purchase_id',
  'customer_type',
  'customer_id',
  'status',
  'current_period_start',
  'current_period_end',
  'cancel_at_period_end',
  'ended_at',
] as const;

export async function upsertSubscription(trx: Executor, tenancyId: string, row: SubscriptionRow): Promise<void> {
  const { stripe_subscription_id: _id, purchase_id: _p, customer_type: _t, customer_id: _c, ...state } = row;
  await trx
    .insertInto('stripe_subscriptions')
    .values({ tenancy_id: tenancyId, ...row, updated_at: new Date() })
    .onConflict((oc) => oc.columns(['tenancy_id', 'stripe_subscription_id']).doUpdateSet({ ...state, updated_at: new Date() }))
    .execute();
}

/** A customer's subscriptions (account settings), newest period first. */
export async function listCustomerSubscriptions(db: Executor, c: CustomerKey): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('stripe_subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where((eb) => eb.and(customerColumns(c)))
    .orderBy('updated_at', 'desc')
    .limit(100)
    .execute();
}

export async function setPurchaseStripeIds(
  trx: Executor,
  tenancyId: string,
  purchaseId: string,
  ids: { stripe_subscription_id?: string; stripe_payment_intent_id?: string },
): Promise<void> {
  if (Object.keys(ids).length === 0) return;
  await trx.updateTable('purchases').set(ids).where('tenancy_id', '=', tenancyId).where('id', '=', purchaseId).execute();
}

export async function findPurchaseIdBySubscription(db: Executor, tenancyId: string, subscriptionId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('purchases')
    .select('id')
    .where('tenancy_id', '=', tenancyId)
    .where('stripe_subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  return row?.id;
}

/** A one-time purchase refunded in full: marked once (the first refund event that sees it). */
export async function markPurchaseRefunded(trx: Executor, tenancyId: string, purchaseId: string, at: Date): Promise<boolean> {
  const marked = await trx
    .updateTable('purchases')
    .set({ refunded_at: at })
    .where((eb) => eb.and({ tenancy_id: tenancyId, id: purchaseId, refunded_at: null }))
    .returning('id')
    .executeTakeFirst();
  return marked !== undefined;
}

export interface RevenueRow {
  date: string;
  currency: string;
  test_mode: boolean;
  gross_minor: number;
  refunds_minor: number;
}

/**
 * Money moved per UTC day, currency and mode in [from, to): one aggregate over the transaction log,
 * a range scan of payment_transactions_created_idx (tenancy_id, created_at, id). Purchases and
 * renewals count on the day they were paid, refunds and disputes (stored negative) on the day they
 * were made. Failed payments, grants and manual changes move no money and are left out.
 */
export async function revenueByDay(db: Executor, tenancyId: string, from: Date, to: Date): Promise<RevenueRow[]> {
  const day = sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .selectFrom('payment_transactions')
    .select([
      day.as('date'),
      'currency',
      'test_mode',
      sql<string | number>`COALESCE(SUM(amount_minor) FILTER (WHERE type IN ('purchase', 'renewal')), 0)::bigint`.as('gross_minor'),
      sql<string | number>`COALESCE(-SUM(amount_minor) FILTER (WHERE type IN ('refund', 'dispute')), 0)::bigint`.as('refunds_minor'),
    ])
    .where('tenancy_id', '=', tenancyId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .where('type', 'in', ['purchase', 'renewal', 'refund', 'dispute'])
    .where('currency', 'is not', null)
    .where('amount_minor', 'is not', null)
    .groupBy([day, 'currency', 'test_mode'])
    .orderBy(day)
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({
    date: r.date,
    currency: r.currency ?? '',
    test_mode: r.test_mode,
    gross_minor: Number(r.gross_minor),
    refunds_minor: Number(r.refunds_minor),
  }));
}
