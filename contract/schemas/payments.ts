import { z } from 'zod';
import { CUSTOMER_TYPES } from '../config/payments.js';
import { millisSchema, paginatedList } from '../validation/schemas.js';

/** Wire schemas of /payments/* (spec section 7, "Payments"). */

const customerParams = {
  customer_type: z.enum(CUSTOMER_TYPES),
  customer_id: z.string().min(1).max(256),
};

export const itemParamsSchema = z.strictObject({ ...customerParams, item_id: z.string().min(1).max(63) });

export const itemSchema = z.object({
  id: z.string(),
  display_name: z.string(),
  quantity: z.number().int(),
  /** The quantity floored at 0 (spec section 3, "Item"). */
  non_negative_quantity: z.number().int(),
});

export const updateItemQuantitySchema = z.strictObject({
  ...customerParams,
  item_id: z.string().min(1).max(63),
  delta: z.number().int().min(-1_000_000_000).max(1_000_000_000),
  /** When this change stops counting (an expiring grant); millis since epoch or an ISO date. */
  expires_at: z.union([millisSchema, z.iso.datetime()]).nullish(),
  description: z.string().max(1000).nullish(),
  /** Lets a decrease take the balance below zero. */
  allow_negative: z.boolean().optional(),
});

export const customerParamsSchema = z.strictObject(customerParams);

export const listProductsQuerySchema = z.strictObject({
  ...customerParams,
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const customerProductSchema = z.object({
  id: z.string().nullable(),
  quantity: z.number().int(),
  product: z.object({
    display_name: z.string(),
    customer_type: z.enum(CUSTOMER_TYPES),
    server_only: z.boolean(),
    stackable: z.boolean(),
  }),
});

export const customerProductListSchema = paginatedList(customerProductSchema);

export const grantProductSchema = z.strictObject({
  ...customerParams,
  product_id: z.string().min(1).max(63).optional(),
  /** A product in the snake-case form (validated by the service: inlineProductSchema). */
  product_inline: z.record(z.string(), z.unknown()).optional(),
  quantity: z.number().int().min(1).max(1_000_000).optional(),
});
