import { type Kysely, sql } from 'kysely';
import { createdAt, dropTables, runStatements, tenancyAndId, tenantKey, updatedAt } from './lib/columns.js';

/**
 * Payments (issue 18): customers, the products they hold, and the item ledger.
 *
 * - payment_customers: one row per customer that ever touched payments. Its row is the
 *   per-customer lock (SELECT … FOR UPDATE) that serialises balance checks and grants, so 100
 *   concurrent try-decreases on a balance of 50 succeed exactly 50 times, on any engine (no
 *   advisory locks). stripe_customer_id is stored here, never searched for in Stripe.
 * - customer_products: a product a customer holds (granted by the API, test mode or a purchase),
 *   with a snapshot of the product as it was then, so a later config edit does not change what was
 *   sold. Repeating item grants are derived from (started_at, repeat) when balances are read.
 * - item_ledger: manual changes and one-off grants: delta (integer), expires_at (null: never),
 *   source. The balance is a fold of these rows and the products' grants (payments/ledger.ts).
 * - payment_settings: the project's Stripe keys, sealed (encryption.ts, bound to the tenancy).
 * - purchases: a checkout attempt and its outcome (test-mode purchases complete at once). The
 *   Checkout Session id is unique per tenancy: the webhook finds its purchase by it.
 * - stripe_events: each delivered event id once; a repeat delivery finds its row and does nothing.
 * text + CHECK instead of enums; every key leads with tenancy_id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE payment_customers (
      tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,
      customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
      customer_id text NOT NULL,
      stripe_customer_id text,
      ${createdAt},
      ${tenantKey('customer_type', 'customer_id')}
    )`,
    sql`CREATE TABLE customer_products (
      ${tenancyAndId()},
      customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
      customer_id text NOT NULL,
      product_id text,
      product_snapshot jsonb NOT NULL,
      quantity integer NOT NULL CHECK (quantity > 0),
      source text NOT NULL CHECK (source IN ('api_grant', 'test_mode', 'purchase')),
      started_at timestamptz NOT NULL,
      ended_at timestamptz,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE INDEX customer_products_customer_idx ON customer_products (tenancy_id, customer_type, customer_id, created_at, id)`,
    sql`CREATE TABLE item_ledger (
      ${tenancyAndId()},
      customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
      customer_id text NOT NULL,
      item_id text NOT NULL,
      delta bigint NOT NULL,
      expires_at timestamptz,
      description text,
      source_kind text NOT NULL CHECK (source_kind IN ('manual', 'admin')),
      created_at timestamptz NOT NULL,
      ${tenantKey('id')}
    )`,
    sql`CREATE INDEX item_ledger_customer_item_idx ON item_ledger (tenancy_id, customer_type, customer_id, item_id, created_at)`,
    sql`CREATE TABLE payment_settings (
      tenancy_id uuid PRIMARY KEY REFERENCES tenancies (id) ON DELETE CASCADE,
      stripe_secret_key_sealed text NOT NULL,
      stripe_webhook_secret_sealed text NOT NULL,
      ${updatedAt}
    )`,
    sql`CREATE TABLE purchases (
      ${tenancyAndId()},
      customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
      customer_id text NOT NULL,
      product_id text,
      price_id text,
      product_snapshot jsonb NOT NULL,
      quantity integer NOT NULL CHECK (quantity > 0),
      mode text NOT NULL CHECK (mode IN ('test', 'stripe')),
      status text NOT NULL CHECK (status IN ('pending', 'completed', 'expired')),
      currency text,
      amount_minor bigint,
      stripe_checkout_session_id text,
      checkout_url text,
      customer_product_id uuid,
      created_at timestamptz NOT NULL,
      completed_at timestamptz,
      ${tenantKey('id')}
    )`,
    sql`CREATE UNIQUE INDEX purchases_checkout_session_idx ON purchases (tenancy_id, stripe_checkout_session_id)`,
    sql`CREATE INDEX purchases_customer_idx ON purchases (tenancy_id, customer_type, customer_id, status)`,
    sql`CREATE INDEX purchases_created_idx ON purchases (tenancy_id, created_at, id)`,
    sql`CREATE TABLE stripe_events (
      tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,
      event_id text NOT NULL,
      type text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      ${tenantKey('event_id')}
    )`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropTables(db, ['stripe_events', 'purchases', 'payment_settings', 'item_ledger', 'customer_products', 'payment_customers']);
}
