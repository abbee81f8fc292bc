import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CURRENCY_CODES,
  INTERVAL_UNITS,
  formatMinorUnits,
  inlineProductSchema,
  intervalOrNeverSchema,
  intervalSchema,
  parseMoneyAmount,
  paymentsConfigSchema,
  priceSchema,
} from './payments.js';

function messages(result: { success: boolean; error?: { issues: { message: string }[] } }): string[] {
  return result.success ? [] : (result.error?.issues.map((i) => i.message) ?? []);
}

describe('money amounts (spec section 5)', () => {
  it('gives each rule its exact message', () => {
    expect(messages(priceSchema.safeParse({ USD: '9.9.9' }))).toEqual(['Money amount must be in the format of <number> or <number>.<number>']);
    expect(messages(priceSchema.safeParse({ USD: '-1' }))).toEqual(['Money amount must be in the format of <number> or <number>.<number>']);
    expect(messages(priceSchema.safeParse({ USD: '.5' }))).toEqual(['Money amount must be in the format of <number> or <number>.<number>']);
    expect(messages(priceSchema.safeParse({ USD: '9.999' }))).toEqual(['Too many decimals; USD only has 2 decimals']);
    expect(messages(priceSchema.safeParse({ JPY: '100.5' }))).toEqual(['Too many decimals; JPY only has 0 decimals']);
    expect(messages(priceSchema.safeParse({ EUR: '09.99' }))).toEqual(['Money amount must not have leading zeros']);
    expect(messages(priceSchema.safeParse({ interval: [1, 'month'] }))).toEqual(['At least one currency is required']);
    expect(priceSchema.safeParse({ USD: '0.99', JPY: '100', interval: [1, 'month'] }).success).toBe(true);
    expect(priceSchema.safeParse({ USD: '0' }).success).toBe(true);
    expect(priceSchema.safeParse({ XYZ: '1' }).success).toBe(false);
  });

  it('parses to integer minor units without floating point, JPY with 0 decimals', () => {
    expect(parseMoneyAmount('9.99', 'USD')).toBe(999);
    expect(parseMoneyAmount('0.29', 'USD')).toBe(29);
    expect(parseMoneyAmount('1.1', 'GBP')).toBe(110);
    expect(parseMoneyAmount('1200', 'JPY')).toBe(1200);
    expect(() => parseMoneyAmount('1.5', 'JPY')).toThrow('Too many decimals; JPY only has 0 decimals');
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCY_CODES), fc.integer({ min: 0, max: 1e12 }), (code, minor) => {
        const written = formatMinorUnits(minor, code);
        expect(parseMoneyAmount(written, code)).toBe(minor);
      }),
    );
  });
});

describe('products', () => {
  it('applies the snake-case defaults (server_only true, stackable false)', () => {
    const p = inlineProductSchema.parse({ customer_type: 'user', prices: { p: { USD: '5' } } });
    expect(p).toMatchObject({ serverOnly: true, stackable: false, customerType: 'user', includedItems: {} });
  });

  it('requires isAddOnTo values to be true and checks references', () => {
    const base = { items: { credits: { customerType: 'user' } }, products: { pro: { customerType: 'user', prices: 'include-by-default' } } };
    expect(
      messages(paymentsConfigSchema.safeParse({ ...base, products: { ...base.products, x: { customerType: 'user', prices: {}, isAddOnTo: { pro: false } } } })),
    ).toContain('isAddOnTo values must be true');
    expect(
      paymentsConfigSchema.safeParse({ ...base, products: { ...base.products, x: { customerType: 'user', prices: {}, isAddOnTo: { pro: true } } } }).success,
    ).toBe(true);
    expect(
      messages(paymentsConfigSchema.safeParse({ ...base, products: { x: { customerType: 'team', prices: {}, includedItems: { credits: { quantity: 1 } } } } })),
    ).toEqual(['Item credits is for user customers']);
    const parsed = paymentsConfigSchema.parse({
      ...base,
      productLines: { plans: {} },
      products: { x: { customerType: 'user', catalogId: 'plans', prices: {} } },
    });
    expect(parsed.products.x?.productLineId).toBe('plans');
    expect(parsed.products.x?.includedItems).toEqual({});
  });
});

describe('intervals (spec section 5)', () => {
  it('takes a non-negative integer of each of the eight units, and never only where repeats may be never', () => {
    expect([...INTERVAL_UNITS]).toEqual(['millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'year']);
    for (const unit of INTERVAL_UNITS) {
      expect(intervalSchema.parse([0, unit])).toEqual([0, unit]);
      expect(intervalSchema.parse([3, unit])).toEqual([3, unit]);
      expect(intervalOrNeverSchema.parse([1, unit])).toEqual([1, unit]);
      expect(intervalSchema.safeParse([-1, unit]).success).toBe(false);
      expect(intervalSchema.safeParse([1.5, unit]).success).toBe(false);
    }
    for (const bad of [[1, 'fortnight'], [1, 'months'], [1, 'Month'], [1], 'monthly', 'never']) expect(intervalSchema.safeParse(bad).success).toBe(false);
    expect(intervalOrNeverSchema.parse('never')).toBe('never');
    expect(intervalOrNeverSchema.safeParse('always').success).toBe(false);
  });
});
