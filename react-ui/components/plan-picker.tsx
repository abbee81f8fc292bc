/**
 * A plan picker for one product line: a card per plan with a button that starts checkout
 * (issue 18, UI kit). The plans are given by the app (their product and price ids from the
 * project's payments config, and the label and price to show), since clients cannot read the
 * config. The button asks the server for a Checkout URL and sends the browser there.
 */
import { useState } from 'react';
import { useApp } from '../hooks.js';
import { Alert, Button, LatchRoot, errorMessage } from './ui.js';

export interface Plan {
  productId: string;
  priceId?: string;
  name: string;
  /** As shown, e.g. "$9.99 / month". */
  price: string;
  features?: string[];
}

export interface PlanPickerProps {
  plans: Plan[];
  /** Whose plan: the signed-in user (default) or one of their teams. */
  customer?: { customerType: 'user'; customerId?: 'me' } | { customerType: 'team'; customerId: string };
  /** Where Stripe sends the buyer back (default: this page). */
  returnUrl?: string;
  /** The product id the customer holds now, shown as current. */
  currentProductId?: string | null;
  /** Opens the Checkout URL (default: window.location.assign; the URL is Stripe's, from the server). */
  openCheckout?: (url: string) => void;
}

/**
 * @example
 * <PlanPicker plans={[{ productId: 'starter', priceId: 'monthly', name: 'Starter', price: '$9.99 / month' }]} />
 */
export function PlanPicker({ plans, customer = { customerType: 'user' }, returnUrl, currentProductId, openCheckout }: PlanPickerProps) {
  const app = useApp();
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const choose = async (plan: Plan) => {
    setPending(plan.productId);
    setError(null);
    try {
      const url = await app.createCheckoutUrl({
        customerType: customer.customerType,
        customerId: customer.customerId ?? 'me',
        productId: plan.productId,
        ...(plan.priceId ? { priceId: plan.priceId } : {}),
        returnUrl: returnUrl ?? window.location.href,
      });
      (openCheckout ?? ((to: string) => window.location.assign(to)))(url);
    } catch (caught) {
      setError(errorMessage(caught));
      setPending(null);
    }
  };
  return (
    <LatchRoot className="latch-stack">
      {error ? <Alert kind="error">{error}</Alert> : null}
      <ul
        className="latch-plans"
        aria-label="Plans"
        style={{ display: 'grid', gap: 12, gridTemplateColumns: 'repeat(auto-fit, minmax(180px, 1fr))', padding: 0, listStyle: 'none' }}
      >
        {plans.map((plan) => {
          const current = plan.productId === currentProductId;
          return (
            <li key={`${plan.productId}:${plan.priceId ?? ''}`} className="latch-card" aria-current={current || undefined}>
              <h3 className="latch-title">{plan.name}</h3>
              <p className="latch-subtitle">{plan.price}</p>
              {plan.features?.length ? (
                <ul>
                  {plan.features.map((f) => (
                    <li key={f}>{f}</li>
                  ))}
                </ul>
              ) : null}
              <Button block disabled={current || pending !== null} loading={pending === plan.productId} onClick={() => void choose(plan)}>
                {current ? 'Current plan' : `Choose ${plan.name}`}
              </Button>
            </li>
          );
        })}
      </ul>
    </LatchRoot>
  );
}
