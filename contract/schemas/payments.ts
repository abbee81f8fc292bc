import { z } from 'zod';
import { CUSTOMER_TYPES } from '../config/payments.js';
import { millisSchema, paginatedList } from '../validation/schemas.js';

/** Wire schemas of /payments/* (spec section 7, "Payments"). */

const customerParams = {
  customer_type: z.enum(CUSTOMER_TYPES),
  customer_id: z.string().min(1).max(256),
};

export const itemParamsSchema = z.strictObject({ ...customerParams, item_id: z.string().min(1).max(63) });

export const itemSchema = z.object({
  id: z.string(),
  display_name: z.string(),
  quantity: z.number().int(),
  /** The quantity floored at 0 (spec section 3, "Item"). */
  non_negative_quantity: z.number().int(),
});

export const updateItemQuantitySchema = z.strictObject({
  ...customerParams,
  item_id: z.string().min(1).max(63),
  delta: z.number().int().min(-1_000_000_000).max(1_000_000_000),
  /** When this change stops counting (an expiring grant); millis since epoch or an ISO date. */
  expires_at: z.union([millisSchema, z.iso.datetime()]).nullish(),
  description: z.string().max(1000).nullish(),
  /** Lets a decrease take the balance below zero. */
  allow_negative: z.boolean().optional(),
});

export const customerParamsSchema = z.strictObject(customerParams);

export const listProductsQuerySchema = z.strictObject({
  ...customerParams,
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const customerProductSchema = z.object({
  id: z.string().nullable(),
  quantity: z.number().int(),
  product: z.object({
    display_name: z.string(),
    customer_type: z.enum(CUSTOMER_TYPES),
    server_only: z.boolean(),
    stackable: z.boolean(),
  }),
});

export const customerProductListSchema = paginatedList(customerProductSchema);

export const grantProductSchema = z.strictObject({
  ...customerParams,
  product_id: z.string().min(1).max(63).optional(),
  /** A product in the snake-case form (validated by the service: inlineProductSchema). */
  product_inline: z.record(z.string(), z.unknown()).optional(),
  quantity: z.number().int().min(1).max(1_000_000).optional(),
});

export const stripeSetupSchema = z.strictObject({
  /** sk_live_… / sk_test_… or a restricted rk_… key; stored sealed, never returned. */
  stripe_secret_key: z.string().min(8).max(512),
  /** whsec_…, the signing secret of the webhook endpoint this call returns; stored sealed. */
  stripe_webhook_secret: z.string().min(8).max(512),
});

export const stripeSetupResultSchema = z.object({ success: z.literal(true), webhook_url: z.string() });

export const stripeAccountInfoSchema = z.object({
  account_id: z.string(),
  charges_enabled: z.boolean(),
  details_submitted: z.boolean(),
  payouts_enabled: z.boolean(),
  webhook_url: z.string(),
});

export const createPurchaseUrlSchema = z.strictObject({
  ...customerParams,
  product_id: z.string().min(1).max(63).optional(),
  /** A product in the snake-case form; servers only. */
  inline_product: z.record(z.string(), z.unknown()).optional(),
  price_id: z.string().min(1).max(63).optional(),
  quantity: z.number().int().min(1).max(1_000_000).optional(),
  return_url: z.string().url().max(2048),
});

export const purchaseUrlSchema = z.object({ url: z.string() });

export const billingPortalSchema = z.strictObject({ ...customerParams, return_url: z.string().url().max(2048) });

export const accountSessionSchema = z.object({
  /** For Stripe's embedded Connect components (loadConnectAndInitialize's fetchClientSecret). */
  client_secret: z.string(),
  expires_at_millis: z.number(),
});

/** What a transaction records (spec section 7: every purchase, renewal, refund, grant and manual change). */
export const TRANSACTION_TYPES = ['purchase', 'renewal', 'refund', 'dispute', 'payment_failed', 'grant', 'manual_change'] as const;

export const transactionsQuerySchema = z.strictObject({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  type: z.enum(TRANSACTION_TYPES).optional(),
  customer_type: z.enum(CUSTOMER_TYPES).optional(),
  /** One customer's transactions (with customer_type). */
  customer_id: z.string().min(1).max(256).optional(),
});

export const transactionSchema = z.object({
  id: z.string(),
  type: z.enum(TRANSACTION_TYPES),
  /** Made in test mode, without Stripe: no money moved. */
  test_mode: z.boolean(),
  customer_type: z.enum(CUSTOMER_TYPES),
  customer_id: z.string(),
  purchase_id: z.string().nullable(),
  product_id: z.string().nullable(),
  product_display_name: z.string().nullable(),
  quantity: z.number().int().nullable(),
  currency: z.string().nullable(),
  /** Integer minor units of `currency` (cents; yen for JPY); negative for refunds and disputes. */
  amount_minor: z.number().int().nullable(),
  /** Item id → quantity moved (a purchase's included items, a renewal's repeating ones, a manual delta). */
  items: z.record(z.string(), z.number().int()),
  description: z.string().nullable(),
  created_at_millis: z.number(),
});

export const transactionListSchema = z.object({ transactions: z.array(transactionSchema), next_cursor: z.string().nullable() });

/** The longest range GET /internal/payments/revenue answers, in days (both ends count). */
export const REVENUE_MAX_DAYS = 366;
/** The range without from/to/days: the last 30 UTC days, today included. */
export const REVENUE_DEFAULT_DAYS = 30;

/**
 * Revenue query: an inclusive UTC date range (`from` and `to`, YYYY-MM-DD) or the last `days` days
 * ending today (UTC). The service checks the range (both or neither of from/to, from ≤ to, at most
 * REVENUE_MAX_DAYS days) and answers SCHEMA_ERROR otherwise.
 */
export const revenueQuerySchema = z.strictObject({
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
  days: z.coerce.number().int().min(1).max(REVENUE_MAX_DAYS).optional(),
});

/** One UTC day of one currency. Integer minor units; refunds_minor counts refunds and disputes (≥ 0). */
export const revenueDaySchema = z.object({
  date: z.string(),
  currency: z.string(),
  /** Purchases and renewals paid that day. */
  gross_minor: z.number().int(),
  /** Refunds and disputes made that day (whatever day the payment was), as a positive amount. */
  refunds_minor: z.number().int(),
  /** gross_minor − refunds_minor; negative on a day with more refunded than sold. */
  net_minor: z.number().int(),
});

/**
 * Revenue per UTC day and currency, only days with money movement (sorted by date, then currency).
 * Live (Stripe) and test-mode purchases are kept apart: test mode moves no money.
 */
export const revenueSchema = z.object({
  from: z.string(),
  to: z.string(),
  live: z.array(revenueDaySchema),
  test: z.array(revenueDaySchema),
});
