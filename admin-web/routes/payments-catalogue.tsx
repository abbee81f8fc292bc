import { type FormEvent, type ReactNode, useState } from 'react';
import {
  CURRENCY_CODES,
  CURRENCY_DECIMALS,
  CUSTOMER_TYPES,
  type CurrencyCode,
  type CustomerType,
  INTERVAL_UNITS,
  type IntervalUnit,
  type PaymentsSettings,
  type Product,
  priceSchema,
  productSchema,
} from '../../contract/config/payments.js';
import { paymentsOf, saveConfig } from '../components/config.js';
import {
  Card,
  ConfirmButton,
  SelectField,
  DialogFooter,
  Empty,
  EntrySelectField,
  ErrorMessage,
  Field,
  InlineForm,
  Modal,
  PrimaryButton,
  SmallButton,
  Table,
  useAction,
  StatusNote,
} from '../components/ui.js';
import type { PageProps } from './page-props.js';

/**
 * The payments catalogue (project config `payments`): items, product lines and products. Every
 * save writes the whole section, built from the config the server last answered, and is checked
 * first with the contract's own schema (paymentsConfigSchema, through saveConfig): the messages are
 * the server's, cross-references included (an included item that does not exist, a product line of
 * another customer type). Money amounts are checked as they are typed with the contract's
 * priceSchema, so the spec's messages show under the very field.
 */
export function CatalogueTab({ admin, project }: PageProps) {
  const payments = paymentsOf(project);
  const save = (next: Partial<PaymentsSettings>) => saveConfig(admin, { payments: { ...payments, ...next } as never });
  return (
    <>
      <SimpleEntries
        title="Items"
        noun="item"
        description="What customers hold a quantity of (credits, seats, API calls). Products include them; you can change a customer's quantity directly."
        entries={payments.items}
        requireCustomerType
        onSave={(id, entry) => save({ items: { ...payments.items, [id]: { ...entry, customerType: entry.customerType! } } })}
        onRemove={(id) => save({ items: without(payments.items, id) })}
      />
      <SimpleEntries
        title="Product lines"
        noun="product line"
        description="A customer holds at most one product of a line (plans: Free, Pro, Team); add-ons are exempt."
        entries={payments.productLines}
        onSave={(id, entry) => save({ productLines: { ...payments.productLines, [id]: entry } })}
        onRemove={(id) => save({ productLines: without(payments.productLines, id) })}
      />
      <ProductsCard payments={payments} onSave={(products) => save({ products })} />
    </>
  );
}

function without<T>(record: Record<string, T>, id: string): Record<string, T> {
  const { [id]: _removed, ...rest } = record;
  return rest;
}

function CustomerTypeSelect({
  value,
  onChange,
  optional,
  label = 'Customer type',
}: {
  value: string;
  onChange: (v: string) => void;
  optional?: boolean;
  label?: string;
}) {
  return <SelectField label={label} value={value} onValue={onChange} options={CUSTOMER_TYPES} none={optional ? 'Any' : undefined} />;
}

type SimpleEntry = { displayName?: string; customerType?: CustomerType };

/** Items and product lines: an id, a display name and a customer type, edited on one row. */
function SimpleEntries({
  title,
  noun,
  description,
  entries,
  requireCustomerType,
  onSave,
  onRemove,
}: {
  title: string;
  noun: string;
  description: ReactNode;
  entries: Record<string, SimpleEntry>;
  requireCustomerType?: boolean;
  onSave: (id: string, entry: SimpleEntry) => Promise<void>;
  onRemove: (id: string) => Promise<void>;
}) {
  const [id, setId] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [customerType, setCustomerType] = useState<string>(requireCustomerType ? 'user' : '');
  const saving = useAction(async () => {
    await onSave(id.trim(), {
      ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
      ...(customerType ? { customerType: customerType as CustomerType } : {}),
    });
    setId('');
    setDisplayName('');
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void saving.run();
  };
  const rows = Object.entries(entries);
  const editing = id.trim() in entries;
  return (
    <Card title={title}>
      <p className="muted small">{description}</p>
      {rows.length === 0 ? (
        <Empty title={`No ${noun}s yet`} />
      ) : (
        <Table
          label={title}
          columns={['ID', 'Display name', 'Customer type', null]}
          items={rows}
          row={([entryId, entry]) => (
            <tr key={entryId}>
              <td className="mono">{entryId}</td>
              <td>{entry.displayName ?? '—'}</td>
              <td>{entry.customerType ?? 'any'}</td>
              <td className="actions end">
                <SmallButton
                  onClick={() => {
                    setId(entryId);
                    setDisplayName(entry.displayName ?? '');
                    setCustomerType(entry.customerType ?? '');
                  }}
                >
                  Edit
                </SmallButton>
                <ConfirmButton
                  className="button small danger"
                  label="Remove"
                  title={`Remove ${noun} ${entryId}?`}
                  message={`Products that use ${entryId} must be changed first; customers' past transactions keep their record.`}
                  onConfirm={() => onRemove(entryId)}
                />
              </td>
            </tr>
          )}
        />
      )}
      <InlineForm
        label={`Add ${noun}`}
        spaced
        align="end"
        submitLabel={editing ? `Save ${noun}` : `Add ${noun}`}
        disabled={!id.trim() || saving.pending}
        onSubmit={submit}
        after={<StatusNote show={saving.done}>Saved.</StatusNote>}
      >
        <Field label={`${title.slice(0, -1)} ID`}>{(props) => <input {...props} value={id} onChange={(e) => setId(e.target.value)} />}</Field>
        <Field label={`${title.slice(0, -1)} display name`}>
          {(props) => <input {...props} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />}
        </Field>
        <CustomerTypeSelect value={customerType} onChange={setCustomerType} optional={!requireCustomerType} label={`${title.slice(0, -1)} customer type`} />
      </InlineForm>
      <ErrorMessage error={saving.error} title={`Could not save the ${noun}`} />
    </Card>
  );
}

// ─── Products ─────────────────────────────────────────────────────────────────────────────────

interface IntervalDraft {
  count: string;
  unit: IntervalUnit | '';
}
interface PriceDraft {
  key: number;
  id: string;
  amounts: Partial<Record<CurrencyCode, string>>;
  interval: IntervalDraft;
  freeTrial: IntervalDraft;
  serverOnly: boolean;
}
interface IncludedDraft {
  key: number;
  itemId: string;
  quantity: string;
  repeat: IntervalDraft;
  expires: 'never' | 'when-purchase-expires' | 'when-repeated';
}
interface ProductDraft {
  id: string;
  displayName: string;
  customerType: CustomerType;
  productLineId: string;
  serverOnly: boolean;
  stackable: boolean;
  freeTrial: IntervalDraft;
  includeByDefault: boolean;
  prices: PriceDraft[];
  included: IncludedDraft[];
  addOnTo: string[];
}

let nextKey = 1;
const noInterval: IntervalDraft = { count: '', unit: '' };
const newPrice = (id = 'default'): PriceDraft => ({ key: nextKey++, id, amounts: {}, interval: noInterval, freeTrial: noInterval, serverOnly: false });

const intervalDraft = (interval: [number, IntervalUnit] | 'never' | undefined): IntervalDraft =>
  interval && interval !== 'never' ? { count: String(interval[0]), unit: interval[1] } : noInterval;
/** A draft interval as the config writes it: [n, unit], or undefined when left empty (the count as typed: the schema checks it). */
const intervalValue = (draft: IntervalDraft): unknown => (draft.unit ? [draft.count.trim() === '' ? NaN : Number(draft.count), draft.unit] : undefined);

function draftOf(id: string, product: Product | undefined): ProductDraft {
  if (!product) {
    return {
      id,
      displayName: '',
      customerType: 'user',
      productLineId: '',
      serverOnly: false,
      stackable: false,
      freeTrial: noInterval,
      includeByDefault: false,
      prices: [newPrice()],
      included: [],
      addOnTo: [],
    };
  }
  return {
    id,
    displayName: product.displayName ?? '',
    customerType: product.customerType,
    productLineId: product.productLineId ?? '',
    serverOnly: product.serverOnly,
    stackable: product.stackable,
    freeTrial: intervalDraft(product.freeTrial),
    includeByDefault: product.prices === 'include-by-default',
    prices:
      product.prices === 'include-by-default'
        ? [newPrice()]
        : Object.entries(product.prices).map(([priceId, price]) => ({
            key: nextKey++,
            id: priceId,
            amounts: Object.fromEntries(CURRENCY_CODES.filter((c) => price[c] !== undefined).map((c) => [c, price[c]!])),
            interval: intervalDraft(price.interval),
            freeTrial: intervalDraft(price.freeTrial),
            serverOnly: price.serverOnly ?? false,
          })),
    included: Object.entries(product.includedItems ?? {}).map(([itemId, included]) => ({
      key: nextKey++,
      itemId,
      quantity: String(included.quantity),
      repeat: intervalDraft(included.repeat),
      expires: included.expires,
    })),
    addOnTo: product.isAddOnTo ? Object.keys(product.isAddOnTo) : [],
  };
}

/** A price draft as the config writes it: only the currencies given an amount. */
function priceValue(price: PriceDraft): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const code of CURRENCY_CODES) {
    const amount = price.amounts[code];
    if (amount !== undefined && amount !== '') value[code] = amount;
  }
  const interval = intervalValue(price.interval);
  const freeTrial = intervalValue(price.freeTrial);
  if (interval) value.interval = interval;
  if (freeTrial) value.freeTrial = freeTrial;
  if (price.serverOnly) value.serverOnly = true;
  return value;
}

/** The product as the config writes it (camel-case form). */
function productValue(draft: ProductDraft): Record<string, unknown> {
  const freeTrial = intervalValue(draft.freeTrial);
  return {
    ...(draft.displayName.trim() ? { displayName: draft.displayName.trim() } : {}),
    customerType: draft.customerType,
    ...(draft.productLineId ? { productLineId: draft.productLineId } : {}),
    isAddOnTo: draft.addOnTo.length > 0 ? Object.fromEntries(draft.addOnTo.map((id) => [id, true])) : false,
    ...(freeTrial ? { freeTrial } : {}),
    serverOnly: draft.serverOnly,
    stackable: draft.stackable,
    prices: draft.includeByDefault ? 'include-by-default' : Object.fromEntries(draft.prices.map((p) => [p.id.trim(), priceValue(p)])),
    includedItems: Object.fromEntries(
      draft.included.map((i) => [
        i.itemId,
        { quantity: i.quantity.trim() === '' ? NaN : Number(i.quantity), repeat: intervalValue(i.repeat) ?? 'never', expires: i.expires },
      ]),
    ),
  };
}

/**
 * A price's problems by field, from the contract's priceSchema (the server's own rule): a currency
 * code → its amount's message (format, decimals, leading zeros), `_` → the price's own (at least one
 * currency), `interval` / `freeTrial` → theirs.
 */
function priceProblems(price: PriceDraft): Record<string, string> {
  const result = priceSchema.safeParse(priceValue(price));
  const problems: Record<string, string> = {};
  if (result.success) return problems;
  for (const issue of result.error.issues) problems[String(issue.path[0] ?? '_')] ??= issue.message;
  return problems;
}

function formatPrices(product: Product): string {
  if (product.prices === 'include-by-default') return 'Included by default';
  return Object.entries(product.prices)
    .map(([id, price]) => {
      const amounts = CURRENCY_CODES.filter((c) => price[c] !== undefined).map((c) => `${price[c]} ${c}`);
      return `${id}: ${amounts.join(' / ')}${price.interval ? ` every ${price.interval[0]} ${price.interval[1]}` : ''}`;
    })
    .join('; ');
}

function ProductsCard({ payments, onSave }: { payments: PaymentsSettings; onSave: (products: PaymentsSettings['products']) => Promise<void> }) {
  const [editing, setEditing] = useState<ProductDraft | null>(null);
  const [isNew, setIsNew] = useState(false);
  const products = Object.entries(payments.products);
  return (
    <Card title="Products" actions={<PrimaryButton onClick={() => (setIsNew(true), setEditing(draftOf('', undefined)))}>Create product</PrimaryButton>}>
      <p className="muted small">
        Prices are amounts per currency (JPY has no decimals, the others two), one-time or every interval. Customers get the included items with the product.
      </p>
      {products.length === 0 ? (
        <Empty title="No products yet" />
      ) : (
        <Table
          label="Products"
          columns={['ID', 'Display name', 'Customer type', 'Prices', 'Included items', null]}
          items={products}
          row={([id, product]) => (
            <tr key={id}>
              <td className="mono">{id}</td>
              <td>
                {product.displayName ?? '—'}
                {product.productLineId ? <div className="muted small">Line: {product.productLineId}</div> : null}
                {product.isAddOnTo ? <div className="muted small">Add-on to {Object.keys(product.isAddOnTo).join(', ')}</div> : null}
              </td>
              <td>{product.customerType}</td>
              <td className="small">{formatPrices(product)}</td>
              <td className="small">
                {Object.entries(product.includedItems ?? {})
                  .map(([item, inc]) => `${inc.quantity} ${item}`)
                  .join(', ') || '—'}
              </td>
              <td className="actions end">
                <SmallButton onClick={() => (setIsNew(false), setEditing(draftOf(id, product)))}>Edit</SmallButton>
                <ConfirmButton
                  className="button small danger"
                  label="Remove"
                  title={`Remove product ${id}?`}
                  message="Customers who hold it keep it (their copy is a snapshot); it can no longer be bought or granted."
                  onConfirm={() => onSave(without(payments.products, id))}
                />
              </td>
            </tr>
          )}
        />
      )}
      <Modal title={isNew ? 'Create product' : `Edit product ${editing?.id ?? ''}`} open={editing !== null} onClose={() => setEditing(null)} wide>
        {editing ? (
          <ProductForm
            initial={editing}
            isNew={isNew}
            payments={payments}
            onCancel={() => setEditing(null)}
            onSave={async (id, product) => {
              await onSave({ ...payments.products, [id]: product as Product });
              setEditing(null);
            }}
          />
        ) : null}
      </Modal>
    </Card>
  );
}

function IntervalInput({
  label,
  value,
  onChange,
  error,
  none = 'None',
}: {
  label: string;
  value: IntervalDraft;
  onChange: (v: IntervalDraft) => void;
  error?: string;
  none?: string;
}) {
  return (
    <Field label={label} error={error}>
      {(props) => (
        <div className="row" style={{ gap: 4 }}>
          <input
            {...props}
            aria-label={`${label} count`}
            type="number"
            min={0}
            style={{ width: 80 }}
            value={value.count}
            disabled={!value.unit}
            onChange={(e) => onChange({ ...value, count: e.target.value })}
          />
          <select
            aria-label={`${label} unit`}
            value={value.unit}
            onChange={(e) => onChange({ count: value.count || '1', unit: e.target.value as IntervalUnit | '' })}
          >
            <option value="">{none}</option>
            {INTERVAL_UNITS.map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
        </div>
      )}
    </Field>
  );
}

function ProductForm({
  initial,
  isNew,
  payments,
  onCancel,
  onSave,
}: {
  initial: ProductDraft;
  isNew: boolean;
  payments: PaymentsSettings;
  onCancel: () => void;
  onSave: (id: string, product: unknown) => Promise<void>;
}) {
  const [draft, setDraft] = useState(initial);
  const [submitted, setSubmitted] = useState<Record<string, string>>({});
  const set = (patch: Partial<ProductDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const setPrice = (key: number, patch: Partial<PriceDraft>) => set({ prices: draft.prices.map((p) => (p.key === key ? { ...p, ...patch } : p)) });
  const setIncluded = (key: number, patch: Partial<IncludedDraft>) => set({ included: draft.included.map((i) => (i.key === key ? { ...i, ...patch } : i)) });
  const items = Object.entries(payments.items).filter(([, item]) => item.customerType === draft.customerType);
  const lines = Object.entries(payments.productLines).filter(([, line]) => !line.customerType || line.customerType === draft.customerType);
  const bases = Object.entries(payments.products).filter(([id, p]) => id !== draft.id && p.customerType === draft.customerType);
  const saving = useAction(async () => {
    const id = draft.id.trim();
    const problems: Record<string, string> = {};
    if (isNew && !id) problems.id = 'is a required field';
    if (isNew && id in payments.products) problems.id = `A product ${id} exists already`;
    const checked = productSchema.safeParse(productValue(draft));
    if (!checked.success) for (const issue of checked.error.issues) problems[issue.path.join('.') || '_'] ??= issue.message;
    setSubmitted(problems);
    if (Object.keys(problems).length > 0) throw new Error('Fix the fields marked above first.');
    await onSave(id, productValue(draft));
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void saving.run();
  };
  const otherProblems = Object.entries(submitted).filter(([path]) => !/^(id|displayName|prices\.|includedItems\.|freeTrial)/.test(path));
  return (
    <form className="stack" onSubmit={submit} noValidate aria-label="Product">
      <div className="row">
        <Field label="Product ID" error={submitted.id}>
          {(props) => <input {...props} value={draft.id} disabled={!isNew} onChange={(e) => set({ id: e.target.value })} />}
        </Field>
        <Field label="Display name" error={submitted.displayName}>
          {(props) => <input {...props} value={draft.displayName} onChange={(e) => set({ displayName: e.target.value })} />}
        </Field>
        <CustomerTypeSelect
          value={draft.customerType}
          onChange={(v) => set({ customerType: v as CustomerType, included: [], addOnTo: [], productLineId: '' })}
        />
        <EntrySelectField label="Product line" value={draft.productLineId} onValue={(productLineId) => set({ productLineId })} entries={lines} none="None" />
      </div>
      <div className="row">
        <label className="row">
          <input type="checkbox" checked={draft.serverOnly} onChange={(e) => set({ serverOnly: e.target.checked })} /> Server only (clients cannot see or buy
          it)
        </label>
        <label className="row">
          <input type="checkbox" checked={draft.stackable} onChange={(e) => set({ stackable: e.target.checked })} /> Stackable (a customer may hold several)
        </label>
        <IntervalInput label="Free trial" value={draft.freeTrial} onChange={(freeTrial) => set({ freeTrial })} error={submitted['freeTrial']} />
      </div>
      {bases.length > 0 ? (
        <fieldset>
          <legend>Add-on to</legend>
          <div className="row">
            {bases.map(([id, p]) => (
              <label key={id} className="row">
                <input
                  type="checkbox"
                  checked={draft.addOnTo.includes(id)}
                  onChange={(e) => set({ addOnTo: e.target.checked ? [...draft.addOnTo, id] : draft.addOnTo.filter((x) => x !== id) })}
                />
                {p.displayName ?? id}
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}

      <fieldset>
        <legend>Prices</legend>
        <label className="row">
          <input type="checkbox" checked={draft.includeByDefault} onChange={(e) => set({ includeByDefault: e.target.checked })} /> Included by default (free,
          every customer of this type has it)
        </label>
        {draft.includeByDefault
          ? null
          : draft.prices.map((price) => {
              const problems = priceProblems(price);
              return (
                <div key={price.key} className="stack" style={{ borderTop: '1px solid var(--border)', paddingTop: 8 }} data-testid="price">
                  <div className="row" style={{ alignItems: 'flex-start' }}>
                    <Field label="Price ID" error={submitted[`prices.${price.id.trim()}`]}>
                      {(props) => <input {...props} style={{ width: 120 }} value={price.id} onChange={(e) => setPrice(price.key, { id: e.target.value })} />}
                    </Field>
                    <IntervalInput
                      label="Billing interval"
                      none="One-time"
                      value={price.interval}
                      onChange={(interval) => setPrice(price.key, { interval })}
                      error={problems.interval}
                    />
                    <IntervalInput
                      label="Price free trial"
                      value={price.freeTrial}
                      onChange={(freeTrial) => setPrice(price.key, { freeTrial })}
                      error={problems.freeTrial}
                    />
                    <label className="row" style={{ marginTop: 26 }}>
                      <input type="checkbox" checked={price.serverOnly} onChange={(e) => setPrice(price.key, { serverOnly: e.target.checked })} /> Server only
                    </label>
                    {draft.prices.length > 1 ? (
                      <button
                        type="button"
                        className="button small danger"
                        style={{ marginTop: 26 }}
                        onClick={() => set({ prices: draft.prices.filter((p) => p.key !== price.key) })}
                      >
                        Remove price
                      </button>
                    ) : null}
                  </div>
                  <div className="row" style={{ alignItems: 'flex-start' }}>
                    {CURRENCY_CODES.map((code) => (
                      <div key={code} style={{ width: 110 }}>
                        <Field label={`${code} amount`} error={problems[code]}>
                          {(props) => (
                            <input
                              {...props}
                              inputMode="decimal"
                              placeholder={CURRENCY_DECIMALS[code] === 0 ? '1200' : '9.99'}
                              value={price.amounts[code] ?? ''}
                              onChange={(e) => setPrice(price.key, { amounts: { ...price.amounts, [code]: e.target.value } })}
                            />
                          )}
                        </Field>
                      </div>
                    ))}
                  </div>
                  {problems._ ? (
                    <span className="field-error" role="alert">
                      {problems._}
                    </span>
                  ) : null}
                </div>
              );
            })}
        {draft.includeByDefault ? null : (
          <div className="actions">
            <SmallButton onClick={() => set({ prices: [...draft.prices, newPrice(`price${draft.prices.length + 1}`)] })}>Add price</SmallButton>
          </div>
        )}
      </fieldset>

      <fieldset>
        <legend>Included items</legend>
        {items.length === 0 ? <p className="muted small">No {draft.customerType} items yet: create one under Items first.</p> : null}
        {draft.included.map((inc) => (
          <div key={inc.key} className="row" style={{ alignItems: 'flex-start' }}>
            <EntrySelectField
              label="Item"
              error={submitted[`includedItems.${inc.itemId}`]}
              value={inc.itemId}
              onValue={(itemId) => setIncluded(inc.key, { itemId })}
              entries={items}
            />
            <Field label="Quantity" error={submitted[`includedItems.${inc.itemId}.quantity`]}>
              {(props) => (
                <input
                  {...props}
                  type="number"
                  min={0}
                  style={{ width: 100 }}
                  value={inc.quantity}
                  onChange={(e) => setIncluded(inc.key, { quantity: e.target.value })}
                />
              )}
            </Field>
            <IntervalInput label="Repeat every" none="Never" value={inc.repeat} onChange={(repeat) => setIncluded(inc.key, { repeat })} />
            <Field label="Expires">
              {(props) => (
                <select {...props} value={inc.expires} onChange={(e) => setIncluded(inc.key, { expires: e.target.value as IncludedDraft['expires'] })}>
                  <option value="never">never</option>
                  <option value="when-purchase-expires">when the purchase expires</option>
                  <option value="when-repeated">when repeated</option>
                </select>
              )}
            </Field>
            <button
              type="button"
              className="button small danger"
              style={{ marginTop: 26 }}
              onClick={() => set({ included: draft.included.filter((i) => i.key !== inc.key) })}
            >
              Remove item
            </button>
          </div>
        ))}
        {items.length > 0 ? (
          <div className="actions">
            <SmallButton
              onClick={() =>
                set({ included: [...draft.included, { key: nextKey++, itemId: items[0]![0], quantity: '1', repeat: noInterval, expires: 'never' }] })
              }
            >
              Add included item
            </SmallButton>
          </div>
        ) : null}
      </fieldset>
      {otherProblems.length > 0 ? (
        <ul className="small field-error" aria-label="Product problems">
          {otherProblems.map(([path, message]) => (
            <li key={path}>
              {path === '_' ? '' : `${path}: `}
              {message}
            </li>
          ))}
        </ul>
      ) : null}
      <DialogFooter
        error={saving.error}
        submitLabel={isNew ? 'Create product' : 'Save product'}
        onCancel={onCancel}
        pending={saving.pending}
        pendingLabel="Saving…"
      />
    </form>
  );
}
