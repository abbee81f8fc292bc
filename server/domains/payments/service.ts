import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { authorizeTeamAction, clientOwnUserId, resolveUserId } from '../../access/policy.js';
import type { SystemTeamPermission } from '../../../contract/schemas/permissions.js';
import { type CustomerType, type Product, inlineProductSchema } from '../../../contract/config/payments.js';
import { type LedgerEntry, foldLedger, productGrants } from './ledger.js';
import * as q from './queries.js';
import type { z } from 'zod';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../db/keyset-cursor.js';
import { schemaErrorFromIssues } from '../../errors/wire.js';
import { uuidSchema } from '../../../contract/validation/schemas.js';
import { itemsOf, recordGrantOrChange } from './transactions.js';

/**
 * Payments (issue 18): customers, items and their ledger, products a customer holds.
 * Every check-then-write on a customer (a decrease against its balance, a non-stackable grant)
 * runs in one transaction holding the customer's row lock (queries.lockCustomer), so concurrent
 * requests serialise per customer and none reads a balance another is about to spend.
 */

/**
 * Who a request is about, after the access rules: clients only themselves and their teams; custom
 * ids only from servers. `teamPermission` is what a client must also hold in a team customer:
 * reading a team's items and products needs membership only, while buying for it and opening its
 * billing portal (payment methods, cancelling its subscription) need `$update_team`, the team
 * admin's permission (Stack Auth asks for its `team_admin` there).
 */
export async function authorizeCustomer(
  deps: Deps,
  auth: AuthContext,
  type: CustomerType,
  idParam: string,
  teamPermission: SystemTeamPermission | null = null,
): Promise<q.CustomerKey> {
  const tenancyId = auth.tenancy.id;
  // Users and teams are named by their uuid: anything else names no customer (and never reaches a uuid column).
  if (type !== 'custom' && !(type === 'user' && idParam === 'me') && !uuidSchema.safeParse(idParam).success)
    throw new KnownErrors.CustomerDoesNotExist(idParam);
  if (type === 'user') {
    if (auth.type === 'client') return { tenancyId, type, id: await clientOwnUserId(deps, auth, idParam) };
    const id = resolveUserId(auth, idParam);
    if (!(await q.userExists(deps.db, tenancyId, id))) throw new KnownErrors.CustomerDoesNotExist(id);
    return { tenancyId, type, id };
  }
  if (type === 'team') {
    if (auth.type === 'client') {
      await authorizeTeamAction(deps, auth, idParam, teamPermission);
      return { tenancyId, type, id: idParam };
    }
    if (!(await q.teamExists(deps.db, tenancyId, idParam))) throw new KnownErrors.CustomerDoesNotExist(idParam);
    return { tenancyId, type, id: idParam };
  }
  // Custom customers are the app's own ids: no session can vouch for them, so only servers name them.
  if (auth.type === 'client') throw new KnownErrors.InsufficientAccessType('client', ['server', 'admin']);
  return { tenancyId, type, id: idParam };
}

function requireItem(auth: AuthContext, itemId: string, type: CustomerType, customerId: string) {
  const item = auth.project.config.payments.items[itemId];
  if (!item) throw new KnownErrors.ItemNotFound(itemId);
  if (item.customerType !== type) throw new KnownErrors.ItemCustomerTypeDoesNotMatch(itemId, customerId, item.customerType, type);
  return item;
}

/** Every ledger entry of one item for a customer: its manual rows plus its products' grants. */
async function itemEntries(db: Executor, c: q.CustomerKey, itemId: string, now: Date): Promise<LedgerEntry[]> {
  const [rows, products] = await Promise.all([q.listLedger(db, c, itemId), q.listAllCustomerProducts(db, c)]);
  const entries: LedgerEntry[] = rows.map((r) => ({ delta: r.delta, at: r.created_at, expiresAt: r.expires_at }));
  for (const p of products) {
    const included = (p.product_snapshot as Product).includedItems?.[itemId];
    if (included) entries.push(...productGrants(included, p.quantity, p.started_at, p.ended_at, now));
  }
  return entries;
}

async function itemQuantity(db: Executor, c: q.CustomerKey, itemId: string, now: Date): Promise<number> {
  return foldLedger(await itemEntries(db, c, itemId, now), now).quantity;
}

export interface ItemDto {
  id: string;
  display_name: string;
  quantity: number;
  non_negative_quantity: number;
}

function toItemDto(itemId: string, displayName: string | undefined, quantity: number): ItemDto {
  return { id: itemId, display_name: displayName ?? itemId, quantity, non_negative_quantity: Math.max(0, quantity) };
}

export async function getItem(deps: Deps, auth: AuthContext, type: CustomerType, customerId: string, itemId: string): Promise<ItemDto> {
  const item = requireItem(auth, itemId, type, customerId);
  const customer = await authorizeCustomer(deps, auth, type, customerId);
  return toItemDto(itemId, item.displayName, await itemQuantity(deps.db, customer, itemId, new Date()));
}

export interface QuantityChange {
  delta: number;
  expires_at_millis?: number | null;
  description?: string | null;
  allow_negative?: boolean;
}

/**
 * Changes an item's quantity by `delta`. A decrease that would take the balance below zero fails
 * with ITEM_QUANTITY_INSUFFICIENT_AMOUNT unless allow_negative is set; changes by an admin may
 * overdraw (spec section 5: negative quantities only for decreases with allow_negative or admin).
 */
export async function updateItemQuantity(
  deps: Deps,
  auth: AuthContext,
  type: CustomerType,
  customerId: string,
  itemId: string,
  change: QuantityChange,
): Promise<ItemDto> {
  const item = requireItem(auth, itemId, type, customerId);
  const customer = await authorizeCustomer(deps, auth, type, customerId);
  const quantity = await deps.db.transaction().execute(async (trx) => {
    await q.lockCustomer(trx, customer);
    const now = new Date();
    const before = await itemQuantity(trx, customer, itemId, now);
    const mayOverdraw = change.allow_negative === true || auth.type === 'admin';
    if (change.delta < 0 && before + change.delta < 0 && !mayOverdraw) {
      throw new KnownErrors.ItemQuantityInsufficientAmount(itemId, customer.id, change.delta);
    }
    const rowId = randomUUID();
    await recordGrantOrChange(trx, customer, {
      sourceKey: `manual:${rowId}`,
      type: 'manual_change',
      productId: null,
      product: null,
      quantity: null,
      items: { [itemId]: change.delta },
      description: change.description ?? null,
      at: now,
    });
    await q.insertLedgerRow(trx, customer, {
      id: rowId,
      item_id: itemId,
      delta: change.delta,
      expires_at: change.expires_at_millis != null ? new Date(change.expires_at_millis) : null,
      description: change.description ?? null,
      source_kind: auth.type === 'admin' ? 'admin' : 'manual',
      created_at: now,
    });
    return before + change.delta;
  });
  return toItemDto(itemId, item.displayName, quantity);
}

// ─── Products ─────────────────────────────────────────────────────────────────────────────────

export interface CustomerProductDto {
  id: string | null;
  quantity: number;
  product: { display_name: string; customer_type: CustomerType; server_only: boolean; stackable: boolean };
}

function toCustomerProductDto(row: q.CustomerProductRow): CustomerProductDto {
  const p = row.product_snapshot as Product;
  return {
    id: row.product_id,
    quantity: row.quantity,
    product: { display_name: p.displayName ?? row.product_id ?? 'Product', customer_type: p.customerType, server_only: p.serverOnly, stackable: p.stackable },
  };
}

export async function listProducts(
  deps: Deps,
  auth: AuthContext,
  type: CustomerType,
  customerId: string,
  page: { cursor?: string; limit?: number },
): Promise<{ items: CustomerProductDto[]; is_paginated: true; pagination: { next_cursor: string | null } }> {
  const customer = await authorizeCustomer(deps, auth, type, customerId);
  const limit = page.limit ?? 100;
  const rows = await q.listActiveCustomerProducts(deps.db, customer, page.cursor ? decodeKeysetCursor(page.cursor) : null, limit + 1);
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  // Clients do not see server-only products (spec: serverOnly).
  const visible = auth.type === 'client' ? shown.filter((r) => !(r.product_snapshot as Product).serverOnly) : shown;
  return {
    items: visible.map(toCustomerProductDto),
    is_paginated: true,
    pagination: { next_cursor: rows.length > limit && last ? encodeKeysetCursor(last) : null },
  };
}

export interface GrantInput {
  product_id?: string;
  product_inline?: z.input<typeof inlineProductSchema>;
  quantity?: number;
}

/** Resolves a product named by id or given inline, checked against the customer type. */
export function resolveProduct(auth: AuthContext, type: CustomerType, customerId: string, input: GrantInput): { productId: string | null; product: Product } {
  let product: Product;
  let productId: string | null = null;
  if (input.product_id !== undefined) {
    productId = input.product_id;
    const found = auth.project.config.payments.products[productId];
    if (!found) throw new KnownErrors.ProductDoesNotExist(productId, auth.project.config.payments.items[productId] ? 'item_exists' : null);
    product = found;
  } else if (input.product_inline !== undefined) {
    const parsed = inlineProductSchema.safeParse(input.product_inline);
    if (!parsed.success) throw schemaErrorFromIssues(parsed.error.issues.map((issue) => ({ ...issue, path: ['product_inline', ...issue.path] })));
    product = parsed.data;
  } else {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - one of product_id or product_inline is required', {
      issues: [{ path: 'product_id', message: 'one of product_id or product_inline is required' }],
    });
  }
  if (product.customerType !== type) throw new KnownErrors.ProductCustomerTypeDoesNotMatch(productId ?? undefined, customerId, product.customerType, type);
  return { productId, product };
}

/**
 * Grants a product to a customer (server). A non-stackable product already held is
 * PRODUCT_ALREADY_GRANTED; a product in a product line replaces the customer's other product of
 * that line (lines are mutually exclusive; add-ons excepted). Under the customer's lock, so two
 * concurrent grants of a non-stackable product give one product and one error.
 */
export async function grantProduct(
  deps: Deps,
  auth: AuthContext,
  type: CustomerType,
  customerId: string,
  input: GrantInput,
  source: 'api_grant' | 'test_mode' = 'api_grant',
): Promise<CustomerProductDto> {
  const { productId, product } = resolveProduct(auth, type, customerId, input);
  const quantity = input.quantity ?? 1;
  if (quantity !== 1 && !product.stackable) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - quantity must be 1 for a product that is not stackable', {
      issues: [{ path: 'quantity', message: 'must be 1 for a product that is not stackable' }],
    });
  }
  const customer = await authorizeCustomer(deps, auth, type, customerId);
  return deps.db.transaction().execute(async (trx) => {
    await q.lockCustomer(trx, customer);
    return toCustomerProductDto(await grantLocked(trx, customer, productId, product, quantity, source, new Date()));
  });
}

/** Refuses a second non-stackable product the customer holds (call under the customer's lock). */
export async function assertNotHeld(trx: Executor, customer: q.CustomerKey, productId: string | null, product: Product): Promise<q.CustomerProductRow[]> {
  const held = await q.listActiveCustomerProducts(trx, customer, null, 10_000);
  if (productId !== null && !product.stackable && held.some((h) => h.product_id === productId)) {
    throw new KnownErrors.ProductAlreadyGranted(productId, customer.id);
  }
  return held;
}

/** The grant itself, for API grants, test-mode purchases and completed checkouts; the caller holds the customer's lock. */
export async function grantLocked(
  trx: Executor,
  customer: q.CustomerKey,
  productId: string | null,
  product: Product,
  quantity: number,
  source: 'api_grant' | 'test_mode' | 'purchase',
  now: Date,
): Promise<q.CustomerProductRow> {
  const held = await assertNotHeld(trx, customer, productId, product);
  if (product.productLineId !== undefined && !product.isAddOnTo) {
    const sameLine = held.filter((h) => {
      const p = h.product_snapshot as Product;
      return p.productLineId === product.productLineId && !p.isAddOnTo && h.product_id !== productId;
    });
    if (sameLine.length > 0)
      await q.endCustomerProducts(
        trx,
        customer,
        sameLine.map((h) => h.id),
        now,
      );
  }
  const row: q.CustomerProductRow = {
    id: randomUUID(),
    product_id: productId,
    product_snapshot: product,
    quantity,
    source,
    started_at: now,
    ended_at: null,
    created_at: now,
  };
  await q.insertCustomerProduct(trx, customer, row);
  if (source === 'api_grant') {
    await recordGrantOrChange(trx, customer, {
      sourceKey: `grant:${row.id}`,
      type: 'grant',
      productId,
      product,
      quantity,
      items: itemsOf(product, quantity),
      description: null,
      at: now,
    });
  }
  return row;
}
