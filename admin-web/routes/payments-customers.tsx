import type { PaymentCustomerRef } from '../../sdk/index.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { CUSTOMER_TYPES, type CustomerType } from '../../contract/config/payments.js';
import { paymentsOf } from '../components/config.js';
import {
  Card,
  Empty,
  EntrySelectField,
  ErrorMessage,
  Field,
  InlineForm,
  Pager,
  QueryView,
  SelectField,
  SmallButton,
  StatusNote,
  Table,
  useAction,
  useDebounced,
} from '../components/ui.js';
import { TransactionsCard } from './payments-transactions.js';
import type { PageProps } from './page-props.js';

interface Customer {
  type: CustomerType;
  id: string;
  label: string;
}

/**
 * Customer lookup: pick a user (search), a team or a custom id, then see every item's balance and
 * the products held, grant a product and change an item's quantity with a description, all through
 * the same operations a server uses (an admin may take a balance below zero), and the customer's
 * transactions.
 */
export function CustomersTab(props: PageProps) {
  const [customer, setCustomer] = useState<Customer | null>(null);
  return (
    <>
      <CustomerPicker {...props} onPick={setCustomer} />
      {customer ? (
        <>
          <CustomerCard {...props} customer={customer} />
          <TransactionsCard projectId={props.projectId} admin={props.admin} customer={customer} key={`${customer.type}:${customer.id}`} />
        </>
      ) : null}
    </>
  );
}

function CustomerPicker({ admin, onPick }: PageProps & { onPick: (customer: Customer) => void }) {
  const [type, setType] = useState<CustomerType>('user');
  const [search, setSearch] = useState('');
  const [customId, setCustomId] = useState('');
  const query = useDebounced(search.trim(), 300);
  const users = useQuery(
    { ...admin.usersQuery({ limit: 10, ...(query ? { query } : {}) }), enabled: type === 'user', placeholderData: keepPreviousData },
    admin.queryClient,
  );
  const teams = useQuery({ ...admin.teamsQuery(), enabled: type === 'team' }, admin.queryClient);
  const pickCustom = (event: FormEvent) => {
    event.preventDefault();
    if (customId.trim()) onPick({ type: 'custom', id: customId.trim(), label: customId.trim() });
  };
  return (
    <Card title="Customer lookup">
      <SelectField label="Customer type" value={type} onValue={setType} options={CUSTOMER_TYPES} />
      {type === 'user' ? (
        <>
          <Field label="Find a user">
            {(p) => <input {...p} type="search" placeholder="Email, name or ID" value={search} onChange={(e) => setSearch(e.target.value)} />}
          </Field>
          <QueryView query={users} loadingLabel="Searching users…">
            {(page) =>
              page.items.length === 0 ? (
                <Empty title="No users found" />
              ) : (
                <Table
                  label="Matching users"
                  columns={['User', 'ID', null]}
                  items={page.items}
                  row={(user) => (
                    <tr key={user.id}>
                      <td>{user.display_name ?? user.primary_email ?? '—'}</td>
                      <td className="mono small">{user.id}</td>
                      <td className="actions end">
                        <SmallButton onClick={() => onPick({ type: 'user', id: user.id, label: user.primary_email ?? user.display_name ?? user.id })}>
                          Select
                        </SmallButton>
                      </td>
                    </tr>
                  )}
                />
              )
            }
          </QueryView>
        </>
      ) : type === 'team' ? (
        <QueryView query={teams} loadingLabel="Loading teams…">
          {(list) =>
            list.length === 0 ? (
              <Empty title="No teams yet" />
            ) : (
              <Table
                label="Teams"
                columns={['Team', 'ID', null]}
                items={list}
                row={(team) => (
                  <tr key={team.id}>
                    <td>{team.display_name}</td>
                    <td className="mono small">{team.id}</td>
                    <td className="actions end">
                      <SmallButton onClick={() => onPick({ type: 'team', id: team.id, label: team.display_name })}>Select</SmallButton>
                    </td>
                  </tr>
                )}
              />
            )
          }
        </QueryView>
      ) : (
        <form className="row" style={{ alignItems: 'flex-end' }} onSubmit={pickCustom} noValidate>
          <Field label="Custom customer ID">{(p) => <input {...p} value={customId} onChange={(e) => setCustomId(e.target.value)} />}</Field>
          <button type="submit" className="button" disabled={!customId.trim()}>
            Look up
          </button>
        </form>
      )}
    </Card>
  );
}

function CustomerCard({ projectId, admin, project, customer }: PageProps & { customer: Customer }) {
  const payments = paymentsOf(project);
  const who: PaymentCustomerRef =
    customer.type === 'user' ? { userId: customer.id } : customer.type === 'team' ? { teamId: customer.id } : { customCustomerId: customer.id };
  const itemIds = Object.entries(payments.items)
    .filter(([, item]) => item.customerType === customer.type)
    .map(([id]) => id);
  const products = Object.entries(payments.products).filter(([, p]) => p.customerType === customer.type);
  // One call per item (the SDK batches them into one request); a catalogue has a handful of items.
  const balances = useQuery(
    {
      queryKey: ['payments', projectId, 'balances', customer.type, customer.id, itemIds],
      queryFn: () => Promise.all(itemIds.map((itemId) => admin.getItem({ ...who, itemId }))),
    },
    admin.queryClient,
  );
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors.at(-1);
  const held = useQuery(
    {
      queryKey: ['payments', projectId, 'products', customer.type, customer.id, cursor ?? null],
      queryFn: () => admin.listProducts({ ...who, limit: 50, ...(cursor ? { cursor } : {}) }),
    },
    admin.queryClient,
  );
  const refresh = () => admin.queryClient.invalidateQueries({ queryKey: ['payments', projectId] });

  const [productId, setProductId] = useState(products[0]?.[0] ?? '');
  const [quantity, setQuantity] = useState('1');
  const stackable = payments.products[productId]?.stackable ?? false;
  const granting = useAction(async () => {
    await admin.grantProduct({ ...who, productId, ...(stackable ? { quantity: Number(quantity) } : {}) });
    await refresh();
  });
  const [itemId, setItemId] = useState(itemIds[0] ?? '');
  const [delta, setDelta] = useState('');
  const [description, setDescription] = useState('');
  const deltaError = delta.trim() !== '' && !/^-?\d+$/.test(delta.trim()) ? 'must be a whole number (negative to take away)' : undefined;
  const changing = useAction(async () => {
    await admin.updateItemQuantity({ ...who, itemId, delta: Number(delta), ...(description.trim() ? { description: description.trim() } : {}) });
    setDelta('');
    setDescription('');
    await refresh();
  });

  return (
    <Card title={`${customer.type}: ${customer.label}`}>
      <p className="muted small mono">{customer.id}</p>
      <h3>Item balances</h3>
      {itemIds.length === 0 ? (
        <Empty title={`No ${customer.type} items in the catalogue`} />
      ) : (
        <QueryView query={balances} loadingLabel="Loading balances…">
          {(list) => (
            <Table
              label="Item balances"
              columns={['Item', 'Quantity', 'Usable (never below 0)']}
              items={list}
              row={(item) => (
                <tr key={item.id} data-testid="item-balance">
                  <td>
                    {item.display_name} <span className="muted small mono">{item.id}</span>
                  </td>
                  <td className="mono">{item.quantity}</td>
                  <td className="mono">{item.non_negative_quantity}</td>
                </tr>
              )}
            />
          )}
        </QueryView>
      )}
      <h3>Products held</h3>
      <QueryView query={held} loadingLabel="Loading products…">
        {(page) =>
          page.items.length === 0 && cursors.length === 1 ? (
            <Empty title="No products" />
          ) : (
            <>
              <Table
                label="Products held"
                columns={['Product', 'ID', 'Quantity', 'Flags']}
                items={page.items}
                row={(p, i) => (
                  <tr key={`${p.id ?? 'inline'}-${i}`} data-testid="held-product">
                    <td>{p.product.display_name}</td>
                    <td className="mono">{p.id ?? 'inline'}</td>
                    <td className="mono">{p.quantity}</td>
                    <td className="small">
                      {[p.product.server_only ? 'server only' : null, p.product.stackable ? 'stackable' : null].filter(Boolean).join(', ') || '—'}
                    </td>
                  </tr>
                )}
              />
              <Pager label="Product pages" cursors={cursors} onCursors={setCursors} next={page.pagination.next_cursor} />
            </>
          )
        }
      </QueryView>

      <h3>Grant a product</h3>
      {products.length === 0 ? (
        <Empty title={`No ${customer.type} products in the catalogue`} />
      ) : (
        <InlineForm
          label="Grant a product"
          align="end"
          submitLabel="Grant product"
          disabled={!productId || granting.pending}
          onSubmit={(e) => {
            e.preventDefault();
            void granting.run();
          }}
          after={<StatusNote show={granting.done}>Granted.</StatusNote>}
        >
          <EntrySelectField label="Product to grant" value={productId} onValue={setProductId} entries={products} />
          {stackable ? (
            <Field label="Quantity to grant">
              {(p) => <input {...p} type="number" min={1} style={{ width: 100 }} value={quantity} onChange={(e) => setQuantity(e.target.value)} />}
            </Field>
          ) : null}
        </InlineForm>
      )}
      <ErrorMessage error={granting.error} title="Could not grant the product" />

      <h3>Change an item quantity</h3>
      {itemIds.length === 0 ? null : (
        <InlineForm
          label="Change an item quantity"
          align="start"
          submitLabel="Change quantity"
          disabled={!delta.trim() || Boolean(deltaError) || changing.pending}
          onSubmit={(e) => {
            e.preventDefault();
            if (!deltaError && delta.trim()) void changing.run();
          }}
        >
          <SelectField
            label="Item to change"
            value={itemId}
            onValue={setItemId}
            options={itemIds}
            optionLabel={(id) => payments.items[id]?.displayName ?? id}
          />
          <Field label="Change by" error={deltaError} hint="e.g. 10 or -5">
            {(p) => <input {...p} inputMode="numeric" style={{ width: 100 }} value={delta} onChange={(e) => setDelta(e.target.value)} />}
          </Field>
          <Field label="Description" hint="Shown in the transactions">
            {(p) => <input {...p} maxLength={1000} value={description} onChange={(e) => setDescription(e.target.value)} />}
          </Field>
        </InlineForm>
      )}
      <ErrorMessage error={changing.error} title="Could not change the quantity" />
    </Card>
  );
}
