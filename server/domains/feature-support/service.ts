import type { z } from 'zod';
import { SUPPORT_CHECKED_FEATURES, type SupportCheckedFeature, type featureSupportSchema } from '../../../contract/schemas/feature-support.js';
import type { AuthContext } from '../../access/context.js';
import type { Deps } from '../../deps.js';
import { stripeKeys } from '../payments/purchases.js';

export const SERVER_VERSION = '0.1.0';

/** Why a feature is off for this project on this server, or null when it is on. */
const CHECKS: Record<SupportCheckedFeature, (deps: Deps, auth: AuthContext) => Promise<string | null> | string | null> = {
  // Test mode grants at once without Stripe; otherwise checkout needs the project's Stripe keys.
  payments: async (deps, auth) =>
    auth.project.config.payments.test_mode || (await stripeKeys(deps, deps.db, auth.tenancy.id))
      ? null
      : 'Payments are not set up for this project: an admin must store the Stripe keys first (console → Payments, or POST /internal/payments/setup).',
  // The Stripe Billing Portal needs the project's Stripe account (test mode has none).
  'billing-portal': async (deps, auth) =>
    (await stripeKeys(deps, deps.db, auth.tenancy.id))
      ? null
      : 'The billing portal needs a Stripe account: an admin must store the Stripe keys first (console → Payments, or POST /internal/payments/setup).',
  // The AI chat's model endpoint is a deployment setting (server/env.ts, LATCH_AI_BASE_URL).
  'ai-chat': (deps) =>
    deps.env.ai?.baseUrl ? null : 'AI chat is not enabled on this server: its operator must set LATCH_AI_BASE_URL to an OpenAI-compatible endpoint.',
  'data-vault': (_deps, auth) =>
    auth.project.config.data_vault_stores.length > 0
      ? null
      : 'This project declares no data vault store: add one in the console (Data vault) before storing values.',
  webhooks: () => null,
  'workflow-tokens': () => null,
};

export async function checkFeatureSupport(
  deps: Deps,
  auth: AuthContext,
  input: { feature_name: string; client_version?: string | undefined },
): Promise<z.infer<typeof featureSupportSchema>> {
  const known = (SUPPORT_CHECKED_FEATURES as readonly string[]).includes(input.feature_name);
  const reason = known
    ? await CHECKS[input.feature_name as SupportCheckedFeature](deps, auth)
    : `This server (Latch ${SERVER_VERSION}) does not know the feature ${JSON.stringify(input.feature_name)}` +
      `${input.client_version ? `, which client ${input.client_version} asked for` : ''}: the server may be older than the client.`;
  return { feature_name: input.feature_name, supported: reason === null, reason, server_version: SERVER_VERSION };
}
