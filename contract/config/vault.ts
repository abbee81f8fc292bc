/**
 * Project config, data vault section: the stores a project declared (issue 19 item 1). A store
 * must be declared before the server accepts values in it (DATA_VAULT_STORE_DOES_NOT_EXIST).
 */
import { z } from 'zod';

export interface DataVaultStoreConfig {
  id: string;
  display_name: string;
}

export interface DataVaultConfig {
  data_vault_stores: DataVaultStoreConfig[];
}

export const DEFAULT_DATA_VAULT_CONFIG: DataVaultConfig = {
  data_vault_stores: [],
};

/** A store id appears in URLs (/data-vault/stores/{store}/…): a short slug. */
export const dataVaultStoreIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-zA-Z0-9_-]+$/, 'Store id must contain only letters, digits, dashes and underscores');

export const dataVaultStoreSchema = z.strictObject({
  id: dataVaultStoreIdSchema,
  display_name: z.string().min(1).max(256),
});

export const dataVaultStoresSchema = z
  .array(dataVaultStoreSchema)
  .max(100)
  .refine((stores) => new Set(stores.map((s) => s.id)).size === stores.length, 'Store ids must be unique');
