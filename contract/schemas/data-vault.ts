import { z } from 'zod';
import { dataVaultStoreIdSchema } from '../config/vault.js';

/**
 * Data vault wire (spec section 7, "Data vault"). The key arrives hashed and the value encrypted by
 * the SDK (sdk/features/data-vault.ts): the server stores opaque strings.
 */
export const DATA_VAULT_MAX_VALUE_LENGTH = 1_000_000;

const hashedKeySchema = z.string().min(1).max(1024);

export const dataVaultSetSchema = z.strictObject({
  store: dataVaultStoreIdSchema,
  hashed_key: hashedKeySchema,
  encrypted_value: z.string().max(DATA_VAULT_MAX_VALUE_LENGTH),
});

export const dataVaultGetSchema = z.strictObject({
  store: dataVaultStoreIdSchema,
  hashed_key: hashedKeySchema,
});

export const dataVaultValueSchema = z.object({ encrypted_value: z.string() });
