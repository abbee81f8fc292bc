/** Data vault stores (spec section 8, "Data vault"). */
import { defineKnownError } from './known-error.js';

export const dataVaultErrors = {
  DataVaultStoreDoesNotExist: defineKnownError('DATA_VAULT_STORE_DOES_NOT_EXIST', 400, (storeId: string) => ({
    message: `The data vault store with the ID ${JSON.stringify(storeId)} does not exist. Create it in the project configuration first.`,
    details: { store_id: storeId },
  })),

  DataVaultStoreHashedKeyDoesNotExist: defineKnownError('DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST', 400, (storeId: string, hashedKey: string) => ({
    message: `The data vault store ${JSON.stringify(storeId)} does not contain a key with the hash ${JSON.stringify(hashedKey)}.`,
    details: { store_id: storeId, hashed_key: hashedKey },
  })),
} as const;
