import express, { type Request, type Response, type Router } from 'express';
import type { Deps } from '../deps.js';
import { receiveStripeWebhook } from '../domains/payments/stripe-events.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST /api/v1/integrations/stripe/webhooks/{tenancy_id}: Stripe's deliveries for one project.
 * Mounted before the JSON body parser: the signature is over the raw bytes. Answers 400 on a bad
 * or missing signature (Stripe retries), 200 once the event is recorded (a repeat is 200 too).
 */
export function stripeWebhookRouter(deps: Deps): Router {
  const router = express.Router();
  router.post('/:tenancyId', express.raw({ type: () => true, limit: '1mb' }), (req: Request, res: Response) => {
    void (async () => {
      const tenancyId = String(req.params.tenancyId);
      if (!UUID.test(tenancyId) || !Buffer.isBuffer(req.body)) {
        res.status(400).json({ error: 'Not a Stripe webhook endpoint' });
        return;
      }
      try {
        const outcome = await receiveStripeWebhook(deps, tenancyId, req.body, req.header('stripe-signature'));
        if (outcome.status === 400) res.status(400).json({ error: outcome.message });
        else res.status(200).json({ received: true, duplicate: outcome.duplicate });
      } catch (error) {
        deps.log.error('stripe webhook failed', { error: error instanceof Error ? error.message : String(error) });
        res.status(500).json({ error: 'Internal error' });
      }
    })();
  });
  return router;
}
