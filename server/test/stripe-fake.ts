import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Stripe from 'stripe';

/**
 * A local Stripe for tests (issue 18): there is no installable stripe-mock, so this node:http
 * server answers the few endpoints Latch calls, and the real `stripe` SDK talks to it through its
 * host/port/protocol options (LATCH_STRIPE_API_BASE / env.stripeApiBase, test only). It keeps
 * state like Stripe does (customers, Checkout Sessions, idempotency keys) and emits webhooks signed
 * with stripe.webhooks.generateTestHeaderString, so the signature check is the real one.
 */

export interface FakeCheckoutSession {
  id: string;
  object: 'checkout.session';
  url: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  mode: string;
  customer: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  currency: string | null;
  amount_total: number | null;
  unit_amount: number;
  subscription: string | null;
  payment_intent: string | null;
  invoice: string | null;
  success_url: string | null;
  /** Recurring price of a subscription-mode session: [interval_count, interval]. */
  recurring: [number, string] | null;
  subscription_metadata: Record<string, string>;
}

/** Stripe's objects the fake keeps (the shapes of API version basil and later). */
export type FakeObject = Record<string, unknown> & { id: string; object: string };

export interface StripeFake {
  url: string;
  port: number;
  sessions: Map<string, FakeCheckoutSession>;
  customers: Map<string, { id: string; metadata: Record<string, string> }>;
  /** Subscriptions, invoices, charges, refunds, disputes, portal and account sessions by id. */
  objects: Map<string, FakeObject>;
  /** Requests seen, as `METHOD /path` (for assertions on what Latch called). */
  requests: string[];
  /** Where the checkout page's Pay button delivers its events (the browser test's webhook). */
  webhookUrl: string | null;
  /** A subscription's next period: a paid renewal invoice (invoice.paid, customer.subscription.updated). */
  renewSubscription(subscriptionId: string): FakeEvent[];
  /** The renewal's payment fails: the invoice stays open, the subscription goes past_due. */
  failRenewal(subscriptionId: string): FakeEvent[];
  /** cancel_at_period_end (customer.subscription.updated). */
  cancelAtPeriodEnd(subscriptionId: string, cancel?: boolean): FakeEvent;
  /** Ends the subscription now (customer.subscription.deleted). */
  cancelSubscription(subscriptionId: string): FakeEvent;
  /** Refunds `amount` (default: the rest) of a charge (charge.refunded). */
  refund(chargeId: string, amount?: number): FakeEvent;
  /** Opens a dispute on a charge (charge.dispute.created). */
  dispute(chargeId: string): FakeEvent;
  /** The charge that paid a session (one-time) or a subscription's latest invoice. */
  chargeOf(id: string): string;
  /** Marks the session paid and complete and returns the signed event for it (not yet sent). */
  completeCheckout(id: string): FakeEvent;
  expireCheckout(id: string): FakeEvent;
  /** A signed event about an object (a session or any of `objects`) in its current state, of any type. */
  eventFor(type: string, id: string, options?: { timestamp?: number; secret?: string }): FakeEvent;
  /** POSTs an event to a webhook URL as Stripe does. */
  deliver(event: FakeEvent, webhookUrl: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export interface FakeEvent {
  id: string;
  payload: string;
  signature: string;
}

/** Flattens a form body (`a[b][0][c]=1`) into path → value. */
function parseForm(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(body)) out.set(key, value);
  return out;
}

function metadataOf(form: Map<string, string>): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [key, value] of form) {
    const m = /^metadata\[(.+)\]$/.exec(key);
    if (m?.[1]) metadata[m[1]] = value;
  }
  return metadata;
}

const DAY = 86_400;
const UNIT_SECONDS: Record<string, number> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };
const now = () => Math.floor(Date.now() / 1000);
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startStripeFake(options: { port?: number; webhookSecret: string }): Promise<StripeFake> {
  const sessions = new Map<string, FakeCheckoutSession>();
  const customers = new Map<string, { id: string; metadata: Record<string, string> }>();
  const objects = new Map<string, FakeObject>();
  const idempotent = new Map<string, string>();
  const requests: string[] = [];
  let counter = 0;
  const next = (prefix: string) => `${prefix}_${String(++counter).padStart(8, '0')}`;
  let base = '';

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': next('req') });
    res.end(JSON.stringify(body));
  };
  const notFound = (res: ServerResponse, what: string) =>
    send(res, 404, { error: { type: 'invalid_request_error', message: `No such ${what}`, code: 'resource_missing' } });
  const put = <T extends FakeObject>(o: T): T => {
    objects.set(o.id, o);
    return o;
  };
  const must = (id: string, object: string): FakeObject => {
    const o = objects.get(id);
    if (!o || o.object !== object) throw new Error(`no ${object} ${id}`);
    return o;
  };

  /** A paid payment: PaymentIntent and its charge. */
  const pay = (amount: number, currency: string, customer: string | null): { pi: string; charge: string } => {
    const pi = next('pi');
    const charge = put({
      id: next('ch'),
      object: 'charge',
      payment_intent: pi,
      amount,
      amount_refunded: 0,
      refunded: false,
      currency,
      customer,
      created: now(),
    });
    put({ id: pi, object: 'payment_intent', amount, currency, status: 'succeeded', latest_charge: charge.id, customer });
    return { pi, charge: charge.id };
  };

  const invoiceFor = (sub: FakeObject, reason: string, paid: boolean): FakeObject => {
    const item = (sub.items as { data: { current_period_start: number; current_period_end: number; price: { unit_amount: number; currency: string } }[] })
      .data[0]!;
    const amount = item.price.unit_amount * Number(sub.quantity ?? 1);
    const payment = paid ? pay(amount, item.price.currency, sub.customer as string) : null;
    const invoice = put({
      id: next('in'),
      object: 'invoice',
      customer: sub.customer,
      status: paid ? 'paid' : 'open',
      billing_reason: reason,
      currency: item.price.currency,
      amount_due: amount,
      amount_paid: paid ? amount : 0,
      period_start: item.current_period_start,
      period_end: item.current_period_end,
      created: now(),
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      payments: { object: 'list', data: payment ? [{ payment: { type: 'payment_intent', payment_intent: payment.pi } }] : [] },
    });
    sub.latest_invoice = invoice.id;
    return invoice;
  };

  /** Completing a subscription-mode session starts its subscription and pays the first invoice. */
  const startSubscription = (session: FakeCheckoutSession): void => {
    const [count, unit] = session.recurring ?? [1, 'month'];
    const start = now();
    const sub = put({
      id: next('sub'),
      object: 'subscription',
      customer: session.customer,
      status: 'active',
      cancel_at_period_end: false,
      canceled_at: null,
      ended_at: null,
      start_date: start,
      quantity: session.unit_amount > 0 ? (session.amount_total ?? 0) / session.unit_amount : 1,
      metadata: session.subscription_metadata,
      latest_invoice: null,
      items: {
        object: 'list',
        data: [
          {
            id: next('si'),
            object: 'subscription_item',
            current_period_start: start,
            current_period_end: start + count * (UNIT_SECONDS[unit] ?? 30 * DAY),
            price: { unit_amount: session.unit_amount, currency: session.currency, recurring: { interval: unit, interval_count: count } },
          },
        ],
      },
    });
    session.subscription = sub.id;
    session.invoice = invoiceFor(sub, 'subscription_create', true).id;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const route = `${req.method} ${url.pathname}`;
    requests.push(route);
    const page = /^(GET|POST) \/pay\/([^/]+)$/.exec(route);
    if (page?.[2]) return checkoutPage(res, page[1] === 'POST', decodeURIComponent(page[2]));
    const portal = /^GET \/portal\/([^/]+)$/.exec(route);
    if (portal?.[1]) return portalPage(res, decodeURIComponent(portal[1]));
    if (!/^Bearer (sk|rk)_/.test(req.headers.authorization ?? '')) {
      send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      return;
    }
    const key = req.headers['idempotency-key'];
    const replay = typeof key === 'string' ? idempotent.get(`${route}:${key}`) : undefined;
    if (replay) {
      res.writeHead(200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
      res.end(replay);
      return;
    }
    const form = parseForm(raw);
    let result: unknown;
    const byId = /^GET \/v1\/(checkout\/sessions|subscriptions|invoices|charges|disputes|payment_intents)\/([^/]+)$/.exec(route);
    if (route === 'GET /v1/account') {
      result = { id: 'acct_fake', object: 'account', charges_enabled: true, details_submitted: true, payouts_enabled: true };
    } else if (route === 'POST /v1/customers') {
      const customer = { id: next('cus'), object: 'customer', metadata: metadataOf(form) };
      customers.set(customer.id, customer);
      result = customer;
    } else if (route === 'POST /v1/checkout/sessions') {
      const id = next('cs_test');
      const unit = Number(form.get('line_items[0][price_data][unit_amount]') ?? 0);
      const quantity = Number(form.get('line_items[0][quantity]') ?? 1);
      const interval = form.get('line_items[0][price_data][recurring][interval]');
      const subscriptionMetadata: Record<string, string> = {};
      for (const [k, v] of form) {
        const m = /^subscription_data\[metadata\]\[(.+)\]$/.exec(k);
        if (m?.[1]) subscriptionMetadata[m[1]] = v;
      }
      const session: FakeCheckoutSession = {
        id,
        object: 'checkout.session',
        url: `${base}/pay/${id}`,
        status: 'open',
        payment_status: 'unpaid',
        mode: form.get('mode') ?? 'payment',
        customer: form.get('customer') ?? null,
        client_reference_id: form.get('client_reference_id') ?? null,
        metadata: metadataOf(form),
        currency: form.get('line_items[0][price_data][currency]') ?? null,
        amount_total: unit * quantity,
        unit_amount: unit,
        subscription: null,
        payment_intent: null,
        invoice: null,
        success_url: form.get('success_url') ?? null,
        recurring: interval ? [Number(form.get('line_items[0][price_data][recurring][interval_count]') ?? 1), interval] : null,
        subscription_metadata: subscriptionMetadata,
      };
      sessions.set(id, session);
      result = session;
    } else if (byId?.[1] && byId[2]) {
      const id = decodeURIComponent(byId[2]);
      const found = byId[1] === 'checkout/sessions' ? sessions.get(id) : objects.get(id);
      if (!found) return notFound(res, byId[1]);
      result = found;
    } else if (route === 'GET /v1/refunds') {
      const charge = url.searchParams.get('charge');
      const data = [...objects.values()].filter((o) => o.object === 'refund' && o.charge === charge).reverse();
      result = { object: 'list', data, has_more: false, url: '/v1/refunds' };
    } else if (route === 'POST /v1/billing_portal/sessions') {
      const customer = form.get('customer');
      if (!customer || !customers.has(customer)) return notFound(res, 'customer');
      const id = next('bps');
      result = put({ id, object: 'billing_portal.session', customer, return_url: form.get('return_url') ?? null, url: `${base}/portal/${id}` });
    } else if (route === 'POST /v1/account_sessions') {
      result = put({
        id: next('acs'),
        object: 'account_session',
        account: form.get('account') ?? 'acct_fake',
        client_secret: `acs_secret_${next('x')}`,
        expires_at: now() + 1800,
        livemode: false,
        components: {},
      });
    } else {
      return notFound(res, `route ${route}`);
    }
    const body = JSON.stringify(result);
    if (typeof key === 'string') idempotent.set(`${route}:${key}`, body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  };

  /**
   * The hosted checkout page: GET shows the amount and a Pay button; POST completes the session,
   * delivers checkout.session.completed to `webhookUrl` (as Stripe would) and redirects to success_url.
   */
  const checkoutPage = (res: ServerResponse, submit: boolean, id: string) => {
    const session = sessions.get(id);
    if (!session) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('No such checkout session');
      return;
    }
    if (!submit) {
      const amount = `${session.amount_total ?? 0} ${(session.currency ?? '').toUpperCase()} (minor units)`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><title>Fake Stripe Checkout</title></head><body><main><h1>Fake Stripe Checkout</h1>` +
          `<p>Pay ${escapeHtml(amount)}</p><form method="post"><button type="submit">Pay</button></form></main></body></html>`,
      );
      return;
    }
    const event = fake.completeCheckout(id);
    void (async () => {
      if (fake.webhookUrl) await fake.deliver(event, fake.webhookUrl).catch(() => undefined);
      res.writeHead(303, { location: session.success_url ?? '/' });
      res.end();
    })();
  };

  /** The hosted billing portal: the customer's subscriptions, and a link back to return_url. */
  const portalPage = (res: ServerResponse, id: string) => {
    const session = objects.get(id);
    if (!session || session.object !== 'billing_portal.session') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('No such billing portal session');
      return;
    }
    const subscriptions = [...objects.values()].filter((o) => o.object === 'subscription' && o.customer === session.customer);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><title>Fake Stripe billing portal</title></head><body><main><h1>Fake Stripe billing portal</h1>` +
        `<ul aria-label="Subscriptions">${subscriptions.map((s) => `<li>${escapeHtml(`${s.id}: ${String(s.status)}`)}</li>`).join('')}</ul>` +
        `<a href="${escapeHtml(String(session.return_url ?? '/'))}">Return</a></main></body></html>`,
    );
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  base = `http://127.0.0.1:${port}`;
  const stripe = new Stripe('sk_test_fake');

  const eventFor = (type: string, id: string, o: { timestamp?: number; secret?: string } = {}): FakeEvent => {
    const object = sessions.get(id) ?? objects.get(id);
    const eventId = next('evt');
    const payload = JSON.stringify({
      id: eventId,
      object: 'event',
      type,
      api_version: '2026-10-28.endive',
      created: now(),
      livemode: false,
      data: { object: object ?? { id, object: 'checkout.session' } },
    });
    const signature = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: o.secret ?? options.webhookSecret,
      ...(o.timestamp ? { timestamp: o.timestamp } : {}),
    });
    return { id: eventId, payload, signature };
  };

  const itemOf = (sub: FakeObject) =>
    (sub.items as { data: { current_period_start: number; current_period_end: number; price: { recurring: { interval: string; interval_count: number } } }[] })
      .data[0]!;

  /** The subscription's next period and its invoice, paid (active) or not (past_due). */
  const nextPeriod = (subscriptionId: string, paid: boolean): FakeEvent[] => {
    const sub = must(subscriptionId, 'subscription');
    const item = itemOf(sub);
    const length = item.current_period_end - item.current_period_start;
    item.current_period_start = item.current_period_end;
    item.current_period_end += length;
    sub.status = paid ? 'active' : 'past_due';
    const invoice = invoiceFor(sub, 'subscription_cycle', paid);
    return [eventFor(paid ? 'invoice.paid' : 'invoice.payment_failed', invoice.id), eventFor('customer.subscription.updated', sub.id)];
  };

  const fake: StripeFake = {
    url: base,
    port,
    sessions,
    customers,
    objects,
    requests,
    webhookUrl: null,
    completeCheckout(id) {
      const session = sessions.get(id);
      if (!session) throw new Error(`no session ${id}`);
      if (session.status !== 'complete') {
        session.status = 'complete';
        session.payment_status = 'paid';
        if (session.mode === 'subscription') startSubscription(session);
        else session.payment_intent = pay(session.amount_total ?? 0, session.currency ?? 'usd', session.customer).pi;
      }
      return eventFor('checkout.session.completed', id);
    },
    expireCheckout(id) {
      const session = sessions.get(id);
      if (!session) throw new Error(`no session ${id}`);
      session.status = 'expired';
      return eventFor('checkout.session.expired', id);
    },
    renewSubscription: (subscriptionId) => nextPeriod(subscriptionId, true),
    failRenewal: (subscriptionId) => nextPeriod(subscriptionId, false),
    cancelAtPeriodEnd(subscriptionId, cancel = true) {
      const sub = must(subscriptionId, 'subscription');
      sub.cancel_at_period_end = cancel;
      sub.canceled_at = cancel ? now() : null;
      return eventFor('customer.subscription.updated', sub.id);
    },
    cancelSubscription(subscriptionId) {
      const sub = must(subscriptionId, 'subscription');
      sub.status = 'canceled';
      sub.canceled_at = sub.canceled_at ?? now();
      sub.ended_at = now();
      return eventFor('customer.subscription.deleted', sub.id);
    },
    refund(chargeId, amount) {
      const charge = must(chargeId, 'charge');
      const rest = Number(charge.amount) - Number(charge.amount_refunded);
      const refunded = amount ?? rest;
      put({
        id: next('re'),
        object: 'refund',
        charge: chargeId,
        payment_intent: charge.payment_intent,
        amount: refunded,
        currency: charge.currency,
        status: 'succeeded',
        created: now(),
      });
      charge.amount_refunded = Number(charge.amount_refunded) + refunded;
      charge.refunded = charge.amount_refunded === charge.amount;
      return eventFor('charge.refunded', chargeId);
    },
    dispute(chargeId) {
      const charge = must(chargeId, 'charge');
      const dispute = put({
        id: next('dp'),
        object: 'dispute',
        charge: chargeId,
        payment_intent: charge.payment_intent,
        amount: charge.amount,
        currency: charge.currency,
        status: 'needs_response',
        reason: 'fraudulent',
        created: now(),
      });
      return eventFor('charge.dispute.created', dispute.id);
    },
    chargeOf(id) {
      const session = sessions.get(id);
      const pi = session
        ? (session.payment_intent ??
          (objects.get(session.invoice ?? '')?.payments as { data: { payment: { payment_intent: string } }[] }).data[0]!.payment.payment_intent)
        : (objects.get(String(must(id, 'subscription').latest_invoice))?.payments as { data: { payment: { payment_intent: string } }[] }).data[0]!.payment
            .payment_intent;
      return String(must(pi, 'payment_intent').latest_charge);
    },
    eventFor,
    async deliver(event, webhookUrl) {
      const res = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
        body: event.payload,
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
