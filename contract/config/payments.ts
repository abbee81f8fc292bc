/**
 * Project config, payments section (spec sections 3 "Item", "Product", 5 "Money amounts" /
 * "Intervals", 9 defaults): items, product lines and products, kept in Stack Auth's vocabulary so a
 * Stack config ports over. Money is written as a decimal string ("9.99") and handled as integer
 * minor units (999) everywhere past parsing: `parseMoneyAmount` never goes through a float.
 */
import { z } from 'zod';

/** Currency code → decimals (spec section 9). */
export const CURRENCY_DECIMALS = { USD: 2, EUR: 2, GBP: 2, JPY: 0, INR: 2, AUD: 2, CAD: 2 } as const;
export type CurrencyCode = keyof typeof CURRENCY_DECIMALS;
export const CURRENCY_CODES = Object.keys(CURRENCY_DECIMALS) as CurrencyCode[];

export const INTERVAL_UNITS = ['millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];
/** A non-negative integer count of a unit, e.g. [1, 'month']. */
export type Interval = [number, IntervalUnit];

export const CUSTOMER_TYPES = ['user', 'team', 'custom'] as const;
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

// The exact messages of spec section 5.
export const MONEY_FORMAT_MESSAGE = 'Money amount must be in the format of <number> or <number>.<number>';
export const moneyDecimalsMessage = (code: CurrencyCode): string => `Too many decimals; ${code} only has ${CURRENCY_DECIMALS[code]} decimals`;
export const MONEY_LEADING_ZEROS_MESSAGE = 'Money amount must not have leading zeros';
export const AT_LEAST_ONE_CURRENCY_MESSAGE = 'At least one currency is required';
export const ADD_ON_VALUE_MESSAGE = 'isAddOnTo values must be true';

/** The first problem with a money amount for a currency, or null when it is valid. */
export function moneyAmountProblem(amount: string, code: CurrencyCode): string | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) return MONEY_FORMAT_MESSAGE;
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > CURRENCY_DECIMALS[code]) return moneyDecimalsMessage(code);
  if (whole.length > 1 && whole.startsWith('0')) return MONEY_LEADING_ZEROS_MESSAGE;
  return null;
}

/**
 * A valid money amount in integer minor units: "9.99" USD → 999, "1200" JPY → 1200. String
 * arithmetic only, so "0.29" is 29 and not 28.999…; throws on an invalid amount (validate first).
 */
export function parseMoneyAmount(amount: string, code: CurrencyCode): number {
  const problem = moneyAmountProblem(amount, code);
  if (problem) throw new Error(problem);
  const [whole = '0', fraction = ''] = amount.split('.');
  const digits = whole + fraction.padEnd(CURRENCY_DECIMALS[code], '0');
  const minor = Number(digits);
  if (!Number.isSafeInteger(minor)) throw new Error('Money amount is too large');
  return minor;
}

/** Integer minor units back to the written form: 999 USD → "9.99", 1200 JPY → "1200". */
export function formatMinorUnits(minor: number, code: CurrencyCode): string {
  const decimals = CURRENCY_DECIMALS[code];
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  return decimals === 0 ? sign + digits : `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

export const intervalSchema = z.tuple([z.number().int().min(0), z.enum(INTERVAL_UNITS)]);
export const intervalOrNeverSchema = z.union([z.literal('never'), intervalSchema]);

const configIdSchema = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-zA-Z0-9_][a-zA-Z0-9_-]*$/, 'Only letters, digits, underscores and hyphens, not starting with a hyphen');
const customerTypeSchema = z.enum(CUSTOMER_TYPES);
const displayName = z.string().max(256);

/**
 * A price: amounts per currency (strings, validated per currency) plus interval, serverOnly and
 * freeTrial. Unknown keys are refused so a misspelt currency is not silently dropped.
 */
export const priceSchema = z
  .strictObject({
    ...(Object.fromEntries(CURRENCY_CODES.map((code) => [code, z.string().max(32).optional()])) as Record<CurrencyCode, z.ZodOptional<z.ZodString>>),
    interval: intervalSchema.optional(),
    serverOnly: z.boolean().optional(),
    freeTrial: intervalSchema.optional(),
  })
  .superRefine((price, ctx) => {
    let currencies = 0;
    for (const code of CURRENCY_CODES) {
      const amount = price[code];
      if (amount === undefined) continue;
      currencies++;
      const problem = moneyAmountProblem(amount, code);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [code] });
    }
    if (currencies === 0) ctx.addIssue({ code: 'custom', message: AT_LEAST_ONE_CURRENCY_MESSAGE });
  });
export type Price = z.infer<typeof priceSchema>;

export const includedItemSchema = z.strictObject({
  quantity: z.number().int().min(0).max(1_000_000_000),
  repeat: intervalOrNeverSchema.default('never'),
  expires: z.enum(['never', 'when-purchase-expires', 'when-repeated']).default('never'),
});
export type IncludedItem = z.infer<typeof includedItemSchema>;

const pricesSchema = z.union([z.literal('include-by-default'), z.record(configIdSchema, priceSchema)]);
const addOnSchema = z.union([
  z.literal(false),
  z.record(
    configIdSchema,
    z.unknown().refine((value) => value === true, ADD_ON_VALUE_MESSAGE),
  ),
]);

/** A product in the camel-case form (the project config's). `catalogId` is the older name of productLineId. */
export const productSchema = z
  .strictObject({
    displayName: displayName.optional(),
    productLineId: configIdSchema.optional(),
    catalogId: configIdSchema.optional(),
    isAddOnTo: addOnSchema.default(false),
    customerType: customerTypeSchema,
    freeTrial: intervalSchema.optional(),
    serverOnly: z.boolean().default(false),
    stackable: z.boolean().default(false),
    prices: pricesSchema,
    includedItems: z.record(configIdSchema, includedItemSchema).default({}),
  })
  .transform(({ catalogId, productLineId, ...product }) => ({ ...product, productLineId: productLineId ?? catalogId }));
export type Product = z.output<typeof productSchema>;

/**
 * A product in the snake-case form (inline products on server calls). Spec section 9: server_only
 * defaults to true and stackable to false.
 */
export const inlineProductSchema = z
  .strictObject({
    display_name: displayName.optional(),
    customer_type: customerTypeSchema,
    free_trial: intervalSchema.optional(),
    server_only: z.boolean().default(true),
    stackable: z.boolean().default(false),
    prices: pricesSchema,
    included_items: z.record(configIdSchema, includedItemSchema).default({}),
  })
  .transform((p): Product => ({
    displayName: p.display_name,
    productLineId: undefined,
    isAddOnTo: false,
    customerType: p.customer_type,
    freeTrial: p.free_trial,
    serverOnly: p.server_only,
    stackable: p.stackable,
    prices: p.prices,
    includedItems: p.included_items,
  }));

export const itemConfigSchema = z.strictObject({ displayName: displayName.optional(), customerType: customerTypeSchema });
export const productLineConfigSchema = z.strictObject({ displayName: displayName.optional(), customerType: customerTypeSchema.optional() });

/**
 * The payments section as written. Cross-references (an included item that exists, an add-on's
 * base product, a product line's customer type) are checked here too, so a config that saves is one
 * the purchase paths can trust.
 */
export const paymentsConfigSchema = z
  .strictObject({
    test_mode: z.boolean().default(false),
    items: z.record(configIdSchema, itemConfigSchema).default({}),
    productLines: z.record(configIdSchema, productLineConfigSchema).default({}),
    products: z.record(configIdSchema, productSchema).default({}),
  })
  .superRefine((config, ctx) => {
    for (const [productId, product] of Object.entries(config.products)) {
      for (const itemId of Object.keys(product.includedItems)) {
        const item = config.items[itemId];
        if (!item) ctx.addIssue({ code: 'custom', message: `Item ${itemId} does not exist`, path: ['products', productId, 'includedItems', itemId] });
        else if (item.customerType !== product.customerType) {
          ctx.addIssue({
            code: 'custom',
            message: `Item ${itemId} is for ${item.customerType} customers`,
            path: ['products', productId, 'includedItems', itemId],
          });
        }
      }
      if (product.productLineId !== undefined) {
        const line = config.productLines[product.productLineId];
        if (!line)
          ctx.addIssue({ code: 'custom', message: `Product line ${product.productLineId} does not exist`, path: ['products', productId, 'productLineId'] });
        else if (line.customerType && line.customerType !== product.customerType) {
          ctx.addIssue({
            code: 'custom',
            message: `Product line ${product.productLineId} is for ${line.customerType} customers`,
            path: ['products', productId, 'productLineId'],
          });
        }
      }
      if (product.isAddOnTo) {
        for (const baseId of Object.keys(product.isAddOnTo)) {
          if (!config.products[baseId] || baseId === productId) {
            ctx.addIssue({ code: 'custom', message: `Base product ${baseId} does not exist`, path: ['products', productId, 'isAddOnTo', baseId] });
          }
        }
      }
    }
  });
export type PaymentsSettings = z.output<typeof paymentsConfigSchema>;

export interface PaymentsConfig {
  payments: PaymentsSettings;
}

export const DEFAULT_PAYMENTS_CONFIG: PaymentsConfig = {
  payments: { test_mode: false, items: {}, productLines: {}, products: {} },
};

/** Adds an interval to an instant; months and years are calendar steps in UTC (Jan 31 + 1 month → Mar 3, like Date). */
export function addInterval(from: Date, [count, unit]: Interval, times = 1): Date {
  const n = count * times;
  const d = new Date(from.getTime());
  switch (unit) {
    case 'millisecond':
      return new Date(d.getTime() + n);
    case 'second':
      return new Date(d.getTime() + n * 1000);
    case 'minute':
      return new Date(d.getTime() + n * 60_000);
    case 'hour':
      return new Date(d.getTime() + n * 3_600_000);
    case 'day':
      return new Date(d.getTime() + n * 86_400_000);
    case 'week':
      return new Date(d.getTime() + n * 7 * 86_400_000);
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + n);
      return d;
    case 'year':
      d.setUTCFullYear(d.getUTCFullYear() + n);
      return d;
  }
}

/** The payments section as read (admin view): as written, after defaults. */
export const paymentsConfigOutputSchema = z.object({
  test_mode: z.boolean(),
  items: z.record(z.string(), z.object({ displayName: z.string().optional(), customerType: customerTypeSchema })),
  productLines: z.record(z.string(), z.object({ displayName: z.string().optional(), customerType: customerTypeSchema.optional() })),
  products: z.record(z.string(), z.record(z.string(), z.unknown())),
});
