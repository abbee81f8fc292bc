import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { REVENUE_MAX_DAYS } from '../../contract/schemas/payments.js';
import type { Revenue } from '../../sdk/index.js';
import { MoneyBarChart } from '../components/charts.js';
import { saveConfig } from '../components/config.js';
import { formatMoney } from '../components/money.js';
import { Link } from '../components/router.js';
import { Card, Empty, ErrorMessage, PageHeader, QueryView, Switch, TextField, useAction } from '../components/ui.js';
import { CatalogueTab } from './payments-catalogue.js';
import { CustomersTab } from './payments-customers.js';
import { TransactionsCard } from './payments-transactions.js';
import type { PageProps } from './page-props.js';

const TABS = [
  { id: null, label: 'Stripe and revenue' },
  { id: 'catalogue', label: 'Catalogue' },
  { id: 'customers', label: 'Customers' },
  { id: 'transactions', label: 'Transactions' },
] as const;

/**
 * Payments, in four tabs (each its own URL): the Stripe connection, test mode and the revenue
 * chart; the catalogue (items, product lines, products) saved to the project config; customer
 * lookup (balances, products, grants, quantity changes); and the transaction log.
 */
export function PaymentsPage(props: PageProps & { tab: string | null }) {
  const { projectId, tab } = props;
  let content;
  if (tab === 'catalogue') content = <CatalogueTab {...props} />;
  else if (tab === 'customers') content = <CustomersTab {...props} />;
  else if (tab === 'transactions') content = <TransactionsCard {...props} />;
  else if (tab === null) {
    content = (
      <>
        <StripeCard {...props} />
        <RevenueCard {...props} />
      </>
    );
  } else content = <ErrorMessage error={new Error(`There is no payments tab "${tab}".`)} title="Not found" />;
  return (
    <>
      <PageHeader title="Payments" description="Items, products and Stripe Checkout for your users, teams and custom customers." />
      <nav className="tabs" aria-label="Payments">
        {TABS.map((entry) => (
          <Link
            key={entry.label}
            className="tab"
            href={`/projects/${projectId}/payments${entry.id ? `/${entry.id}` : ''}`}
            aria-current={entry.id === tab ? 'page' : undefined}
          >
            {entry.label}
          </Link>
        ))}
      </nav>
      {content}
    </>
  );
}

/**
 * The Stripe connection: the account Stripe reports for the stored key (or "not connected"), the
 * form that stores the keys (write-only: the server seals them and never sends them back), and
 * test mode, which the server reads on every checkout (createPurchaseUrl grants at once without
 * Stripe) and in check-feature-support.
 */
function StripeCard({ projectId, admin, project }: PageProps) {
  const info = useQuery({ queryKey: ['payments', projectId, 'stripe-account'], queryFn: () => admin.getStripeAccountInfo() }, admin.queryClient);
  const [secretKey, setSecretKey] = useState('');
  const [webhookSecret, setWebhookSecret] = useState('');
  const [webhookUrl, setWebhookUrl] = useState<string | null>(null);
  const connecting = useAction(async () => {
    const result = await admin.setupStripe({ stripeSecretKey: secretKey.trim(), stripeWebhookSecret: webhookSecret.trim() });
    setWebhookUrl(result.webhookUrl);
    setSecretKey('');
    setWebhookSecret('');
    await info.refetch();
  });
  const testMode = useAction((on: boolean) => saveConfig(admin, { payments: { ...project.config.payments, test_mode: on } as never }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void connecting.run();
  };
  return (
    <Card title="Stripe connection">
      <QueryView query={info} loadingLabel="Loading the Stripe account…">
        {(account) =>
          account ? (
            <div className="stack">
              <div className="alert alert-ok" role="status">
                Connected to <code>{account.account_id}</code>: charges {account.charges_enabled ? 'enabled' : 'not enabled'}, payouts{' '}
                {account.payouts_enabled ? 'enabled' : 'not enabled'}, details {account.details_submitted ? 'submitted' : 'not submitted'}.
              </div>
              <p className="small">
                Webhook endpoint to register in Stripe (checkout.session.*, customer.subscription.*, invoice.paid, invoice.payment_failed, charge.refunded,
                charge.dispute.created): <code>{account.webhook_url}</code>
              </p>
            </div>
          ) : (
            <Empty title="Stripe is not connected">
              Paste your Stripe secret key and the signing secret of a webhook endpoint. Both are stored encrypted and never shown again.
            </Empty>
          )
        }
      </QueryView>
      <Switch
        label="Test mode"
        description="Purchases are granted at once without Stripe and marked as test in transactions and revenue. Turn off to sell through Stripe Checkout."
        checked={project.config.payments.test_mode}
        onChange={(on) => testMode.run(on)}
      />
      <ErrorMessage error={testMode.error} title="Could not change test mode" />
      <form className="stack" onSubmit={submit} aria-label="Connect Stripe">
        <TextField
          label="Stripe secret key"
          hint={info.data ? 'A key is stored. Saving replaces it.' : undefined}
          type="password"
          autoComplete="off"
          value={secretKey}
          onValue={setSecretKey}
          placeholder="sk_live_…"
        />
        <TextField label="Webhook signing secret" type="password" autoComplete="off" value={webhookSecret} onValue={setWebhookSecret} placeholder="whsec_…" />
        <ErrorMessage error={connecting.error} title="Could not save the Stripe keys" />
        {webhookUrl ? (
          <p className="small" role="status">
            Saved. Register <code>{webhookUrl}</code> in Stripe.
          </p>
        ) : null}
        <div className="actions">
          <button className="button" type="submit" disabled={connecting.pending || !secretKey || !webhookSecret}>
            Save Stripe keys
          </button>
        </div>
      </form>
    </Card>
  );
}

const DAY_MS = 86_400_000;

/** Every day of the answered range, each currency's days filled in (days without money are 0). */
function revenueSeries(revenue: Revenue, mode: 'live' | 'test', currency: string) {
  const byDay = new Map(revenue[mode].filter((d) => d.currency === currency).map((d) => [d.date, d]));
  const series = [];
  for (let at = Date.parse(`${revenue.from}T00:00:00Z`); at <= Date.parse(`${revenue.to}T00:00:00Z`); at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    const day = byDay.get(date);
    series.push({ date, gross: day?.gross_minor ?? 0, refunds: day?.refunds_minor ?? 0, net: day?.net_minor ?? 0 });
  }
  return series;
}

/** Revenue per UTC day (GET /internal/payments/revenue): one currency at a time, live or test mode. */
function RevenueCard({ projectId, admin }: PageProps) {
  const [days, setDays] = useState(30);
  const [mode, setMode] = useState<'live' | 'test'>('live');
  const [chosen, setChosen] = useState<string | null>(null);
  const revenue = useQuery(
    { queryKey: ['payments', projectId, 'revenue', days], queryFn: () => admin.getRevenue({ days }), placeholderData: keepPreviousData },
    admin.queryClient,
  );
  const currencies = useMemo(() => [...new Set((revenue.data?.[mode] ?? []).map((d) => d.currency))].sort(), [revenue.data, mode]);
  const currency = chosen && currencies.includes(chosen) ? chosen : (currencies[0] ?? null);
  return (
    <Card
      title="Revenue"
      actions={
        <div className="row">
          <label className="visually-hidden" htmlFor="revenue-days">
            Revenue range
          </label>
          <select id="revenue-days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {[7, 30, 90, REVENUE_MAX_DAYS].map((n) => (
              <option key={n} value={n}>
                Last {n} days
              </option>
            ))}
          </select>
          <label className="visually-hidden" htmlFor="revenue-mode">
            Revenue mode
          </label>
          <select id="revenue-mode" value={mode} onChange={(e) => setMode(e.target.value as 'live' | 'test')}>
            <option value="live">Live</option>
            <option value="test">Test mode</option>
          </select>
          {currencies.length > 1 ? (
            <>
              <label className="visually-hidden" htmlFor="revenue-currency">
                Revenue currency
              </label>
              <select id="revenue-currency" value={currency ?? ''} onChange={(e) => setChosen(e.target.value)}>
                {currencies.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </>
          ) : null}
        </div>
      }
    >
      <QueryView query={revenue} loadingLabel="Loading revenue…">
        {(data) =>
          currency === null ? (
            <Empty title={mode === 'live' ? 'No revenue in this range' : 'No test-mode purchases in this range'}>
              Paid purchases and renewals show per UTC day, less refunds and disputes on the day they happen.
            </Empty>
          ) : (
            <div className="stack">
              <MoneyBarChart
                label={`${mode === 'live' ? 'Revenue' : 'Test-mode revenue'} in ${currency}`}
                data={revenueSeries(data, mode, currency)}
                format={(minor) => formatMoney(minor, currency)}
              />
              <p className="small muted" data-testid="revenue-total">
                {data.from} to {data.to} (UTC), {mode === 'test' ? 'test mode, ' : ''}
                {currency}: {formatMoney(sum(data, mode, currency, 'gross_minor'), currency)} sold,{' '}
                {formatMoney(sum(data, mode, currency, 'refunds_minor'), currency)} refunded or disputed,{' '}
                <strong>{formatMoney(sum(data, mode, currency, 'net_minor'), currency)} net</strong>.
              </p>
            </div>
          )
        }
      </QueryView>
    </Card>
  );
}

const sum = (data: Revenue, mode: 'live' | 'test', currency: string, key: 'gross_minor' | 'refunds_minor' | 'net_minor') =>
  data[mode].filter((d) => d.currency === currency).reduce((total, d) => total + d[key], 0);
