import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { restOperations, succeed } from '../../trpc/operation.js';
import { adminProcedure, clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import * as schemas from '../../../contract/schemas/payments.js';
import * as service from './service.js';
import * as purchases from './purchases.js';
import * as transactions from './transactions.js';
import * as revenue from './revenue.js';

const op = restOperations(['Payments']);

export const paymentsRouter = router({
  getItem: op(
    clientProcedure,
    'GET /payments/items/{customer_type}/{customer_id}/{item_id}',
    "A customer's quantity of an item (clients: their own user and teams)",
  )
    .input(schemas.itemParamsSchema)
    .output(schemas.itemSchema)
    .query(({ ctx, input }) => service.getItem(ctx.deps, ctx.auth, input.customer_type, input.customer_id, input.item_id)),

  updateItemQuantity: op(
    serverProcedure,
    'POST /payments/items/{customer_type}/{customer_id}/{item_id}/update-quantity',
    'Change an item quantity by delta; a decrease below zero is ITEM_QUANTITY_INSUFFICIENT_AMOUNT unless allow_negative',
  )
    .input(schemas.updateItemQuantitySchema)
    .output(schemas.itemSchema)
    .mutation(({ ctx, input }) =>
      service.updateItemQuantity(ctx.deps, ctx.auth, input.customer_type, input.customer_id, input.item_id, {
        delta: input.delta,
        expires_at_millis: input.expires_at == null ? null : typeof input.expires_at === 'number' ? input.expires_at : Date.parse(input.expires_at),
        description: input.description ?? null,
        allow_negative: input.allow_negative,
      }),
    ),

  listProducts: op(clientProcedure, 'GET /payments/products/{customer_type}/{customer_id}', "A customer's products, cursor-paginated")
    .input(schemas.listProductsQuerySchema)
    .output(schemas.customerProductListSchema)
    .query(({ ctx, input }) => service.listProducts(ctx.deps, ctx.auth, input.customer_type, input.customer_id, input)),

  grantProduct: op(
    serverProcedure,
    'POST /payments/products/{customer_type}/{customer_id}',
    'Grant a product (by product_id or product_inline) to a customer',
    {
      successStatus: 201,
    },
  )
    .input(schemas.grantProductSchema)
    .output(schemas.customerProductSchema)
    .mutation(({ ctx, input }) =>
      service.grantProduct(ctx.deps, ctx.auth, input.customer_type, input.customer_id, {
        product_id: input.product_id,
        product_inline: input.product_inline as never,
        quantity: input.quantity,
      }),
    ),

  createPurchaseUrl: op(
    clientProcedure,
    'POST /payments/purchases/create-purchase-url',
    'A Stripe Checkout URL for a product (test mode: granted at once, answers return_url); clients: for themselves, and for a team with $update_team',
  )
    .input(schemas.createPurchaseUrlSchema)
    .output(schemas.purchaseUrlSchema)
    .mutation(({ ctx, input }) => purchases.createPurchaseUrl(ctx.deps, ctx.auth, { ...input, inline_product: input.inline_product as never })),

  billingPortal: op(
    clientProcedure,
    'POST /payments/billing-portal/{customer_type}/{customer_id}',
    'A Stripe Billing Portal URL for the customer (subscriptions, payment methods, invoices); clients: their own user, and a team with $update_team',
  )
    .input(schemas.billingPortalSchema)
    .output(schemas.purchaseUrlSchema)
    .mutation(({ ctx, input }) => purchases.billingPortalUrl(ctx.deps, ctx.auth, input)),

  stripeAccountSession: op(
    adminProcedure,
    'POST /internal/payments/stripe-widgets/account-session',
    "A client secret for Stripe's embedded Connect components on the project's account",
  )
    .input(z.object({}))
    .output(schemas.accountSessionSchema)
    .mutation(({ ctx }) => purchases.stripeAccountSession(ctx.deps, ctx.auth)),

  setup: op(adminProcedure, 'POST /internal/payments/setup', "Store the project's Stripe secret key and webhook signing secret (sealed; never returned)")
    .input(schemas.stripeSetupSchema)
    .output(schemas.stripeSetupResultSchema)
    .mutation(async ({ ctx, input }) => succeed(await purchases.setupStripe(ctx.deps, ctx.auth, input))),

  stripeAccountInfo: op(
    adminProcedure,
    'GET /internal/payments/stripe/account-info',
    'The connected Stripe account; 404 STRIPE_ACCOUNT_INFO_NOT_FOUND when none',
  )
    .input(z.object({}))
    .output(schemas.stripeAccountInfoSchema)
    .query(({ ctx }) => purchases.stripeAccountInfo(ctx.deps, ctx.auth)),

  transactions: op(
    adminProcedure,
    'GET /internal/payments/transactions',
    'Purchases, renewals, refunds, disputes, failed payments, grants and manual changes, newest first, cursor-paginated',
  )
    .input(schemas.transactionsQuerySchema)
    .output(schemas.transactionListSchema)
    .query(({ ctx, input }) => transactions.listTransactions(ctx.deps, ctx.auth, input)),

  revenue: op(
    adminProcedure,
    'GET /internal/payments/revenue',
    'Revenue per UTC day and currency (from/to dates, or the last `days` days; at most 366): purchases and renewals less refunds and disputes on the day they happen, live and test mode apart',
  )
    .input(schemas.revenueQuerySchema)
    .output(schemas.revenueSchema)
    .query(({ ctx, input }) => revenue.getRevenue(ctx.deps, ctx.auth, input)),
});
