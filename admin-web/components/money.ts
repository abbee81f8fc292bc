import { CURRENCY_CODES, type CurrencyCode, formatMinorUnits } from '../../contract/config/payments.js';

/** Whether a wire currency is one the contract knows (and so has a number of decimals). */
export const isCurrencyCode = (currency: string): currency is CurrencyCode => CURRENCY_CODES.includes(currency as CurrencyCode);

/**
 * Integer minor units → "9.99 USD", "1200 JPY", "-2.00 USD", by the currency's decimals
 * (contract/config/payments.ts: string arithmetic, never a float). An unknown currency shows its
 * minor units as they are.
 */
export function formatMoney(minor: number | null, currency: string | null): string {
  if (minor === null || currency === null) return '—';
  return isCurrencyCode(currency) ? `${formatMinorUnits(minor, currency)} ${currency}` : `${minor} ${currency}`;
}
