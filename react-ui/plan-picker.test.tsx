import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ClientApp } from '../sdk/index.js';
import { PlanPicker } from './components/plan-picker.js';
import { LatchProvider } from './provider.js';

/**
 * The plan picker's markup (react-dom/server, no DOM): one card per plan, the held plan marked
 * current and not choosable. Starting checkout is the SDK's createCheckoutUrl, tested against a
 * real server in sdk/payments.test.ts; a click-through in Chromium is not written yet.
 */
describe('PlanPicker', () => {
  it('lists the plans and marks the current one', () => {
    const app = new ClientApp({ projectId: 'p1', publishableClientKey: 'pck', baseUrl: 'http://127.0.0.1:9', tokenStore: 'memory' });
    const html = renderToString(
      <LatchProvider app={app}>
        <PlanPicker
          currentProductId="starter"
          plans={[
            { productId: 'starter', priceId: 'monthly', name: 'Starter', price: '$9.99 / month', features: ['100 credits'] },
            { productId: 'pro', priceId: 'monthly', name: 'Pro', price: '$29 / month' },
          ]}
        />
      </LatchProvider>,
    );
    expect(html).toContain('aria-label="Plans"');
    expect(html).toMatch(/aria-current="true"[^]*Starter[^]*\$9\.99 \/ month[^]*100 credits[^]*disabled=""[^]*Current plan/);
    expect(html).toContain('Choose Pro');
    expect(html.match(/disabled=""/g)).toHaveLength(1);
  });
});
