import Stripe from 'stripe';
import type { Deps } from '../../deps.js';

/**
 * The stripe SDK for one project's secret key. LATCH_STRIPE_API_BASE (tests only: env.ts refuses
 * it outside NODE_ENV=test) points the SDK at the local fake (server/test/stripe-fake.ts) through
 * its host/port/protocol options; otherwise it talks to api.stripe.com.
 */
export function stripeClient(deps: Deps, secretKey: string): Stripe {
  const base = deps.env.stripeApiBase;
  if (!base) return new Stripe(secretKey, { maxNetworkRetries: 2 });
  const url = new URL(base);
  return new Stripe(secretKey, {
    host: url.hostname,
    port: Number(url.port),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 2,
  });
}

/** Stripe's recurring units; ours that Stripe lacks (hours, minutes…) are refused at checkout. */
export const STRIPE_INTERVALS = new Set(['day', 'week', 'month', 'year']);

export type { Stripe };
