import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import type { Product } from '../../../contract/config/payments.js';
import { grantLocked } from './service.js';
import { type Stripe, stripeClient } from './stripe.js';
import { stripeKeys } from './purchases.js';
import { itemsOf, recordPurchaseTransaction } from './transactions.js';
import * as q from './queries.js';
import * as bq from './billing-queries.js';

/**
 * Stripe events applied to purchases and the ledger (issue 18 item 5). Each handler re-fetches the
 * object from Stripe first (outside any transaction: on PGlite a transaction holds the only
 * connection), then applies what Stripe reports *now* in one transaction under the customer's
 * lock. Applying is idempotent (a purchase completes once, each transaction row is keyed by its
 * Stripe source), so a repeated, late or out-of-order event leaves the same state. Every lookup is
 * scoped by the tenancy whose endpoint received the event: an event for project A finds nothing in B.
 */

type Outcome = 'granted' | 'expired' | 'updated' | 'recorded' | 'nothing' | 'ignored';

export async function applyStripeEvent(deps: Deps, tenancyId: string, type: string, objectId: string): Promise<Outcome> {
  const keys = await stripeKeys(deps, deps.db, tenancyId);
  if (!keys || !objectId) return 'nothing';
  const stripe = await stripeClient(deps, keys.secretKey);
  if (type.startsWith('checkout.session.')) return applyCheckoutSession(deps, stripe, tenancyId, objectId);
  if (type.startsWith('customer.subscription.')) return applySubscription(deps, stripe, tenancyId, objectId);
  if (type === 'invoice.paid' || type === 'invoice.payment_failed') return applyInvoice(deps, stripe, tenancyId, objectId, type === 'invoice.payment_failed');
  if (type === 'charge.refunded') return applyRefunds(deps, stripe, tenancyId, objectId);
  if (type === 'charge.dispute.created') return applyDispute(deps, stripe, tenancyId, objectId);
  return 'ignored';
}

const idOf = (value: string | { id: string } | null | undefined): string | null => (typeof value === 'string' ? value : (value?.id ?? null));
const fromUnix = (seconds: number | null | undefined): Date | null => (seconds == null ? null : new Date(seconds * 1000));

/** The PaymentIntent that paid an invoice (API basil and later list it under `payments`). */
async function invoicePaymentIntent(stripe: Stripe, invoiceId: string | null): Promise<string | null> {
  if (!invoiceId) return null;
  const invoice = await stripe.invoices.retrieve(invoiceId, { expand: ['payments'] });
  return paymentIntentOf(invoice);
}

function paymentIntentOf(invoice: Stripe.Invoice): string | null {
  for (const p of invoice.payments?.data ?? []) {
    const pi = idOf(p.payment?.payment_intent ?? null);
    if (pi) return pi;
  }
  return null;
}

/**
 * Completes a pending purchase under the customer's lock: grants its product (a product the
 * customer got meanwhile does not block a paid checkout, so it is granted as stackable) and writes
 * the purchase transaction. Returns the completed purchase, or null when it was not pending.
 */
async function completePending(
  trx: Executor,
  tenancyId: string,
  purchaseId: string,
  stripeIds: { stripe_subscription_id?: string; stripe_payment_intent_id?: string },
): Promise<q.PurchaseRow | null> {
  const found = await q.findPurchaseById(trx, tenancyId, purchaseId);
  if (!found) return null;
  const customer: q.CustomerKey = { tenancyId, type: found.customer_type, id: found.customer_id };
  await q.lockCustomer(trx, customer);
  const locked = await q.findPurchaseById(trx, tenancyId, purchaseId);
  if (!locked || locked.status !== 'pending') return null;
  const now = new Date();
  const product = locked.product_snapshot as Product;
  const granted = await grantLocked(trx, customer, locked.product_id, { ...product, stackable: true }, locked.quantity, 'purchase', now);
  await q.completePurchase(trx, tenancyId, locked.id, granted.id, now);
  await bq.setPurchaseStripeIds(trx, tenancyId, locked.id, stripeIds);
  const completed = { ...locked, status: 'completed' as const, customer_product_id: granted.id, completed_at: now, ...stripeIds };
  await recordPurchaseTransaction(trx, tenancyId, completed, 'purchase', `purchase:${locked.id}`, now, {
    items: itemsOf(product, locked.quantity),
    stripe_payment_intent_id: stripeIds.stripe_payment_intent_id ?? null,
  });
  return completed;
}

/**
 * A Checkout Session as Stripe reports it now: complete and paid (or free) grants the product once;
 * expired marks the purchase expired. A subscription-mode session also records its subscription.
 */
async function applyCheckoutSession(deps: Deps, stripe: Stripe, tenancyId: string, sessionId: string): Promise<Outcome> {
  const session = await stripe.checkout.sessions.retrieve(sessionId);
  const paid = session.status === 'complete' && (session.payment_status === 'paid' || session.payment_status === 'no_payment_required');
  const subscriptionId = idOf(session.subscription);
  const paymentIntent = idOf(session.payment_intent) ?? (paid && subscriptionId ? await invoicePaymentIntent(stripe, idOf(session.invoice)) : null);
  const outcome = await deps.db.transaction().execute(async (trx): Promise<Outcome> => {
    let purchase = await q.findPurchaseBySession(trx, tenancyId, sessionId);
    // A webhook that beats step 3 of createPurchaseUrl (the session not yet stored): the session
    // names its purchase (client_reference_id, set by Latch), which is then linked here.
    if (!purchase && session.client_reference_id && session.metadata?.latch_tenancy_id === tenancyId) {
      const byId = await q.findPurchaseById(trx, tenancyId, session.client_reference_id);
      if (byId && byId.stripe_checkout_session_id === null && byId.mode === 'stripe') {
        await q.setPurchaseSession(trx, tenancyId, byId.id, session.id, session.url ?? '');
        purchase = { ...byId, stripe_checkout_session_id: session.id };
      }
    }
    if (!purchase || purchase.status !== 'pending') return 'nothing';
    if (session.status === 'expired') {
      await q.expirePurchase(trx, tenancyId, purchase.id);
      return 'expired';
    }
    if (!paid) return 'nothing';
    const ids = {
      ...(subscriptionId ? { stripe_subscription_id: subscriptionId } : {}),
      ...(paymentIntent ? { stripe_payment_intent_id: paymentIntent } : {}),
    };
    return (await completePending(trx, tenancyId, purchase.id, ids)) ? 'granted' : 'nothing';
  });
  // The subscription's state (period, cancel at period end) is stored now too: its own event may
  // have come first and found no purchase yet.
  if (subscriptionId) await applySubscription(deps, stripe, tenancyId, subscriptionId);
  return outcome;
}

const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired']);
const LIVE = new Set(['active', 'trialing', 'past_due']);

/**
 * A subscription as Stripe reports it now. Its product stays held while the subscription lives
 * (past_due included: Stripe is still retrying); cancel at period end sets the product's end to the
 * period's end; a cancelled one ends the product when it ended (when-purchase-expires grants
 * expire then, repeating grants stop). A live subscription whose checkout event has not arrived
 * yet completes its purchase here (the purchase id is in the subscription's metadata).
 */
async function applySubscription(deps: Deps, stripe: Stripe, tenancyId: string, subscriptionId: string): Promise<Outcome> {
  const sub = await stripe.subscriptions.retrieve(subscriptionId);
  let purchaseId = await bq.findPurchaseIdBySubscription(deps.db, tenancyId, subscriptionId);
  if (!purchaseId && sub.metadata?.latch_tenancy_id === tenancyId && sub.metadata.latch_purchase_id) purchaseId = sub.metadata.latch_purchase_id;
  if (!purchaseId) return 'nothing';
  const paymentIntent = LIVE.has(sub.status) ? await invoicePaymentIntent(stripe, idOf(sub.latest_invoice)) : null;
  const item = sub.items.data[0];
  const periodEnd = fromUnix(item?.current_period_end);
  return deps.db.transaction().execute(async (trx): Promise<Outcome> => {
    let purchase = await q.findPurchaseById(trx, tenancyId, purchaseId);
    if (!purchase || purchase.mode !== 'stripe') return 'nothing';
    // Only the subscription this purchase was made for (an id from metadata must not claim another's).
    if (purchase.stripe_subscription_id && purchase.stripe_subscription_id !== subscriptionId) return 'nothing';
    if (purchase.status === 'pending' && LIVE.has(sub.status)) {
      purchase =
        (await completePending(trx, tenancyId, purchase.id, {
          stripe_subscription_id: subscriptionId,
          ...(paymentIntent ? { stripe_payment_intent_id: paymentIntent } : {}),
        })) ?? purchase;
    }
    if (purchase.status !== 'completed' || !purchase.customer_product_id) return 'nothing';
    const customer: q.CustomerKey = { tenancyId, type: purchase.customer_type, id: purchase.customer_id };
    await q.lockCustomer(trx, customer);
    await bq.upsertSubscription(trx, tenancyId, {
      stripe_subscription_id: subscriptionId,
      purchase_id: purchase.id,
      customer_type: purchase.customer_type,
      customer_id: purchase.customer_id,
      status: sub.status,
      current_period_start: fromUnix(item?.current_period_start),
      current_period_end: periodEnd,
      cancel_at_period_end: sub.cancel_at_period_end,
      ended_at: fromUnix(sub.ended_at),
    });
    const end = ENDED.has(sub.status) ? (fromUnix(sub.ended_at) ?? fromUnix(sub.canceled_at) ?? new Date()) : sub.cancel_at_period_end ? periodEnd : null;
    await q.endCustomerProducts(trx, customer, [purchase.customer_product_id], end);
    return 'updated';
  });
}

/**
 * invoice.paid: a renewal (any paid invoice after the first) is recorded once with its amount and
 * the repeating items of the new period. invoice.payment_failed: recorded once. Either way the
 * subscription is re-synced first, so the purchase exists whatever order the events came in.
 */
async function applyInvoice(deps: Deps, stripe: Stripe, tenancyId: string, invoiceId: string, failed: boolean): Promise<Outcome> {
  const invoice = await stripe.invoices.retrieve(invoiceId, { expand: ['payments'] });
  const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription ?? null);
  if (!subscriptionId) return 'nothing';
  await applySubscription(deps, stripe, tenancyId, subscriptionId);
  const purchaseId = await bq.findPurchaseIdBySubscription(deps.db, tenancyId, subscriptionId);
  if (!purchaseId) return 'nothing';
  const renewal = invoice.status === 'paid' && invoice.billing_reason !== 'subscription_create';
  if (!renewal && !failed) return 'nothing';
  return deps.db.transaction().execute(async (trx): Promise<Outcome> => {
    const purchase = await q.findPurchaseById(trx, tenancyId, purchaseId);
    if (!purchase) return 'nothing';
    const at = fromUnix(invoice.created) ?? new Date();
    const money = { currency: invoice.currency.toUpperCase(), stripe_payment_intent_id: paymentIntentOf(invoice) };
    if (renewal) {
      await recordPurchaseTransaction(trx, tenancyId, purchase, 'renewal', `renewal:${invoice.id}`, at, {
        ...money,
        amount_minor: invoice.amount_paid,
        items: itemsOf(purchase.product_snapshot as Product, purchase.quantity, true),
      });
    }
    if (failed) {
      await recordPurchaseTransaction(trx, tenancyId, purchase, 'payment_failed', `payment_failed:${invoice.id}`, at, {
        ...money,
        amount_minor: invoice.amount_due,
        description: 'Renewal payment failed',
      });
    }
    return 'recorded';
  });
}

/** The purchase a Stripe payment belongs to, in this tenancy only. */
async function purchaseOfPayment(db: Executor, tenancyId: string, paymentIntentId: string | null): Promise<q.PurchaseRow | undefined> {
  if (!paymentIntentId) return undefined;
  const origin = await bq.findTransactionByPaymentIntent(db, tenancyId, paymentIntentId);
  return origin?.purchase_id ? q.findPurchaseById(db, tenancyId, origin.purchase_id) : undefined;
}

/**
 * charge.refunded: each refund of the charge is recorded once (negative amount). A one-time
 * purchase refunded in full is revoked: its product ends now, so its when-purchase-expires items
 * go. A subscription's refund is recorded only: cancelling is a separate decision in Stripe.
 */
async function applyRefunds(deps: Deps, stripe: Stripe, tenancyId: string, chargeId: string): Promise<Outcome> {
  const charge = await stripe.charges.retrieve(chargeId);
  const purchase = await purchaseOfPayment(deps.db, tenancyId, idOf(charge.payment_intent));
  if (!purchase) return 'nothing';
  const refunds = await stripe.refunds.list({ charge: chargeId, limit: 100 });
  return deps.db.transaction().execute(async (trx): Promise<Outcome> => {
    const customer: q.CustomerKey = { tenancyId, type: purchase.customer_type, id: purchase.customer_id };
    await q.lockCustomer(trx, customer);
    for (const refund of refunds.data) {
      if (refund.status !== 'succeeded') continue;
      await recordPurchaseTransaction(trx, tenancyId, purchase, 'refund', `refund:${refund.id}`, fromUnix(refund.created) ?? new Date(), {
        currency: refund.currency.toUpperCase(),
        amount_minor: -refund.amount,
        stripe_payment_intent_id: idOf(charge.payment_intent),
      });
    }
    const now = new Date();
    if (
      charge.refunded &&
      !purchase.stripe_subscription_id &&
      purchase.customer_product_id &&
      (await bq.markPurchaseRefunded(trx, tenancyId, purchase.id, now))
    ) {
      await q.endCustomerProducts(trx, customer, [purchase.customer_product_id], now);
    }
    return 'recorded';
  });
}

/** charge.dispute.created: recorded once with the disputed amount (negative); the product stays until the dispute is lost. */
async function applyDispute(deps: Deps, stripe: Stripe, tenancyId: string, disputeId: string): Promise<Outcome> {
  const dispute = await stripe.disputes.retrieve(disputeId);
  const purchase = await purchaseOfPayment(deps.db, tenancyId, idOf(dispute.payment_intent));
  if (!purchase) return 'nothing';
  return deps.db.transaction().execute(async (trx): Promise<Outcome> => {
    await recordPurchaseTransaction(trx, tenancyId, purchase, 'dispute', `dispute:${dispute.id}`, fromUnix(dispute.created) ?? new Date(), {
      currency: dispute.currency.toUpperCase(),
      amount_minor: -dispute.amount,
      stripe_payment_intent_id: idOf(dispute.payment_intent),
      description: `Dispute: ${dispute.reason}`,
    });
    return 'recorded';
  });
}
