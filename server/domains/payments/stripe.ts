import type Stripe from 'stripe';
import type { Deps } from '../../deps.js';

/**
 * The stripe SDK is loaded on first use: it adds ~20 MB to the process and a few hundred ms to
 * start-up, which a project without payments (most of them) should not pay (issue 23, memory).
 */
let stripeModule: Promise<typeof Stripe> | null = null;
function loadStripe(): Promise<typeof Stripe> {
  stripeModule ??= import('stripe').then((module) => module.default);
  return stripeModule;
}

/**
 * The stripe SDK for one project's secret key. LATCH_STRIPE_API_BASE (tests only: env.ts refuses
 * it outside NODE_ENV=test) points the SDK at the local fake (server/test/stripe-fake.ts) through
 * its host/port/protocol options; otherwise it talks to api.stripe.com.
 */
export async function stripeClient(deps: Deps, secretKey: string): Promise<Stripe> {
  const Stripe = await loadStripe();
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
