import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import { decrypt, encrypt } from '../../crypto/encryption.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { CURRENCY_CODES, type CurrencyCode, type CustomerType, type Price, type Product, parseMoneyAmount } from '../../../contract/config/payments.js';
import { authorizeCustomer, assertNotHeld, grantLocked, resolveProduct, type GrantInput } from './service.js';
import { STRIPE_INTERVALS, type Stripe, stripeClient } from './stripe.js';
import * as q from './queries.js';
import { itemsOf, recordPurchaseTransaction } from './transactions.js';

/**
 * Purchases (issue 18 items 4-6): Stripe keys per project, checkout, the transactions list.
 * Stripe is the source of truth for payment; Latch grants the product when a Checkout Session is
 * complete, which it learns from a signed webhook and confirms by re-fetching the session
 * (stripe-events.ts, billing.ts). Money is integer minor units from parseMoneyAmount on.
 */

const sealAd = (tenancyId: string, what: string) => `${tenancyId}:stripe:${what}`;

/** The webhook endpoint for a tenancy (it names the tenancy; the signature proves the sender). */
export function webhookUrl(deps: Deps, tenancyId: string): string {
  return `${deps.baseUrl()}/api/v1/integrations/stripe/webhooks/${tenancyId}`;
}

export async function setupStripe(
  deps: Deps,
  auth: AuthContext,
  input: { stripe_secret_key: string; stripe_webhook_secret: string },
): Promise<{ webhook_url: string }> {
  const t = auth.tenancy.id;
  await q.upsertPaymentSettings(deps.db, t, {
    secretKey: encrypt(deps.configKey, input.stripe_secret_key, sealAd(t, 'secret_key')),
    webhookSecret: encrypt(deps.configKey, input.stripe_webhook_secret, sealAd(t, 'webhook_secret')),
  });
  return { webhook_url: webhookUrl(deps, t) };
}

export interface StripeKeys {
  secretKey: string;
  webhookSecret: string;
}

export async function stripeKeys(deps: Deps, db: Executor, tenancyId: string): Promise<StripeKeys | null> {
  const row = await q.findPaymentSettings(db, tenancyId);
  if (!row) return null;
  return {
    secretKey: decrypt(deps.configKey, row.stripe_secret_key_sealed, sealAd(tenancyId, 'secret_key')),
    webhookSecret: decrypt(deps.configKey, row.stripe_webhook_secret_sealed, sealAd(tenancyId, 'webhook_secret')),
  };
}

/**
 * A Stripe call made while a request waits: Stripe's own failures (unreachable, keys refused, rate
 * limited, its 5xx) are the catalogued PAYMENT_PROVIDER_REQUEST_FAILED, logged with Stripe's
 * message; anything else is ours and stays a 500.
 */
async function viaStripe<T>(deps: Deps, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const type = (error as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !type.startsWith('Stripe')) throw error;
    deps.log.warn('Stripe request failed', { type, error: error instanceof Error ? error.message : String(error) });
    throw new KnownErrors.PaymentProviderRequestFailed();
  }
}

export async function stripeAccountInfo(
  deps: Deps,
  auth: AuthContext,
): Promise<{ account_id: string; charges_enabled: boolean; details_submitted: boolean; payouts_enabled: boolean; webhook_url: string }> {
  const keys = await stripeKeys(deps, deps.db, auth.tenancy.id);
  if (!keys) throw new KnownErrors.StripeAccountInfoNotFound();
  const account = await viaStripe(deps, async () => (await stripeClient(deps, keys.secretKey)).accounts.retrieveCurrent());
  return {
    account_id: account.id,
    charges_enabled: account.charges_enabled ?? false,
    details_submitted: account.details_submitted ?? false,
    payouts_enabled: account.payouts_enabled ?? false,
    webhook_url: webhookUrl(deps, auth.tenancy.id),
  };
}

/**
 * POST /internal/payments/stripe-widgets/account-session: a client secret for Stripe's embedded
 * Connect components (payments, payouts) on the project's account, for the console.
 */
export async function stripeAccountSession(deps: Deps, auth: AuthContext): Promise<{ client_secret: string; expires_at_millis: number }> {
  const keys = await stripeKeys(deps, deps.db, auth.tenancy.id);
  if (!keys) throw new KnownErrors.StripeAccountInfoNotFound();
  const stripe = await stripeClient(deps, keys.secretKey);
  const session = await viaStripe(deps, async () => {
    const account = await stripe.accounts.retrieveCurrent();
    return stripe.accountSessions.create({
      account: account.id,
      components: { payments: { enabled: true }, payouts: { enabled: true }, account_management: { enabled: true } },
    });
  });
  return { client_secret: session.client_secret, expires_at_millis: session.expires_at * 1000 };
}

/**
 * POST /payments/billing-portal/{customer_type}/{customer_id}: a Stripe Billing Portal URL where
 * the customer manages subscriptions, payment methods and invoices (Stack Auth sends its users to
 * the same portal). The Stripe customer is the stored one, created on first use.
 */
export async function billingPortalUrl(
  deps: Deps,
  auth: AuthContext,
  input: { customer_type: CustomerType; customer_id: string; return_url: string },
): Promise<{ url: string }> {
  const customer = await authorizeCustomer(deps, auth, input.customer_type, input.customer_id, '$update_team');
  const keys = await stripeKeys(deps, deps.db, auth.tenancy.id);
  if (!keys) throw new KnownErrors.StripeAccountInfoNotFound();
  const stripe = await stripeClient(deps, keys.secretKey);
  await deps.db.transaction().execute((trx) => q.lockCustomer(trx, customer));
  const stripeCustomerId = await viaStripe(deps, () => ensureStripeCustomer(deps.db, stripe, customer));
  const session = await viaStripe(deps, () => stripe.billingPortal.sessions.create({ customer: stripeCustomerId, return_url: input.return_url }));
  return { url: session.url };
}

export interface PurchaseUrlInput {
  customer_type: CustomerType;
  customer_id: string;
  product_id?: string;
  inline_product?: GrantInput['product_inline'];
  price_id?: string;
  quantity?: number;
  return_url: string;
}

function pickPrice(product: Product, priceId: string | undefined, isClient: boolean): { priceId: string; price: Price } {
  if (product.prices === 'include-by-default') {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - the product is included by default and cannot be bought', {
      issues: [{ path: 'product_id', message: 'is included by default and cannot be bought' }],
    });
  }
  const entries = Object.entries(product.prices).filter(([, p]) => !(isClient && p.serverOnly));
  // Without price_id only a single price is unambiguous (stored config objects keep no key order: jsonb sorts them).
  if (priceId === undefined && entries.length > 1) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - price_id is required for a product with several prices', {
      issues: [{ path: 'price_id', message: 'is required for a product with several prices' }],
    });
  }
  const found = priceId === undefined ? entries[0] : entries.find(([id]) => id === priceId);
  if (!found) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - price_id does not name a price of this product', {
      issues: [{ path: 'price_id', message: 'does not name a price of this product' }],
    });
  }
  return { priceId: found[0], price: found[1] };
}

/** The price's first currency in the spec's order (USD first), as integer minor units. */
function priceAmount(price: Price): { currency: CurrencyCode; minor: number } {
  for (const code of CURRENCY_CODES) {
    const amount = price[code];
    if (amount !== undefined) return { currency: code, minor: parseMoneyAmount(amount, code) };
  }
  throw new Error('a validated price has a currency');
}

/** A pending checkout is reused for this long: a double click gets the first click's URL. */
const PENDING_REUSE_MS = 24 * 3_600_000;

/**
 * POST /payments/purchases/create-purchase-url. Test mode grants at once (marked test_mode) and
 * returns the return URL. Otherwise: under the customer's lock, a non-stackable product already
 * held is PRODUCT_ALREADY_GRANTED and a pending checkout of the same price is reused, so two clicks
 * make one Checkout Session; the Stripe calls carry idempotency keys derived from the purchase id,
 * which is fixed before the (retryable) transaction starts.
 */
export async function createPurchaseUrl(deps: Deps, auth: AuthContext, input: PurchaseUrlInput): Promise<{ url: string }> {
  const isClient = auth.type === 'client';
  if (isClient && input.inline_product !== undefined) throw new KnownErrors.InsufficientAccessType('client', ['server', 'admin']);
  const { productId, product } = resolveProduct(auth, input.customer_type, input.customer_id, {
    product_id: input.product_id,
    product_inline: input.inline_product,
  });
  if (isClient && product.serverOnly && productId !== null) throw new KnownErrors.ProductDoesNotExist(productId, 'server_only');
  const quantity = input.quantity ?? 1;
  if (quantity !== 1 && !product.stackable) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - quantity must be 1 for a product that is not stackable', {
      issues: [{ path: 'quantity', message: 'must be 1 for a product that is not stackable' }],
    });
  }
  const customer = await authorizeCustomer(deps, auth, input.customer_type, input.customer_id, '$update_team');
  await requireBaseProduct(deps, customer, product);
  const { priceId, price } = pickPrice(product, input.price_id, isClient);
  const { currency, minor } = priceAmount(price);
  const purchaseId = randomUUID();
  const t = auth.tenancy.id;

  if (auth.project.config.payments.test_mode) {
    await deps.db.transaction().execute(async (trx) => {
      await q.lockCustomer(trx, customer);
      const now = new Date();
      const granted = await grantLocked(trx, customer, productId, product, quantity, 'test_mode', now);
      const purchase: q.PurchaseRow = {
        ...purchaseFields(purchaseId, customer, productId, priceId, product, quantity, currency, minor, now),
        mode: 'test',
        status: 'completed',
        customer_product_id: granted.id,
        completed_at: now,
      };
      await q.insertPurchase(trx, t, purchase);
      await recordPurchaseTransaction(trx, t, purchase, 'purchase', `purchase:${purchaseId}`, now, { items: itemsOf(product, quantity) });
    });
    return { url: input.return_url };
  }

  const keys = await stripeKeys(deps, deps.db, t);
  if (!keys) throw new KnownErrors.StripeAccountInfoNotFound();
  if (price.interval && !STRIPE_INTERVALS.has(price.interval[1])) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - Stripe bills in days, weeks, months or years', {
      issues: [{ path: 'price_id', message: 'Stripe bills in days, weeks, months or years' }],
    });
  }
  const stripe = await stripeClient(deps, keys.secretKey);
  // Step 1, under the customer's lock: refuse a product already held, reuse a pending checkout of
  // the same price (a double click), or record a new pending purchase. No network call here: on
  // PGlite a transaction holds the only connection, so Stripe's latency must not sit inside it.
  const claim = await deps.db.transaction().execute(async (trx): Promise<{ url: string } | { id: string }> => {
    await q.lockCustomer(trx, customer);
    await assertNotHeld(trx, customer, productId, product);
    const pending =
      productId !== null && !product.stackable
        ? await q.findPendingPurchase(trx, customer, productId, priceId, new Date(Date.now() - PENDING_REUSE_MS))
        : undefined;
    if (pending?.checkout_url) return { url: pending.checkout_url };
    if (pending) return { id: pending.id };
    await q.insertPurchase(trx, t, {
      ...purchaseFields(purchaseId, customer, productId, priceId, product, quantity, currency, minor, new Date()),
      mode: 'stripe',
      status: 'pending',
    });
    return { id: purchaseId };
  });
  if ('url' in claim) return { url: claim.url };
  // Step 2, outside any transaction: the Checkout Session, keyed by the purchase id, so a second
  // click that found the first one's pending purchase gets the same session back from Stripe.
  const stripeCustomerId = await viaStripe(deps, () => ensureStripeCustomer(deps.db, stripe, customer));
  const session = await viaStripe(deps, () =>
    stripe.checkout.sessions.create(
      {
        mode: price.interval ? 'subscription' : 'payment',
        customer: stripeCustomerId,
        client_reference_id: claim.id,
        success_url: input.return_url,
        cancel_url: input.return_url,
        metadata: { latch_tenancy_id: t, latch_purchase_id: claim.id },
        line_items: [
          {
            quantity,
            price_data: {
              currency: currency.toLowerCase(),
              unit_amount: minor,
              product_data: { name: product.displayName ?? productId ?? 'Product' },
              ...(price.interval ? { recurring: { interval: price.interval[1] as 'day' | 'week' | 'month' | 'year', interval_count: price.interval[0] } } : {}),
            },
          },
        ],
        // The subscription names its purchase too: its events may come before the session's.
        ...(price.interval
          ? {
              subscription_data: {
                metadata: { latch_tenancy_id: t, latch_purchase_id: claim.id },
                ...((price.freeTrial ?? product.freeTrial)?.[1] === 'day' ? { trial_period_days: (price.freeTrial ?? product.freeTrial)![0] } : {}),
              },
            }
          : {}),
      },
      { idempotencyKey: `latch-purchase-${claim.id}` },
    ),
  );
  if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
  // Step 3: remember the session (both clicks write the same one).
  await q.setPurchaseSession(deps.db, t, claim.id, session.id, session.url);
  return { url: session.url };
}

function purchaseFields(
  id: string,
  customer: q.CustomerKey,
  productId: string | null,
  priceId: string,
  product: Product,
  quantity: number,
  currency: CurrencyCode,
  minor: number,
  now: Date,
): q.PurchaseRow {
  return {
    id,
    customer_type: customer.type,
    customer_id: customer.id,
    product_id: productId,
    price_id: priceId,
    product_snapshot: product,
    quantity,
    mode: 'stripe',
    status: 'pending',
    currency,
    amount_minor: minor * quantity,
    stripe_checkout_session_id: null,
    checkout_url: null,
    customer_product_id: null,
    created_at: now,
    completed_at: null,
  };
}

/** An add-on is sold only to a customer who holds one of its base products. */
async function requireBaseProduct(deps: Deps, customer: q.CustomerKey, product: Product): Promise<void> {
  if (!product.isAddOnTo) return;
  const bases = Object.keys(product.isAddOnTo);
  const held = await q.listActiveCustomerProducts(deps.db, customer, null, 10_000);
  if (!held.some((h) => h.product_id !== null && bases.includes(h.product_id))) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - an add-on needs one of its base products first', {
      issues: [{ path: 'product_id', message: `an add-on needs one of its base products first (${bases.join(', ')})` }],
    });
  }
}

/** The customer's Stripe id: stored once created, never searched for (Stripe's search lags). */
async function ensureStripeCustomer(trx: Executor, stripe: Stripe, customer: q.CustomerKey): Promise<string> {
  const stored = await q.findStripeCustomerId(trx, customer);
  if (stored) return stored;
  const created = await stripe.customers.create(
    { metadata: { latch_tenancy_id: customer.tenancyId, latch_customer_type: customer.type, latch_customer_id: customer.id } },
    { idempotencyKey: `latch-customer-${customer.tenancyId}-${customer.type}-${customer.id}` },
  );
  await q.setStripeCustomerId(trx, customer, created.id);
  return created.id;
}
