import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { CUSTOMER_TYPES, type CustomerType } from '../../contract/config/payments.js';
import { TRANSACTION_TYPES } from '../../contract/schemas/payments.js';
import type { PaymentTransactions } from '../../sdk/index.js';
import { formatMoney } from '../components/money.js';
import { Card, Empty, Pager, QueryView, SelectField, Table, formatDate } from '../components/ui.js';
import type { PageProps } from './page-props.js';

type Transaction = PaymentTransactions['transactions'][number];

const typeLabel = (type: string) => type.replace('_', ' ');

/** What a transaction moved: its product, or the items of a manual change. */
function whatMoved(t: Transaction): string {
  const items = Object.entries(t.items)
    .map(([item, n]) => `${item} ${n > 0 ? '+' : ''}${n}`)
    .join(', ');
  const product = t.product_display_name ? `${t.product_display_name}${t.quantity !== null && t.quantity > 1 ? ` × ${t.quantity}` : ''}` : null;
  return [product, items && !product ? items : null].filter(Boolean).join(' ') || '—';
}

/**
 * The transaction log: filters by type and customer type, keyset pages (Previous/Next keep the
 * stack of cursors), amounts from integer minor units by the currency's decimals, test-mode rows
 * marked (and tinted) so no one reads them as money.
 */
export function TransactionsCard({ projectId, admin, customer }: Pick<PageProps, 'projectId' | 'admin'> & { customer?: { type: CustomerType; id: string } }) {
  const [type, setType] = useState<'' | (typeof TRANSACTION_TYPES)[number]>('');
  const [customerType, setCustomerType] = useState<'' | CustomerType>('');
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors.at(-1);
  /** A filter's change starts again from the first page: the cursors belong to the old filter. */
  const refilter =
    <T,>(set: (value: T) => void) =>
    (next: T) => {
      set(next);
      setCursors([undefined]);
    };
  const filter = {
    ...(type ? { type } : {}),
    ...(customer ? { customer_type: customer.type, customer_id: customer.id } : customerType ? { customer_type: customerType } : {}),
  };
  const page = useQuery(
    {
      queryKey: ['payments', projectId, 'transactions', filter, cursor ?? null],
      queryFn: () => admin.listTransactions({ ...filter, ...(cursor ? { cursor } : {}), limit: 25 }),
      placeholderData: keepPreviousData,
    },
    admin.queryClient,
  );
  return (
    <Card title={customer ? "This customer's transactions" : 'Transactions'}>
      <div className="row">
        <SelectField label="Transaction type" value={type} onValue={refilter(setType)} options={TRANSACTION_TYPES} optionLabel={typeLabel} none="All" />
        {customer ? null : <SelectField label="Customer type" value={customerType} onValue={refilter(setCustomerType)} options={CUSTOMER_TYPES} none="All" />}
      </div>
      <QueryView query={page} loadingLabel="Loading transactions…">
        {(data) =>
          data.transactions.length === 0 ? (
            <Empty title="No transactions">Purchases, renewals, refunds, disputes, grants and manual changes show here.</Empty>
          ) : (
            <>
              <Table
                label="Transactions"
                columns={['When', 'Type', 'Customer', 'What', 'Amount']}
                items={data.transactions}
                row={(t) => (
                  <tr key={t.id} className={t.test_mode ? 'test-mode' : undefined} data-testid="transaction-row">
                    <td>{formatDate(t.created_at_millis)}</td>
                    <td>
                      {typeLabel(t.type)} {t.test_mode ? <span className="badge warn">Test mode</span> : null}
                    </td>
                    <td className="mono">
                      {t.customer_type}:{t.customer_id}
                    </td>
                    <td>
                      {whatMoved(t)}
                      {t.description ? <div className="muted small">{t.description}</div> : null}
                    </td>
                    <td className="mono">{formatMoney(t.amount_minor, t.currency)}</td>
                  </tr>
                )}
              />
              <Pager label="Transaction pages" cursors={cursors} onCursors={setCursors} next={data.next_cursor} showPage />
            </>
          )
        }
      </QueryView>
    </Card>
  );
}
