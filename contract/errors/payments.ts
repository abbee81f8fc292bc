/** Payments: items, products, customers, the card-payment provider (spec section 8, "Payments"). */
import { defineFixedError, defineKnownError } from './known-error.js';

/** Who can own items and products in payments. */
export type CustomerType = 'user' | 'team' | 'custom';

export const paymentErrors = {
  ItemNotFound: defineKnownError('ITEM_NOT_FOUND', 404, (itemId: string) => ({
    message: `Item with the ID ${JSON.stringify(itemId)} not found. Check the project's payments configuration.`,
    details: { item_id: itemId },
  })),

  ItemCustomerTypeDoesNotMatch: defineKnownError(
    'ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH',
    400,
    (itemId: string, customerId: string, itemCustomerType: CustomerType | undefined, actualCustomerType: CustomerType) => ({
      message:
        `The ${actualCustomerType} ${JSON.stringify(customerId)} is not a valid customer for the item ${JSON.stringify(itemId)}. ` +
        (itemCustomerType
          ? `The item is only available to ${itemCustomerType} customers.`
          : 'The item has no customer type; set one in the payments configuration.'),
      details: {
        item_id: itemId,
        customer_id: customerId,
        item_customer_type: itemCustomerType ?? null,
        actual_customer_type: actualCustomerType,
      },
    }),
  ),

  CustomerDoesNotExist: defineKnownError('CUSTOMER_DOES_NOT_EXIST', 400, (customerId: string) => ({
    message: `Customer with the ID ${JSON.stringify(customerId)} does not exist.`,
    details: { customer_id: customerId },
  })),

  ProductDoesNotExist: defineKnownError('PRODUCT_DOES_NOT_EXIST', 400, (productId: string, context: 'server_only' | 'item_exists' | null = null) => ({
    message:
      `Product with the ID ${JSON.stringify(productId)} ` +
      (context === 'server_only'
        ? 'is marked server-only and cannot be used from a client; call this from your server with the secret server key.'
        : context === 'item_exists'
          ? 'does not exist, but an item with this ID does: did you mean the item?'
          : 'does not exist.'),
    details: { product_id: productId, context },
  })),

  ProductCustomerTypeDoesNotMatch: defineKnownError(
    'PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH',
    400,
    (productId: string | undefined, customerId: string, productCustomerType: CustomerType | undefined, actualCustomerType: CustomerType) => ({
      message:
        `The ${actualCustomerType} ${JSON.stringify(customerId)} is not a valid customer for ` +
        (productId ? `the product ${JSON.stringify(productId)}. ` : 'the inline product. ') +
        (productCustomerType
          ? `The product is only available to ${productCustomerType} customers.`
          : 'The product has no customer type; set one in the payments configuration.'),
      details: {
        product_id: productId ?? null,
        customer_id: customerId,
        product_customer_type: productCustomerType ?? null,
        actual_customer_type: actualCustomerType,
      },
    }),
  ),

  ProductAlreadyGranted: defineKnownError('PRODUCT_ALREADY_GRANTED', 400, (productId: string, customerId: string) => ({
    message: `Customer ${JSON.stringify(customerId)} already owns the product ${JSON.stringify(productId)}.`,
    details: { product_id: productId, customer_id: customerId },
  })),

  ItemQuantityInsufficientAmount: defineKnownError('ITEM_QUANTITY_INSUFFICIENT_AMOUNT', 400, (itemId: string, customerId: string, quantity: number) => ({
    message:
      `The item ${JSON.stringify(itemId)} has an insufficient quantity for the customer ${JSON.stringify(customerId)}: ` +
      `an attempt was made to change it by ${quantity}.`,
    details: { item_id: itemId, customer_id: customerId, quantity },
  })),

  /** Stripe could not be reached or refused the project's keys (Latch's own; the spec has no code for it). */
  PaymentProviderRequestFailed: defineFixedError(
    'PAYMENT_PROVIDER_REQUEST_FAILED',
    502,
    "The payment provider could not be reached or refused the request. Check the project's Stripe keys and try again.",
  ),

  /** The card-payment provider's "account information not found"; the code carries its name. */
  StripeAccountInfoNotFound: defineFixedError(
    'STRIPE_ACCOUNT_INFO_NOT_FOUND',
    404,
    'Stripe account information not found. Complete Stripe onboarding for this project first.',
  ),
} as const;
