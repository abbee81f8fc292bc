/**
 * A customer's billing (issue 18, UI kit): the items the app chose to show with their quantities,
 * the products held (subscriptions and one-time purchases), and a "Manage billing" button that
 * opens the Stripe Billing Portal when the project has a Stripe account. The same section serves
 * the signed-in user (account settings) and a team (team management, for members holding
 * `$update_team`, which the server asks of a client for the team's checkout and portal).
 */
import { useSuspenseQueries, useSuspenseQuery } from '@tanstack/react-query';
import { Component, type ReactNode, Suspense } from 'react';
import type { PaymentCustomerRef } from '../../sdk/index.js';
import { useApp, useLatchContext } from '../hooks.js';
import { Section, Feedback, useAction } from './settings-parts.js';
import { Alert, Button, Loading, errorMessage } from './ui.js';

/** Whether this server and project support a feature (cached per app by the SDK), as a suspense read. */
export function useFeatureSupported(featureName: string): boolean {
  const app = useApp();
  return useSuspenseQuery({
    queryKey: ['latch-ui.featureSupport', app.projectId, featureName],
    queryFn: () => app.checkFeatureSupport(featureName),
    staleTime: Infinity,
  }).data.supported;
}

export interface BillingSectionProps {
  /** Whose billing: the signed-in user (default) or a team. */
  customer?: PaymentCustomerRef;
  /** The item ids to show (default: the provider's `paymentItems` for the customer's type). */
  items?: readonly string[];
  title?: string;
  /** Opens the portal URL (default: `window.location.assign`; the URL is Stripe's, from the server). */
  openPortal?: (url: string) => void;
}

/**
 * The billing section; renders nothing when the project has no payments (no Stripe keys, no test mode).
 *
 * @example
 * <LatchProvider app={app} paymentItems={{ user: ['credits'] }}>
 *   <BillingSection />
 * </LatchProvider>
 */
export function BillingSection(props: BillingSectionProps) {
  // Its own boundaries: billing loads beside the rest of a settings page, and a failure here (an
  // item id the project does not have, say) shows in the section instead of taking the page down.
  return (
    <BillingErrorBoundary title={props.title ?? 'Billing'}>
      <Suspense fallback={<Loading label="Loading billing…" />}>
        <BillingIfSupported {...props} />
      </Suspense>
    </BillingErrorBoundary>
  );
}

function BillingIfSupported(props: BillingSectionProps) {
  return useFeatureSupported('payments') ? <Billing {...props} /> : null;
}

class BillingErrorBoundary extends Component<{ title: string; children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <Section title={this.props.title}>
        <Alert kind="error">{errorMessage(this.state.error)}</Alert>
      </Section>
    );
  }
}

function Billing({ customer = { userId: 'me' }, items, title = 'Billing', openPortal }: BillingSectionProps) {
  const app = useApp();
  const { paymentItems } = useLatchContext();
  const isTeam = 'teamId' in customer;
  const itemIds = items ?? (isTeam ? paymentItems.team : 'userId' in customer ? paymentItems.user : undefined) ?? [];
  const quantities = useSuspenseQueries({ queries: itemIds.map((itemId) => app.itemQuery({ ...customer, itemId })) });
  const products = useSuspenseQuery(app.productsQuery({ ...customer, limit: 100 })).data.items;
  const portal = useFeatureSupported('billing-portal');
  const action = useAction();
  const manage = () =>
    void action.run(async () => {
      const url = await app.createBillingPortalUrl({ ...customer, returnUrl: window.location.href });
      if (!url) return 'Billing is not available for this project yet.';
      (openPortal ?? ((to: string) => window.location.assign(to)))(url);
      return null;
    });
  return (
    <Section title={title} description={isTeam ? "The team's plan and what it includes." : 'Your plan and what it includes.'}>
      {itemIds.length ? (
        <ul className="latch-list" aria-label={isTeam ? 'Team items' : 'Your items'}>
          {quantities.map(({ data: item }) => (
            <li key={item.id} className="latch-list-item">
              <span>{item.display_name}</span>
              <strong aria-label={`${item.display_name}: ${item.non_negative_quantity}`}>{item.non_negative_quantity}</strong>
            </li>
          ))}
        </ul>
      ) : null}
      {products.length ? (
        <ul className="latch-list" aria-label={isTeam ? 'Team plans and purchases' : 'Your plans and purchases'}>
          {products.map((product, index) => (
            <li key={`${product.id ?? 'inline'}:${index}`} className="latch-list-item">
              <span>{product.product.display_name}</span>
              <span className="latch-row">
                {product.quantity > 1 ? <span className="latch-badge">× {product.quantity}</span> : null}
                <span className="latch-badge latch-badge-success">Active</span>
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="latch-hint">No plan or purchase yet.</p>
      )}
      {portal ? (
        <div style={{ marginTop: 12 }}>
          <Button variant="secondary" loading={action.pending} onClick={manage}>
            Manage billing
          </Button>
        </div>
      ) : null}
      <Feedback error={action.error} done={action.done} />
    </Section>
  );
}
