/** Payments: items, products and checkout for users, teams and custom customers (issue 18). */
import { KnownErrors } from '../errors.js';
import { AppCore } from '../core.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';
import { FeatureSupportFeature } from './feature-support.js';

/** A customer's quantity of an item: `quantity` may be negative (debt); `non_negative_quantity` is floored at 0. */
export type PaymentItem = RouterOutputs['payments']['getItem'];
/** A product a customer holds. */
export type CustomerProduct = RouterOutputs['payments']['listProducts']['items'][number];
export type CustomerProductPage = RouterOutputs['payments']['listProducts'];
/** Who owns items and products: a user, a team, or one of your own ids (`custom`, server only). */
export interface PaymentCustomer {
  customerType: 'user' | 'team' | 'custom';
  /** A user id (or `me`), a team id, or your own id for `custom`. */
  customerId: string;
}
export type CheckoutInput = PaymentCustomer & { productId: string; priceId?: string; quantity?: number; returnUrl: string };
export type StripeAccountInfo = RouterOutputs['payments']['stripeAccountInfo'];
export type PaymentTransactions = RouterOutputs['payments']['transactions'];
export type PaymentTransactionsQuery = RouterInputs['payments']['transactions'];
/** Revenue per UTC day and currency (integer minor units), live and test mode apart. */
export type Revenue = RouterOutputs['payments']['revenue'];
export type RevenueDay = Revenue['live'][number];
/** An inclusive UTC day range (dates as `YYYY-MM-DD` or Dates, read in UTC), or the last `days` days ending today. */
export type RevenueQuery = { from: string | Date; to: string | Date } | { days?: number };

const customer = (c: PaymentCustomer) => ({ customer_type: c.customerType, customer_id: c.customerId });

/** Items, products and checkout as the signed-in user (clients: their own user and their teams). */
export abstract class PaymentsFeature extends FeatureSupportFeature {
  /**
   * A customer's quantity of an item.
   *
   * @example
   * const credits = await app.getItem({ customerType: 'user', customerId: 'me', itemId: 'credits' });
   */
  async getItem(input: PaymentCustomer & { itemId: string }): Promise<PaymentItem> {
    const asSession = this.sessionFor(input.customerType === 'user' ? input.customerId : undefined, this.accessLevel() === 'client');
    return this.call((context) => this.trpc.payments.getItem.query({ ...customer(input), item_id: input.itemId }, { context }), { session: asSession });
  }

  /**
   * A page of the products a customer holds (`cursor` from the previous page's `pagination.next_cursor`).
   *
   * @example
   * const { items } = await app.listProducts({ customerType: 'team', customerId: team.id });
   */
  async listProducts(input: PaymentCustomer & { cursor?: string; limit?: number }): Promise<CustomerProductPage> {
    const asSession = this.sessionFor(input.customerType === 'user' ? input.customerId : undefined, this.accessLevel() === 'client');
    return this.call(
      (context) =>
        this.trpc.payments.listProducts.query(
          { ...customer(input), ...(input.cursor ? { cursor: input.cursor } : {}), ...(input.limit ? { limit: input.limit } : {}) },
          { context },
        ),
      { session: asSession },
    );
  }

  /**
   * A Stripe Checkout URL for a product (in test mode the product is granted at once and the URL
   * is `returnUrl`). Send the browser there.
   *
   * @example
   * location.href = await app.createCheckoutUrl({ customerType: 'user', customerId: 'me', productId: 'pro', priceId: 'monthly', returnUrl: location.href });
   */
  async createCheckoutUrl(input: CheckoutInput): Promise<string> {
    // A self-hosted server may have no Stripe keys for this project: say so before a checkout is attempted.
    await this.requireFeatureSupport('payments');
    const asSession = this.sessionFor(input.customerType === 'user' ? input.customerId : undefined, this.accessLevel() === 'client');
    const { url } = await this.call(
      (context) =>
        this.trpc.payments.createPurchaseUrl.mutate(
          {
            ...customer(input),
            product_id: input.productId,
            return_url: input.returnUrl,
            ...(input.priceId ? { price_id: input.priceId } : {}),
            ...(input.quantity ? { quantity: input.quantity } : {}),
          },
          { context },
        ),
      { session: asSession },
    );
    return url;
  }

  /**
   * A Stripe Billing Portal URL where the customer manages subscriptions, payment methods and
   * invoices; it sends the browser back to `returnUrl`.
   *
   * @example
   * location.href = await app.createBillingPortalUrl({ customerType: 'user', customerId: 'me', returnUrl: location.href });
   */
  async createBillingPortalUrl(input: PaymentCustomer & { returnUrl: string }): Promise<string> {
    const asSession = this.sessionFor(input.customerType === 'user' ? input.customerId : undefined, this.accessLevel() === 'client');
    const { url } = await this.call((context) => this.trpc.payments.billingPortal.mutate({ ...customer(input), return_url: input.returnUrl }, { context }), {
      session: asSession,
    });
    return url;
  }
}

/** Changing quantities and granting products (server). */
export abstract class ServerPaymentsFeature extends AppCore {
  /**
   * Changes an item's quantity by `delta`; a decrease below zero throws ItemQuantityInsufficientAmount
   * unless `allowNegative`.
   */
  async updateItemQuantity(
    input: PaymentCustomer & { itemId: string; delta: number; expiresAt?: Date | null; description?: string; allowNegative?: boolean },
  ): Promise<PaymentItem> {
    return this.call((context) =>
      this.trpc.payments.updateItemQuantity.mutate(
        {
          ...customer(input),
          item_id: input.itemId,
          delta: input.delta,
          ...(input.expiresAt ? { expires_at: input.expiresAt.getTime() } : {}),
          ...(input.description ? { description: input.description } : {}),
          ...(input.allowNegative ? { allow_negative: true } : {}),
        },
        { context },
      ),
    );
  }

  /**
   * Takes `amount` from an item if the balance allows: true when taken, false (not a throw) when
   * the balance is insufficient (spec section 8, ItemQuantityInsufficientAmount). Atomic on the
   * server: concurrent calls never spend the same unit twice.
   *
   * @example
   * if (!(await server.tryDecreaseItemQuantity({ customerType: 'user', customerId: userId, itemId: 'credits', amount: 1 }))) throw new Error('Out of credits');
   */
  async tryDecreaseItemQuantity(input: PaymentCustomer & { itemId: string; amount: number; description?: string }): Promise<boolean> {
    try {
      await this.updateItemQuantity({ ...input, delta: -input.amount });
      return true;
    } catch (error) {
      if (error instanceof KnownErrors.ItemQuantityInsufficientAmount) return false;
      throw error;
    }
  }

  /** Grants a product from the project config (`productId`) or an inline one (snake-case form). */
  async grantProduct(
    input: PaymentCustomer & ({ productId: string } | { productInline: Record<string, unknown> }) & { quantity?: number },
  ): Promise<CustomerProduct> {
    return this.call((context) =>
      this.trpc.payments.grantProduct.mutate(
        {
          ...customer(input),
          ...('productId' in input ? { product_id: input.productId } : { product_inline: input.productInline }),
          ...(input.quantity ? { quantity: input.quantity } : {}),
        },
        { context },
      ),
    );
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

  /** The connected Stripe account, or null when none is set up (spec section 8: "returns null"). */
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
