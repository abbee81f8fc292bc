import { type Kysely, sql } from 'kysely';
import { runStatements, tenancyAndId, tenantKey, updatedAt } from './lib/columns.js';

/**
 * Payments, billing (issue 18 items 5-6): subscriptions, refunds, disputes and one transaction log.
 *
 * - purchases gain the Stripe ids their later events name (a subscription; a one-time payment's
 *   PaymentIntent) and refunded_at. A subscription id is unique per tenancy: its events find the
 *   purchase by it.
 * - stripe_subscriptions: a subscription as Stripe last reported it (status, period, cancel at
 *   period end), re-fetched on every event, so the order of deliveries does not matter.
 * - payment_transactions: every purchase, renewal, refund, dispute, failed payment, API grant and
 *   manual change, immutable, each written once (source_key is unique per tenancy: a repeated
 *   event or a retried job writes nothing new). test_mode marks rows no money stood behind.
 *   The completed purchases of 0013 are copied in (without their item moves), so the log starts complete.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`ALTER TABLE purchases ADD COLUMN stripe_subscription_id text`,
    sql`ALTER TABLE purchases ADD COLUMN stripe_payment_intent_id text`,
    sql`ALTER TABLE purchases ADD COLUMN refunded_at timestamptz`,
    sql`CREATE UNIQUE INDEX purchases_subscription_idx ON purchases (tenancy_id, stripe_subscription_id)`,
    sql`CREATE INDEX purchases_payment_intent_idx ON purchases (tenancy_id, stripe_payment_intent_id)`,
    sql`CREATE TABLE stripe_subscriptions (
      tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,
      stripe_subscription_id text NOT NULL,
      purchase_id uuid NOT NULL,
      customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
      customer_id text NOT NULL,
      status text NOT NULL,
      current_period_start timestamptz,
      current_period_end timestamptz,
      cancel_at_period_end boolean NOT NULL DEFAULT false,
      ended_at timestamptz,
      ${updatedAt},
      ${tenantKey('stripe_subscription_id')}
    )`,
    sql`CREATE INDEX stripe_subscriptions_customer_idx ON stripe_subscriptions (tenancy_id, customer_type, customer_id)`,
    sql`CREATE TABLE payment_transactions (
      ${tenancyAndId()},
      source_key text NOT NULL,
      type text NOT NULL CHECK (type IN ('purchase', 'renewal', 'refund', 'dispute', 'payment_failed', 'grant', 'manual_change')),
      customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
      customer_id text NOT NULL,
      purchase_id uuid,
      product_id text,
      product_display_name text,
      quantity integer,
      test_mode boolean NOT NULL DEFAULT false,
      currency text,
      amount_minor bigint,
      items jsonb NOT NULL,
      stripe_payment_intent_id text,
      description text,
      created_at timestamptz NOT NULL,
      ${tenantKey('id')}
    )`,
    sql`CREATE UNIQUE INDEX payment_transactions_source_idx ON payment_transactions (tenancy_id, source_key)`,
    sql`CREATE INDEX payment_transactions_created_idx ON payment_transactions (tenancy_id, created_at, id)`,
    sql`INSERT INTO payment_transactions (tenancy_id, id, source_key, type, customer_type, customer_id, purchase_id, product_id,
        product_display_name, quantity, test_mode, currency, amount_minor, items, created_at)
      SELECT tenancy_id, id, 'purchase:' || id::text, 'purchase', customer_type, customer_id, id, product_id,
        COALESCE(product_snapshot ->> 'displayName', product_id, 'Product'), quantity, mode = 'test', currency, amount_minor,
        '{}'::jsonb, COALESCE(completed_at, created_at)
      FROM purchases WHERE status = 'completed'`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  const statements = [
    'DROP TABLE IF EXISTS payment_transactions',
    'DROP TABLE IF EXISTS stripe_subscriptions',
    'DROP INDEX IF EXISTS purchases_payment_intent_idx',
    'DROP INDEX IF EXISTS purchases_subscription_idx',
    ...['refunded_at', 'stripe_payment_intent_id', 'stripe_subscription_id'].map((column) => `ALTER TABLE purchases DROP COLUMN IF EXISTS ${column}`),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
