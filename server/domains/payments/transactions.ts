import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import type { AuthContext } from '../../access/context.js';
import type { CustomerType, Product } from '../../../contract/config/payments.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../db/keyset-cursor.js';
import * as bq from './billing-queries.js';
import type { CustomerKey, PurchaseRow } from './queries.js';

/**
 * The transaction log (issue 18 item 6): every purchase, renewal, refund, dispute, failed payment,
 * API grant and manual change, written in the same transaction as the change it records, once per
 * source (a repeated Stripe event writes nothing new). Amounts are integer minor units.
 */

/** The items a product moves: each included item times the product quantity (renewals: only the repeating ones). */
export function itemsOf(product: Product, quantity: number, onlyRepeating = false): Record<string, number> {
  const items: Record<string, number> = {};
  for (const [itemId, included] of Object.entries(product.includedItems ?? {})) {
    const repeats = included.repeat !== 'never' && included.repeat[0] > 0;
    if (!onlyRepeating || repeats) items[itemId] = included.quantity * quantity;
  }
  return items;
}

const displayName = (product: Product, productId: string | null) => product.displayName ?? productId ?? 'Product';

type Extra = Partial<Pick<bq.TransactionRow, 'currency' | 'amount_minor' | 'items' | 'stripe_payment_intent_id' | 'description' | 'test_mode'>>;

/** A transaction about a purchase (its purchase, renewals, refunds, disputes, failed payments). */
export async function recordPurchaseTransaction(
  trx: Executor,
  tenancyId: string,
  purchase: PurchaseRow,
  type: bq.TransactionType,
  sourceKey: string,
  at: Date,
  extra: Extra = {},
): Promise<boolean> {
  const product = purchase.product_snapshot as Product;
  return bq.insertTransaction(trx, tenancyId, {
    id: randomUUID(),
    source_key: sourceKey,
    type,
    customer_type: purchase.customer_type,
    customer_id: purchase.customer_id,
    purchase_id: purchase.id,
    product_id: purchase.product_id,
    product_display_name: displayName(product, purchase.product_id),
    quantity: purchase.quantity,
    test_mode: purchase.mode === 'test',
    currency: purchase.currency,
    amount_minor: purchase.amount_minor,
    items: {},
    stripe_payment_intent_id: null,
    description: null,
    created_at: at,
    ...extra,
  });
}

/** A transaction without money: an API grant of a product, or a manual change of an item. */
export async function recordGrantOrChange(
  trx: Executor,
  customer: CustomerKey,
  row: {
    sourceKey: string;
    type: 'grant' | 'manual_change';
    productId: string | null;
    product: Product | null;
    quantity: number | null;
    items: Record<string, number>;
    description: string | null;
    at: Date;
  },
): Promise<void> {
  await bq.insertTransaction(trx, customer.tenancyId, {
    id: randomUUID(),
    source_key: row.sourceKey,
    type: row.type,
    customer_type: customer.type,
    customer_id: customer.id,
    purchase_id: null,
    product_id: row.productId,
    product_display_name: row.product ? displayName(row.product, row.productId) : null,
    quantity: row.quantity,
    test_mode: false,
    currency: null,
    amount_minor: null,
    items: row.items,
    stripe_payment_intent_id: null,
    description: row.description,
    created_at: row.at,
  });
}

/** A transaction on the wire: the row without its internal keys, times in millis. */
export type TransactionDto = Omit<bq.TransactionRow, 'source_key' | 'stripe_payment_intent_id' | 'created_at'> & { created_at_millis: number };

const toDto = ({ source_key: _key, stripe_payment_intent_id: _pi, created_at, ...rest }: bq.TransactionRow): TransactionDto => ({
  ...rest,
  created_at_millis: created_at.getTime(),
});

export async function listTransactions(
  deps: Deps,
  auth: AuthContext,
  input: { cursor?: string; limit?: number; type?: bq.TransactionType; customer_type?: CustomerType; customer_id?: string },
): Promise<{ transactions: TransactionDto[]; next_cursor: string | null }> {
  const limit = input.limit ?? 50;
  // The ledger's history for dashboards: lag-tolerant, so the read replica when there is one.
  // Balances and grants that decide anything are read on the primary (service.ts).
  const rows = await bq.listTransactions(
    deps.readDb,
    auth.tenancy.id,
    { type: input.type, customerType: input.customer_type, customerId: input.customer_id },
    input.cursor ? decodeKeysetCursor(input.cursor) : null,
    limit + 1,
  );
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    transactions: shown.map(toDto),
    next_cursor: rows.length > limit && last ? encodeKeysetCursor({ created_at: last.created_at, id: last.id }) : null,
  };
}
