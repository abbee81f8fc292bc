/**
 * Payments: items, products, checkout and the billing portal for users, teams and custom
 * customers (issue 18). A customer is named as Stack Auth names it: `{ userId }` (a user id, or
 * `'me'`), `{ teamId }` or `{ customCustomerId }` (your own id; servers only). Users and teams are
 * plain data in this SDK, so Stack's `user.getItem('credits')` is `app.getItem({ userId: 'me',
 * itemId: 'credits' })` on a client, and `server.customer({ userId }).getItem('credits')` on a
 * server (the handle is server-only: it would add to every ClientApp bundle).
 */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore } from '../core.js';
import { KnownErrors, orNull } from '../errors.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';
import { FeatureSupportFeature } from './feature-support.js';

/** A customer's quantity of an item: `quantity` may be negative (debt); `non_negative_quantity` is floored at 0. */
export type PaymentItem = RouterOutputs['payments']['getItem'];
/** A product a customer holds. */
export type CustomerProduct = RouterOutputs['payments']['listProducts']['items'][number];
/** A page of a customer's products: `items` and `pagination.next_cursor` (null on the last page). */
export type CustomerProductPage = RouterOutputs['payments']['listProducts'];
/** Who owns items and products: a user (`'me'` for the signed-in one), a team, or one of your own ids (servers only). */
export type PaymentCustomerRef = { userId: string } | { teamId: string } | { customCustomerId: string };
/** A product given inline instead of by id, in the spec's snake-case form (servers only). */
export type InlineProduct = {
  display_name?: string;
  customer_type: 'user' | 'team' | 'custom';
  free_trial?: PaymentInterval;
  /** Default true. */
  server_only?: boolean;
  /** Default false. */
  stackable?: boolean;
  prices: 'include-by-default' | Record<string, InlinePrice>;
  included_items?: Record<string, { quantity: number; repeat?: 'never' | PaymentInterval; expires?: 'never' | 'when-purchase-expires' | 'when-repeated' }>;
};
/**
 * A count of a unit, e.g. `[1, 'month']`. Written out here rather than inferred from the contract's
 * zod schema (contract/config/payments.ts, which the server checks it against): the SDK's type
 * declarations must not need zod, which the packages do not install.
 */
export type PaymentInterval = [number, 'millisecond' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year'];
/** Amounts per currency as decimal strings ('9.99'; JPY has no decimals). */
export type InlinePrice = { [currency in 'USD' | 'EUR' | 'GBP' | 'JPY' | 'INR' | 'AUD' | 'CAD']?: string } & {
  interval?: PaymentInterval;
  serverOnly?: boolean;
  freeTrial?: PaymentInterval;
};
/**
 * What to buy: a product of the project's config, and which of its prices (needed when it has
 * several). Inline products are bought through REST (`inline_product`, servers only), not the SDK:
 * every ClientApp bundle would carry it.
 */
export type CheckoutOptions = {
  productId: string;
  priceId?: string;
  /** Stackable products only. */
  quantity?: number;
  /** Where Stripe sends the buyer back (default: the current page in a browser). */
  returnUrl?: string;
};
export type StripeAccountInfo = RouterOutputs['payments']['stripeAccountInfo'];
export type PaymentTransactions = RouterOutputs['payments']['transactions'];
export type PaymentTransactionsQuery = RouterInputs['payments']['transactions'];
/** Revenue per UTC day and currency (integer minor units), live and test mode apart. */
export type Revenue = RouterOutputs['payments']['revenue'];
export type RevenueDay = Revenue['live'][number];
/** An inclusive UTC day range (dates as `YYYY-MM-DD` or Dates, read in UTC), or the last `days` days ending today. */
export type RevenueQuery = { from: string | Date; to: string | Date } | { days?: number };

/** Options of a change of an item's quantity. */
export interface ItemQuantityChangeOptions {
  /** When this change stops counting (an expiring grant). */
  expiresAt?: Date | null;
  description?: string;
}

/**
 * One customer's items, products, checkout and billing portal (the read part of `server.customer(…)`).
 *
 * @example
 * const team = server.customer({ teamId });
 * const seats = await team.getItem('seats');
 * const url = await team.createCheckoutUrl({ productId: 'team_plan', priceId: 'monthly', returnUrl });
 */
export interface PaymentCustomer {
  readonly type: 'user' | 'team' | 'custom';
  /** The user id (or `'me'`), team id or custom id. */
  readonly id: string;
  itemQuery(itemId: string): LatchQuery<PaymentItem>;
  getItem(itemId: string): Promise<PaymentItem>;
  productsQuery(page?: { cursor?: string; limit?: number }): LatchQuery<CustomerProductPage>;
  listProducts(page?: { cursor?: string; limit?: number }): Promise<CustomerProductPage>;
  createCheckoutUrl(options: CheckoutOptions): Promise<string>;
  createBillingPortalUrl(options: { returnUrl: string }): Promise<string | null>;
}

/** A customer's item on a server, with the Stack-style quantity changes. */
export type ServerPaymentItem = PaymentItem & {
  increaseQuantity(amount: number, options?: ItemQuantityChangeOptions): Promise<PaymentItem>;
  /** May take the balance below zero; prefer {@link ServerPaymentItem.tryDecreaseQuantity} for prepaid credits. */
  decreaseQuantity(amount: number, options?: ItemQuantityChangeOptions): Promise<PaymentItem>;
  /** Takes `amount` if the balance allows (atomically on the server): true when taken, false when not. */
  tryDecreaseQuantity(amount: number, options?: Pick<ItemQuantityChangeOptions, 'description'>): Promise<boolean>;
};

/** A customer as server code sees it: it may also change quantities and grant products. */
export interface ServerPaymentCustomer extends Omit<PaymentCustomer, 'getItem'> {
  getItem(itemId: string): Promise<ServerPaymentItem>;
  updateItemQuantity(itemId: string, delta: number, options?: ItemQuantityChangeOptions & { allowNegative?: boolean }): Promise<PaymentItem>;
  tryDecreaseItemQuantity(itemId: string, amount: number, options?: Pick<ItemQuantityChangeOptions, 'description'>): Promise<boolean>;
  grantProduct(product: { productId: string } | { product: InlineProduct }, options?: { quantity?: number }): Promise<CustomerProduct>;
}

/**
 * The wire's customer_type and customer_id of a customer reference. (Kept small: it ships in every
 * ClientApp bundle; a reference naming no customer is the server's SCHEMA_ERROR.)
 */
export function customerOf(ref: PaymentCustomerRef): { customer_type: 'user' | 'team' | 'custom'; customer_id: string } {
  return 'userId' in ref
    ? { customer_type: 'user', customer_id: ref.userId }
    : 'teamId' in ref
      ? { customer_type: 'team', customer_id: ref.teamId }
      : { customer_type: 'custom', customer_id: ref.customCustomerId };
}

/** Items, products, checkout and the billing portal (clients: their own user and their teams). */
export abstract class PaymentsFeature extends FeatureSupportFeature {
  // Calls about a customer run as the session's user on clients, and on servers for `{ userId: 'me' }`
  // (sessionFor). Without a returnUrl, checkout sends the customer back to the current page in a
  // browser; elsewhere there is none, which the server refuses (SCHEMA_ERROR).
  /**
   * A customer's quantity of an item as a cached query (for `useQuery` or `subscribe`).
   *
   * @example
   * app.subscribe(() => app.itemQuery({ userId: 'me', itemId: 'credits' }), (state) => console.log(state.data?.quantity));
   */
  itemQuery(options: PaymentCustomerRef & { itemId: string }): LatchQuery<PaymentItem> {
    const session = this.sessionFor((options as { userId?: string }).userId, false);
    const input = { ...customerOf(options), item_id: options.itemId };
    return defineQuery(this.readKey(session, 'payments.getItem', input), () =>
      this.call((context) => this.trpc.payments.getItem.query(input, { context }), { session }),
    );
  }

  /**
   * A customer's quantity of an item (cached). Clients: their own user and teams they are in.
   *
   * @example
   * const credits = await app.getItem({ userId: 'me', itemId: 'credits' });
   * const seats = await server.getItem({ teamId: team.id, itemId: 'seats' });
   */
  getItem(options: PaymentCustomerRef & { itemId: string }): Promise<PaymentItem> {
    return this.queryClient.fetchQuery(this.itemQuery(options));
  }

  /**
   * A page of the products a customer holds, as a cached query.
   *
   * @example
   * app.subscribe(() => app.productsQuery({ userId: 'me' }), (state) => console.log(state.data?.items));
   */
  productsQuery(options: PaymentCustomerRef & { cursor?: string; limit?: number }): LatchQuery<CustomerProductPage> {
    // Unset cursor and limit are left out of the request and of the cache key (JSON drops undefined).
    const session = this.sessionFor((options as { userId?: string }).userId, false);
    const input = { ...customerOf(options), cursor: options.cursor, limit: options.limit };
    return defineQuery(this.readKey(session, 'payments.listProducts', input), () =>
      this.call((context) => this.trpc.payments.listProducts.query(input, { context }), { session }),
    );
  }

  /**
   * A page of the products a customer holds (`cursor` from the previous page's
   * `pagination.next_cursor`). Clients do not see server-only products.
   *
   * @example
   * const { items } = await app.listProducts({ teamId: team.id });
   */
  listProducts(options: PaymentCustomerRef & { cursor?: string; limit?: number }): Promise<CustomerProductPage> {
    return this.queryClient.fetchQuery(this.productsQuery(options));
  }

  /**
   * A Stripe Checkout URL for a product; send the browser there. In test mode the product is
   * granted at once and the URL is `returnUrl`. Clients buy for themselves, and for a team only
   * with the team's `$update_team` permission.
   *
   * @example
   * location.href = await app.createCheckoutUrl({ userId: 'me', productId: 'pro', priceId: 'monthly' });
   */
  async createCheckoutUrl(options: PaymentCustomerRef & CheckoutOptions): Promise<string> {
    // A self-hosted server may have no Stripe keys for this project: say so before a checkout is attempted.
    await this.requireFeatureSupport('payments');
    const input = {
      ...customerOf(options),
      product_id: options.productId,
      return_url: options.returnUrl ?? (globalThis.location?.href as string),
      price_id: options.priceId,
      quantity: options.quantity,
    };
    const { url } = await this.mutate(['payments.'], (context) => this.trpc.payments.createPurchaseUrl.mutate(input, { context }), {
      session: this.sessionFor((options as { userId?: string }).userId, false),
    });
    return url;
  }

  /**
   * A Stripe Billing Portal URL where the customer manages subscriptions, payment methods and
   * invoices (it sends the browser back to `returnUrl`), or null when the project has no Stripe
   * account ("payment provider account info not found" returns null). Clients: their own user,
   * and a team with its `$update_team` permission.
   *
   * @example
   * const url = await app.createBillingPortalUrl({ userId: 'me', returnUrl: location.href });
   * if (url) location.href = url;
   */
  async createBillingPortalUrl(options: PaymentCustomerRef & { returnUrl: string }): Promise<string | null> {
    const input = { ...customerOf(options), return_url: options.returnUrl };
    const portal = await orNull(
      this.call((context) => this.trpc.payments.billingPortal.mutate(input, { context }), {
        session: this.sessionFor((options as { userId?: string }).userId, false),
      }),
      [KnownErrors.StripeAccountInfoNotFound],
    );
    return portal ? portal.url : null;
  }
}

/** The customer handle of `ServerApp.customer`. */
function serverCustomer(app: ServerPaymentsFeature, ref: PaymentCustomerRef): ServerPaymentCustomer {
  const { customer_type, customer_id } = customerOf(ref);
  if (typeof customer_id !== 'string') throw new TypeError('Name the customer with userId, teamId or customCustomerId.');
  const getItem = (itemId: string) => app.getItem({ ...ref, itemId });
  const updateItemQuantity: ServerPaymentCustomer['updateItemQuantity'] = (itemId, delta, options = {}) =>
    app.updateItemQuantity({ ...ref, itemId, delta, ...options });
  const tryDecreaseItemQuantity: ServerPaymentCustomer['tryDecreaseItemQuantity'] = (itemId, amount, options = {}) =>
    app.tryDecreaseItemQuantity({ ...ref, itemId, amount, ...options });
  return {
    type: customer_type,
    id: customer_id,
    itemQuery: (itemId) => app.itemQuery({ ...ref, itemId }),
    productsQuery: (page = {}) => app.productsQuery({ ...ref, ...page }),
    listProducts: (page = {}) => app.listProducts({ ...ref, ...page }),
    createCheckoutUrl: (options) => app.createCheckoutUrl({ ...ref, ...options }),
    createBillingPortalUrl: (options) => app.createBillingPortalUrl({ ...ref, ...options }),
    updateItemQuantity,
    tryDecreaseItemQuantity,
    grantProduct: (product, options = {}) => app.grantProduct({ ...ref, ...product, ...options }),
    getItem: async (itemId) => ({
      ...(await getItem(itemId)),
      increaseQuantity: (amount, options) => updateItemQuantity(itemId, amount, options),
      decreaseQuantity: (amount, options) => updateItemQuantity(itemId, -amount, { ...options, allowNegative: true }),
      tryDecreaseQuantity: (amount, options) => tryDecreaseItemQuantity(itemId, amount, options),
    }),
  };
}

/** Changing quantities and granting products, and the customer handle (server). */
export abstract class ServerPaymentsFeature extends PaymentsFeature {
  /**
   * One customer's payments as a handle (Stack Auth's server `Customer`): `getItem(itemId)` (an
   * item with `increaseQuantity` / `decreaseQuantity` / `tryDecreaseQuantity`), `listProducts()`,
   * `createCheckoutUrl(…)`, `createBillingPortalUrl()`, `updateItemQuantity`,
   * `tryDecreaseItemQuantity` and `grantProduct`. (Server only, so a browser bundle of
   * `ClientApp` does not carry it; clients name the customer on each call.)
   *
   * @example
   * const org = server.customer({ customCustomerId: 'org-42' });
   * const credits = await org.getItem('credits');
   * if (!(await credits.tryDecreaseQuantity(1))) throw new Error('Out of credits');
   */
  customer(ref: PaymentCustomerRef): ServerPaymentCustomer {
    return serverCustomer(this, ref);
  }

  /**
   * Changes an item's quantity by `delta`; a decrease below zero throws ItemQuantityInsufficientAmount
   * unless `allowNegative`.
   *
   * @example
   * await server.updateItemQuantity({ userId, itemId: 'credits', delta: 100, description: 'welcome bonus' });
   */
  async updateItemQuantity(
    options: PaymentCustomerRef & { itemId: string; delta: number; allowNegative?: boolean } & ItemQuantityChangeOptions,
  ): Promise<PaymentItem> {
    const input = {
      ...customerOf(options),
      item_id: options.itemId,
      delta: options.delta,
      ...(options.expiresAt ? { expires_at: options.expiresAt.getTime() } : {}),
      ...(options.description ? { description: options.description } : {}),
      ...(options.allowNegative ? { allow_negative: true } : {}),
    };
    return this.mutate(['payments.'], (context) => this.trpc.payments.updateItemQuantity.mutate(input, { context }));
  }

  /**
   * Takes `amount` from an item if the balance allows: true when taken, false (not a throw) when
   * the balance is insufficient (spec section 8, ItemQuantityInsufficientAmount). Atomic on the
   * server: concurrent calls never spend the same unit twice.
   *
   * @example
   * if (!(await server.tryDecreaseItemQuantity({ userId, itemId: 'credits', amount: 1 }))) throw new Error('Out of credits');
   */
  async tryDecreaseItemQuantity(options: PaymentCustomerRef & { itemId: string; amount: number; description?: string }): Promise<boolean> {
    if (!(options.amount >= 0)) throw new RangeError('tryDecreaseItemQuantity takes a non-negative amount.');
    try {
      await this.updateItemQuantity({ ...options, delta: -options.amount });
      return true;
    } catch (error) {
      if (error instanceof KnownErrors.ItemQuantityInsufficientAmount) return false;
      throw error;
    }
  }

  /**
   * Grants a product from the project config (`productId`) or an inline one (`product`, in the
   * snake-case form: `server_only` defaults to true, `stackable` to false).
   *
   * @example
   * await server.grantProduct({ teamId: team.id, productId: 'team_plan' });
   * await server.grantProduct({ customCustomerId: 'org-42', product: { customer_type: 'custom', prices: 'include-by-default', included_items: { credits: { quantity: 10 } } } });
   */
  async grantProduct(options: PaymentCustomerRef & ({ productId: string } | { product: InlineProduct }) & { quantity?: number }): Promise<CustomerProduct> {
    const input = {
      ...customerOf(options),
      ...('productId' in options ? { product_id: options.productId } : { product_inline: options.product as Record<string, unknown> }),
      ...(options.quantity ? { quantity: options.quantity } : {}),
    };
    return this.mutate(['payments.'], (context) => this.trpc.payments.grantProduct.mutate(input, { context }));
  }
}

/** Stripe connection and transactions (admin). */
export abstract class AdminPaymentsFeature extends AppCore {
  /** Stores the project's Stripe keys (sealed, never returned); answers the webhook URL to register in Stripe. */
  async setupStripe(input: { stripeSecretKey: string; stripeWebhookSecret: string }): Promise<{ webhookUrl: string }> {
    const result = await this.call((context) =>
      this.trpc.payments.setup.mutate({ stripe_secret_key: input.stripeSecretKey, stripe_webhook_secret: input.stripeWebhookSecret }, { context }),
    );
    return { webhookUrl: result.webhook_url };
  }

  /**
   * The connected Stripe account, or null when none is set up (spec section 8: "payment provider
   * account info not found" returns null).
   *
   * @example
   * const info = await admin.getStripeAccountInfo();
   * if (!info) console.log('Connect Stripe first');
   */
  async getStripeAccountInfo(): Promise<StripeAccountInfo | null> {
    return orNull(
      this.call((context) => this.trpc.payments.stripeAccountInfo.query({}, { context })),
      [KnownErrors.StripeAccountInfoNotFound],
    );
  }

  /**
   * A client secret for Stripe's embedded Connect components on the project's account, or null
   * when Stripe is not set up ("payment provider account info not found" returns null).
   */
  async createStripeAccountSession(): Promise<{ clientSecret: string; expiresAt: Date } | null> {
    const session = await orNull(
      this.call((context) => this.trpc.payments.stripeAccountSession.mutate({}, { context })),
      [KnownErrors.StripeAccountInfoNotFound],
    );
    return session ? { clientSecret: session.client_secret, expiresAt: new Date(session.expires_at_millis) } : null;
  }

  /** A page of transactions, newest first. */
  async listTransactions(query: PaymentTransactionsQuery = {}): Promise<PaymentTransactions> {
    return this.call((context) => this.trpc.payments.transactions.query(query, { context }));
  }

  /**
   * Revenue per UTC day and currency: purchases and renewals, less refunds and disputes on the day
   * they happened, in integer minor units; test-mode purchases are listed apart (`test`). At most
   * 366 days; the last 30 days by default.
   *
   * @example
   * const { live } = await admin.getRevenue({ days: 7 });
   * const januaryUsd = (await admin.getRevenue({ from: '2026-01-01', to: '2026-01-31' })).live.filter((d) => d.currency === 'USD');
   */
  async getRevenue(query: RevenueQuery = {}): Promise<Revenue> {
    const day = (value: string | Date) => (typeof value === 'string' ? value : value.toISOString().slice(0, 10));
    const input = 'from' in query ? { from: day(query.from), to: day(query.to) } : query.days !== undefined ? { days: query.days } : {};
    return this.call((context) => this.trpc.payments.revenue.query(input, { context }));
  }
}
