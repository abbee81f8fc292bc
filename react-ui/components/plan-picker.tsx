/**
 * A plan picker for one product line: a card per plan with a button that starts checkout
 * (issue 18, UI kit). The plans are given by the app (their product and price ids from the
 * project's payments config, and the label and price to show), since clients cannot read the
 * config. The plan the customer holds now (one of these products) is marked current; the button
 * asks the server for a Checkout URL and sends the browser there; a signed-out visitor is sent to
 * sign in first and brought back.
 */
import { useSuspenseQuery } from '@tanstack/react-query';
import { Suspense, useState } from 'react';
import type { PaymentCustomerRef } from '../../sdk/index.js';
import { useApp, useLatchContext, useUser } from '../hooks.js';
import { withReturnTo } from '../urls.js';
import { Alert, Button, LatchRoot, Loading, errorMessage } from './ui.js';

export interface Plan {
  productId: string;
  priceId?: string;
  name: string;
  /** As shown, e.g. "$9.99 / month". */
  price: string;
  features?: string[];
}

export interface PlanPickerProps {
  /** The plans of one product line (products of a line are mutually exclusive: buying one replaces the other). */
  plans: Plan[];
  /** Whose plan: the signed-in user (default, `{ userId: 'me' }`) or one of their teams (`{ teamId }`, needs `$update_team` to buy). */
  customer?: PaymentCustomerRef;
  /** Where Stripe sends the buyer back (default: this page). */
  returnUrl?: string;
  /** The product id the customer holds now; default: read from the customer's products. */
  currentProductId?: string | null;
  /** Opens the Checkout URL (default: window.location.assign; the URL is Stripe's, from the server). */
  openCheckout?: (url: string) => void;
}

/**
 * @example
 * <PlanPicker plans={[{ productId: 'starter', priceId: 'monthly', name: 'Starter', price: '$9.99 / month' }]} />
 */
export function PlanPicker(props: PlanPickerProps) {
  if (props.currentProductId !== undefined) return <PlanCards {...props} current={props.currentProductId} signedIn />;
  return (
    <Suspense fallback={<Loading label="Loading plans…" />}>
      <HeldPlanPicker {...props} />
    </Suspense>
  );
}

function HeldPlanPicker(props: PlanPickerProps) {
  const user = useUser();
  return user ? <SignedInPlanPicker {...props} /> : <PlanCards {...props} current={null} signedIn={false} />;
}

function SignedInPlanPicker(props: PlanPickerProps) {
  const app = useApp();
  const held = useSuspenseQuery(app.productsQuery({ ...(props.customer ?? { userId: 'me' }), limit: 100 })).data.items;
  const ids = new Set(props.plans.map((plan) => plan.productId));
  return <PlanCards {...props} current={held.find((product) => product.id !== null && ids.has(product.id))?.id ?? null} signedIn />;
}

function PlanCards({
  plans,
  customer = { userId: 'me' },
  returnUrl,
  openCheckout,
  current,
  signedIn,
}: PlanPickerProps & { current: string | null; signedIn: boolean }) {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const choose = async (plan: Plan) => {
    if (!signedIn) {
      await navigate(withReturnTo(urls.signIn, `${window.location.pathname}${window.location.search}`));
      return;
    }
    setPending(plan.productId);
    setError(null);
    try {
      const url = await app.createCheckoutUrl({
        ...customer,
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
          const isCurrent = plan.productId === current;
          return (
            <li key={`${plan.productId}:${plan.priceId ?? ''}`} className="latch-card" aria-current={isCurrent || undefined} aria-label={plan.name}>
              <h3 className="latch-title">{plan.name}</h3>
              <p className="latch-subtitle">{plan.price}</p>
              {plan.features?.length ? (
                <ul>
                  {plan.features.map((f) => (
                    <li key={f}>{f}</li>
                  ))}
                </ul>
              ) : null}
              <Button block disabled={isCurrent || pending !== null} loading={pending === plan.productId} onClick={() => void choose(plan)}>
                {isCurrent ? 'Current plan' : `Choose ${plan.name}`}
              </Button>
            </li>
          );
        })}
      </ul>
    </LatchRoot>
  );
}
