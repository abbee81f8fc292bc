import { type Harness, type Headers_, useFixture, useHarness, type ProjectFixture } from './harness.js';
import { expectStatus, newUser } from './team-fixtures.js';
import { type StripeFake, startStripeFake } from './stripe-fake.js';

/**
 * One Latch server and one Stripe fake per test file, wired together: the fake's port is fixed
 * before the server starts, since the server's env names it (LATCH_STRIPE_API_BASE).
 */
export const WEBHOOK_SECRET = 'whsec_test_secret_for_latch';
export const SECRET_KEY = 'sk_test_latch_fake_key_123';

export function useStripeHarness() {
  const port = 20_000 + Math.floor(Math.random() * 30_000);
  const h = useHarness({ stripeApiBase: `http://127.0.0.1:${port}` });
  /** The running fake (useFixture: usable from the file's tests and hooks on). */
  const stripeFake: StripeFake = useFixture(
    () => startStripeFake({ port, webhookSecret: WEBHOOK_SECRET }),
    (started) => started.close(),
  );
  /** The same fake, as a call (sdk/payments.test.ts reads it this way in its beforeAll). */
  const fake = (): StripeFake => stripeFake;

  /** A project with this payments config and Stripe set up, a user, and the project's webhook URL. */
  async function stripeProject(payments: Record<string, unknown>) {
    const project = await h.createProject({ config: { payments } });
    const setup = await h.post('/internal/payments/setup', { stripe_secret_key: SECRET_KEY, stripe_webhook_secret: WEBHOOK_SECRET }, project.admin());
    expectStatus(setup, 200);
    const tenancyId = String(setup.body.webhook_url).split('/').pop()!;
    const webhook = `${h.url}/api/v1/integrations/stripe/webhooks/${tenancyId}`;
    const user = await newUser(h, project);
    return { project, user, webhook, tenancyId };
  }

  const itemQuantity = (p: ProjectFixture, userId: string, itemId: string) =>
    h.get(`/payments/items/user/${userId}/${itemId}`, p.server()).then((r) => r.body.quantity as number);

  return { h, fake, stripeFake, stripeProject, itemQuantity };
}

/** Polls until `done` (the jobs worker applies webhooks asynchronously). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const sessionIdOf = (url: string) => url.split('/').pop()!;

/**
 * POST /payments/purchases/create-purchase-url for the signed-in user (`customer_id: 'me'`), as the
 * SDK's checkout button does; `return_url` is http://localhost:3000/after unless given.
 */
export function createPurchaseUrl(h: Harness, client: Headers_, fields: { product_id: string; price_id?: string; return_url?: string }) {
  return h.post(
    '/payments/purchases/create-purchase-url',
    { customer_type: 'user', customer_id: 'me', return_url: 'http://localhost:3000/after', ...fields },
    client,
  );
}
