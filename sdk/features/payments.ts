/**
 * Payments: items, products, checkout and the billing portal for users, teams and custom
 * customers (issue 18). A customer is named as Stack Auth names it: `{ userId }` (a user id, or
 * `'me'`), `{ teamId }` or `{ customCustomerId }` (your own id; servers only). Users and teams are
 * plain data in this SDK, so Stack's `user.getItem(…)` / `team.createCheckoutUrl(…)` are
 * `app.customer({ userId: user.id }).getItem(…)` / `app.customer({ teamId: team.id }).createCheckoutUrl(…)`.
 */
import type { z } from 'zod';
import type { inlineProductSchema } from '../../contract/config/payments.js';
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore } from '../core.js';
import { KnownErrors } from '../errors.js';
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
export type InlineProduct = z.input<typeof inlineProductSchema>;
/** What to buy: a product of the project's config (and which of its prices), or an inline product (servers only). */
export type CheckoutProduct = { productId: string; priceId?: string } | { product: InlineProduct; priceId?: string };
export type CheckoutOptions = CheckoutProduct & {
  /** Stackable products only. */
  quantity?: number;
  /** Where Stripe sends the buyer back (default: the current page in a browser). */
  returnUrl?: string;
};
export type StripeAccountInfo = RouterOutputs['payments']['stripeAccountInfo'];
export type PaymentTransactions = RouterOutputs['payments']['transactions'];
export type PaymentTransactionsQuery = RouterInputs['payments']['transactions'];

/** Options of a change of an item's quantity. */
export interface ItemQuantityChangeOptions {
  /** When this change stops counting (an expiring grant). */
  expiresAt?: Date | null;
  description?: string;
}

/**
 * One customer's items, products, checkout and billing portal, from `app.customer(…)`.
 *
 * @example
 * const me = app.customer({ userId: 'me' });
 * const credits = await me.getItem('credits');
 * location.href = await me.createCheckoutUrl({ productId: 'pro', priceId: 'monthly' });
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
  createBillingPortalUrl(options?: { returnUrl?: string }): Promise<string | null>;
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

/** The wire's customer_type and customer_id of a customer reference (exactly one of its forms). */
export function customerOf(ref: PaymentCustomerRef): { customer_type: 'user' | 'team' | 'custom'; customer_id: string } {
  const forms = ['userId', 'teamId', 'customCustomerId'].filter((key) => typeof (ref as Record<string, unknown>)[key] === 'string');
  if (forms.length !== 1) throw new TypeError('Name the customer with exactly one of userId, teamId or customCustomerId.');
  if ('userId' in ref) return { customer_type: 'user', customer_id: ref.userId };
  if ('teamId' in ref) return { customer_type: 'team', customer_id: ref.teamId };
  return { customer_type: 'custom', customer_id: ref.customCustomerId };
}

/** What a payment write can change: items, products (and the admin's transaction list). */
const PAYMENTS_DATA = ['payments.'] as const;

/** The current page in a browser, else an error naming what to pass. */
function defaultReturnUrl(given: string | undefined, method: string): string {
  if (given) return given;
  if (typeof window !== 'undefined' && typeof window.location?.href === 'string') return window.location.href;
  throw new Error(`${method} needs a returnUrl outside a browser (where Stripe sends the customer back).`);
}

/** Items, products, checkout and the billing portal (clients: their own user and their teams). */
export abstract class PaymentsFeature extends FeatureSupportFeature {
  /** Whether a call about this customer runs as the session's user (clients always; servers for `'me'`). */
  private paymentsAsSession(ref: PaymentCustomerRef): boolean {
    return this.sessionFor('userId' in ref ? ref.userId : undefined, false);
  }

  /**
   * A customer's quantity of an item as a cached query (for `useQuery` or `subscribe`).
   *
   * @example
   * app.subscribe(() => app.itemQuery({ userId: 'me', itemId: 'credits' }), (state) => console.log(state.data?.quantity));
   */
  itemQuery(options: PaymentCustomerRef & { itemId: string }): LatchQuery<PaymentItem> {
    const asSession = this.paymentsAsSession(options);
    const input = { ...customerOf(options), item_id: options.itemId };
    return defineQuery(this.readKey(asSession, 'payments.getItem', input), () =>
      this.call((context) => this.trpc.payments.getItem.query(input, { context }), { session: asSession }),
    );
  }

  /**
   * A customer's quantity of an item (cached). Clients: their own user and teams they are in.
   *
   * @example
   * const credits = await app.getItem({ userId: 'me', itemId: 'credits' });
   * const seats = await server.getItem({ teamId: team.id, itemId: 'seats' });
   */
  async getItem(options: PaymentCustomerRef & { itemId: string }): Promise<PaymentItem> {
    return this.queryClient.fetchQuery(this.itemQuery(options));
  }

  /**
   * A page of the products a customer holds, as a cached query.
   *
   * @example
   * app.subscribe(() => app.productsQuery({ userId: 'me' }), (state) => console.log(state.data?.items));
   */
  productsQuery(options: PaymentCustomerRef & { cursor?: string; limit?: number }): LatchQuery<CustomerProductPage> {
    const asSession = this.paymentsAsSession(options);
    const input = { ...customerOf(options), ...(options.cursor ? { cursor: options.cursor } : {}), ...(options.limit ? { limit: options.limit } : {}) };
    return defineQuery(this.readKey(asSession, 'payments.listProducts', input), () =>
      this.call((context) => this.trpc.payments.listProducts.query(input, { context }), { session: asSession }),
    );
  }

  /**
   * A page of the products a customer holds (`cursor` from the previous page's
   * `pagination.next_cursor`). Clients do not see server-only products.
   *
   * @example
   * const { items } = await app.listProducts({ teamId: team.id });
   */
  async listProducts(options: PaymentCustomerRef & { cursor?: string; limit?: number }): Promise<CustomerProductPage> {
    return this.queryClient.fetchQuery(this.productsQuery(options));
  }

  /**
   * A Stripe Checkout URL for a product; send the browser there. In test mode the product is
   * granted at once and the URL is `returnUrl`. Clients buy for themselves, and for a team only
   * with the team's `$update_team` permission; inline products are for servers.
   *
   * @example
   * location.href = await app.createCheckoutUrl({ userId: 'me', productId: 'pro', priceId: 'monthly' });
   */
  async createCheckoutUrl(options: PaymentCustomerRef & CheckoutOptions): Promise<string> {
    // A self-hosted server may have no Stripe keys for this project: say so before a checkout is attempted.
    await this.requireFeatureSupport('payments');
    const input = {
      ...customerOf(options),
      ...('productId' in options ? { product_id: options.productId } : { inline_product: options.product as Record<string, unknown> }),
      return_url: defaultReturnUrl(options.returnUrl, 'createCheckoutUrl'),
      ...(options.priceId ? { price_id: options.priceId } : {}),
      ...(options.quantity ? { quantity: options.quantity } : {}),
    };
    const { url } = await this.mutate(PAYMENTS_DATA, (context) => this.trpc.payments.createPurchaseUrl.mutate(input, { context }), {
      session: this.paymentsAsSession(options),
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
   * const url = await app.createBillingPortalUrl({ userId: 'me' });
   * if (url) location.href = url;
   */
  async createBillingPortalUrl(options: PaymentCustomerRef & { returnUrl?: string }): Promise<string | null> {
    const input = { ...customerOf(options), return_url: defaultReturnUrl(options.returnUrl, 'createBillingPortalUrl') };
    try {
      const { url } = await this.call((context) => this.trpc.payments.billingPortal.mutate(input, { context }), { session: this.paymentsAsSession(options) });
      return url;
    } catch (error) {
      if (error instanceof KnownErrors.StripeAccountInfoNotFound) return null;
      throw error;
    }
  }

  /**
   * One customer's payments as a handle (Stack Auth's `Customer`): `getItem(itemId)`,
   * `listProducts()`, `createCheckoutUrl(…)`, `createBillingPortalUrl()`. A `ServerApp`'s handle
   * also changes quantities and grants products.
   *
   * @example
   * const team = app.customer({ teamId });
   * const { items } = await team.listProducts();
   */
  customer(ref: PaymentCustomerRef): PaymentCustomer {
    return clientCustomer(this, ref);
  }
}

type PaymentsApp = Pick<PaymentsFeature, 'itemQuery' | 'getItem' | 'productsQuery' | 'listProducts' | 'createCheckoutUrl' | 'createBillingPortalUrl'>;

function clientCustomer(app: PaymentsApp, ref: PaymentCustomerRef): PaymentCustomer {
  const { customer_type, customer_id } = customerOf(ref);
  return {
    type: customer_type,
    id: customer_id,
    itemQuery: (itemId) => app.itemQuery({ ...ref, itemId }),
    getItem: (itemId) => app.getItem({ ...ref, itemId }),
    productsQuery: (page = {}) => app.productsQuery({ ...ref, ...page }),
    listProducts: (page = {}) => app.listProducts({ ...ref, ...page }),
    createCheckoutUrl: (options) => app.createCheckoutUrl({ ...ref, ...options }),
    createBillingPortalUrl: (options = {}) => app.createBillingPortalUrl({ ...ref, ...options }),
  };
}

/** The server's customer handle (`ServerApp.customer`): the client handle plus quantity changes and grants. */
export function serverCustomer(app: PaymentsApp & ServerPaymentsFeature, ref: PaymentCustomerRef): ServerPaymentCustomer {
  const base = clientCustomer(app, ref);
  const updateItemQuantity: ServerPaymentCustomer['updateItemQuantity'] = (itemId, delta, options = {}) =>
    app.updateItemQuantity({ ...ref, itemId, delta, ...options });
  const tryDecreaseItemQuantity: ServerPaymentCustomer['tryDecreaseItemQuantity'] = (itemId, amount, options = {}) =>
    app.tryDecreaseItemQuantity({ ...ref, itemId, amount, ...options });
  return {
    ...base,
    updateItemQuantity,
    tryDecreaseItemQuantity,
    grantProduct: (product, options = {}) => app.grantProduct({ ...ref, ...product, ...options }),
    getItem: async (itemId) => ({
      ...(await base.getItem(itemId)),
      increaseQuantity: (amount, options) => updateItemQuantity(itemId, amount, options),
      decreaseQuantity: (amount, options) => updateItemQuantity(itemId, -amount, { ...options, allowNegative: true }),
      tryDecreaseQuantity: (amount, options) => tryDecreaseItemQuantity(itemId, amount, options),
    }),
  };
}

/** Changing quantities and granting products (server). */
export abstract class ServerPaymentsFeature extends AppCore {
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
    return this.mutate(PAYMENTS_DATA, (context) => this.trpc.payments.updateItemQuantity.mutate(input, { context }));
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
    return this.mutate(PAYMENTS_DATA, (context) => this.trpc.payments.grantProduct.mutate(input, { context }));
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
    try {
      return await this.call((context) => this.trpc.payments.stripeAccountInfo.query({}, { context }));
    } catch (error) {
      if (error instanceof KnownErrors.StripeAccountInfoNotFound) return null;
      throw error;
    }
  }

  /**
   * A client secret for Stripe's embedded Connect components on the project's account, or null
   * when Stripe is not set up ("payment provider account info not found" returns null).
   */
  async createStripeAccountSession(): Promise<{ clientSecret: string; expiresAt: Date } | null> {
    try {
      const session = await this.call((context) => this.trpc.payments.stripeAccountSession.mutate({}, { context }));
      return { clientSecret: session.client_secret, expiresAt: new Date(session.expires_at_millis) };
    } catch (error) {
      if (error instanceof KnownErrors.StripeAccountInfoNotFound) return null;
      throw error;
    }
  }

  /** A page of transactions, newest first. */
  async listTransactions(query: PaymentTransactionsQuery = {}): Promise<PaymentTransactions> {
    return this.call((context) => this.trpc.payments.transactions.query(query, { context }));
  }
}
