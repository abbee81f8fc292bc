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
  subscription: string | null;
}

export interface StripeFake {
  url: string;
  port: number;
  sessions: Map<string, FakeCheckoutSession>;
  customers: Map<string, { id: string; metadata: Record<string, string> }>;
  /** Requests seen, as `METHOD /path` (for assertions on what Latch called). */
  requests: string[];
  /** Marks the session paid and complete and returns the signed event for it (not yet sent). */
  completeCheckout(id: string): FakeEvent;
  expireCheckout(id: string): FakeEvent;
  /** A signed event about a session in its current state, of any type. */
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

export async function startStripeFake(options: { port?: number; webhookSecret: string }): Promise<StripeFake> {
  const sessions = new Map<string, FakeCheckoutSession>();
  const customers = new Map<string, { id: string; metadata: Record<string, string> }>();
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

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const route = `${req.method} ${url.pathname}`;
    requests.push(route);
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
        subscription: null,
      };
      sessions.set(id, session);
      result = session;
    } else {
      const m = /^GET \/v1\/checkout\/sessions\/([^/]+)$/.exec(route);
      if (m?.[1]) {
        const session = sessions.get(decodeURIComponent(m[1]));
        if (!session) return notFound(res, 'checkout session');
        result = session;
      } else {
        return notFound(res, `route ${route}`);
      }
    }
    const body = JSON.stringify(result);
    if (typeof key === 'string') idempotent.set(`${route}:${key}`, body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
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
    const session = sessions.get(id);
    const eventId = next('evt');
    const payload = JSON.stringify({
      id: eventId,
      object: 'event',
      type,
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: session ?? { id, object: 'checkout.session' } },
    });
    const signature = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: o.secret ?? options.webhookSecret,
      ...(o.timestamp ? { timestamp: o.timestamp } : {}),
    });
    return { id: eventId, payload, signature };
  };

  return {
    url: base,
    port,
    sessions,
    customers,
    requests,
    completeCheckout(id) {
      const session = sessions.get(id);
      if (!session) throw new Error(`no session ${id}`);
      session.status = 'complete';
      session.payment_status = 'paid';
      return eventFor('checkout.session.completed', id);
    },
    expireCheckout(id) {
      const session = sessions.get(id);
      if (!session) throw new Error(`no session ${id}`);
      session.status = 'expired';
      return eventFor('checkout.session.expired', id);
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
}
