import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { type CurrencyCode, CURRENCY_CODES, formatMinorUnits, paymentsConfigSchema } from '../../contract/config/payments.js';
import { saveConfig } from '../components/config.js';
import { Card, Empty, ErrorMessage, Field, PageHeader, QueryView, Table, formatDate, useAction } from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** Amount in minor units → "9.99 USD" (no floating point: contract/config/payments.ts). */
function money(minor: number | null, currency: string | null): string {
  if (minor === null || currency === null) return '—';
  return CURRENCY_CODES.includes(currency as CurrencyCode) ? `${formatMinorUnits(minor, currency as CurrencyCode)} ${currency}` : `${minor} ${currency}`;
}

/**
 * Payments: the Stripe connection, the items/product lines/products config (edited as JSON and
 * checked with the server's own schema, so money problems show their exact message inline), and
 * the transactions table with its filters.
 */
export function PaymentsPage({ projectId, admin, project }: PageProps) {
  return (
    <>
      <PageHeader title="Payments" description="Items, products and Stripe Checkout for your users, teams and custom customers." />
      <StripeCard projectId={projectId} admin={admin} project={project} />
      <ConfigCard projectId={projectId} admin={admin} project={project} />
      <TransactionsCard projectId={projectId} admin={admin} project={project} />
    </>
  );
}

function StripeCard({ projectId, admin }: PageProps) {
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
                {account.payouts_enabled ? 'enabled' : 'not enabled'}.
              </div>
              <p className="small">
                Webhook endpoint to register in Stripe (checkout.session.* events): <code>{account.webhook_url}</code>
              </p>
            </div>
          ) : (
            <Empty title="Stripe is not connected">
              Paste your Stripe secret key and the signing secret of a webhook endpoint. Both are stored encrypted and never shown again.
            </Empty>
          )
        }
      </QueryView>
      <form className="stack" onSubmit={submit} aria-label="Connect Stripe">
        <Field label="Stripe secret key">
          {(props) => (
            <input {...props} type="password" autoComplete="off" value={secretKey} onChange={(e) => setSecretKey(e.target.value)} placeholder="sk_live_…" />
          )}
        </Field>
        <Field label="Webhook signing secret">
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="off"
              value={webhookSecret}
              onChange={(e) => setWebhookSecret(e.target.value)}
              placeholder="whsec_…"
            />
          )}
        </Field>
        {connecting.error ? <ErrorMessage error={connecting.error} /> : null}
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

function ConfigCard({ admin, project }: PageProps) {
  const [text, setText] = useState(() => JSON.stringify(project.config.payments, null, 2));
  const checked = useMemo(() => {
    try {
      const result = paymentsConfigSchema.safeParse(JSON.parse(text));
      return result.success
        ? { value: result.data, problems: [] }
        : { value: null, problems: result.error.issues.map((i) => `${i.path.join('.') || 'payments'}: ${i.message}`) };
    } catch {
      return { value: null, problems: ['Not valid JSON'] };
    }
  }, [text]);
  const saving = useAction(async () => {
    if (checked.value) await saveConfig(admin, { payments: checked.value as never });
  });
  return (
    <Card title="Items, product lines and products">
      <p className="muted small">
        Prices are decimal strings per currency (USD, EUR, GBP, JPY, INR, AUD, CAD; JPY has no decimals), for example{' '}
        <code>{'{"monthly": {"USD": "9.99", "interval": [1, "month"]}}'}</code>.
      </p>
      <Field label="Payments config (JSON)" error={checked.problems[0]}>
        {(props) => <textarea {...props} className="mono" rows={16} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} />}
      </Field>
      {checked.problems.length > 1 ? (
        <ul aria-label="Config problems" className="small">
          {checked.problems.slice(1).map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {saving.error ? <ErrorMessage error={saving.error} /> : null}
      <div className="actions">
        <button className="button" type="button" disabled={!checked.value || saving.pending} onClick={() => void saving.run()}>
          Save payments config
        </button>
        {saving.done ? <span className="muted small">Saved.</span> : null}
      </div>
    </Card>
  );
}

function TransactionsCard({ projectId, admin }: PageProps) {
  const [customerType, setCustomerType] = useState<'' | 'user' | 'team' | 'custom'>('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useQuery(
    {
      queryKey: ['payments', projectId, 'transactions', customerType, cursor ?? null],
      queryFn: () => admin.listTransactions({ ...(customerType ? { customer_type: customerType } : {}), ...(cursor ? { cursor } : {}), limit: 25 }),
    },
    admin.queryClient,
  );
  return (
    <Card title="Transactions">
      <Field label="Customer type">
        {(props) => (
          <select
            {...props}
            value={customerType}
            onChange={(e) => {
              setCustomerType(e.target.value as typeof customerType);
              setCursors([]);
            }}
          >
            <option value="">All</option>
            <option value="user">Users</option>
            <option value="team">Teams</option>
            <option value="custom">Custom</option>
          </select>
        )}
      </Field>
      <QueryView query={page} loadingLabel="Loading transactions…">
        {(data) =>
          data.transactions.length === 0 ? (
            <Empty title="No transactions yet">Purchases through Stripe Checkout and test-mode purchases show here.</Empty>
          ) : (
            <>
              <Table
                label="Transactions"
                columns={['When', 'Customer', 'Product', 'Amount', 'Type']}
                items={data.transactions}
                row={(t) => (
                  <tr key={t.id}>
                    <td>{formatDate(t.created_at_millis)}</td>
                    <td className="mono">
                      {t.customer_type}:{t.customer_id}
                    </td>
                    <td>
                      {t.product_display_name ??
                        Object.entries(t.items)
                          .map(([item, n]) => `${item} ${n > 0 ? '+' : ''}${n}`)
                          .join(', ')}
                      {t.quantity !== null && t.quantity > 1 ? ` × ${t.quantity}` : ''}
                    </td>
                    <td>{money(t.amount_minor, t.currency)}</td>
                    <td>
                      {t.type.replace('_', ' ')}
                      {t.test_mode ? <span className="muted small"> (test)</span> : null}
                    </td>
                  </tr>
                )}
              />
              <div className="actions">
                {cursors.length > 0 ? (
                  <button className="button small" type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
                    Previous
                  </button>
                ) : null}
                {data.next_cursor ? (
                  <button className="button small" type="button" onClick={() => setCursors([...cursors, data.next_cursor!])}>
                    Next
                  </button>
                ) : null}
              </div>
            </>
          )
        }
      </QueryView>
    </Card>
  );
}
