/** The data vault (server): values encrypted by this SDK before they reach Latch (sdk/vault-crypto.ts). */
import { AppCore } from '../core.js';
import { KnownErrors, orNull } from '../errors.js';
import { decryptVaultValue, deriveVaultKey, encryptVaultValue } from '../vault-crypto.js';

/** Options of a vault read or write: the secret only your servers hold (Latch never sees it). */
export interface DataVaultSecretOptions {
  secret: string;
}

/** One declared store of the project's data vault (`config.data_vault_stores`). */
export interface DataVaultStore {
  readonly id: string;
  /** The value stored under `key`, or null when there is none. Throws when the secret is wrong. */
  getValue(key: string, options: DataVaultSecretOptions): Promise<string | null>;
  /** Stores `value` under `key`, encrypted with a key derived from the secret and the key. */
  setValue(key: string, value: string, options: DataVaultSecretOptions): Promise<void>;
}

export abstract class ServerDataVaultFeature extends AppCore {
  /**
   * A data vault store. The key is hashed (PBKDF2-SHA256, 100,000 iterations, ~26 ms, cached per
   * process) and the value encrypted (AES-256-GCM) here, so the server stores neither in clear.
   *
   * @example
   * const store = server.getDataVaultStore('tax-ids');
   * await store.setValue(user.id, '123-45-6789', { secret: process.env.VAULT_SECRET! });
   * const taxId = await store.getValue(user.id, { secret: process.env.VAULT_SECRET! });
   */
  getDataVaultStore(id: string): DataVaultStore {
    return {
      id,
      getValue: async (key, { secret }) => {
        const { hashedKey, material } = await deriveVaultKey(secret, key);
        // "DataVaultStoreHashedKeyDoesNotExist: returns null" (spec section 8).
        const stored = await orNull(
          this.call((context) => this.trpc.dataVault.get.mutate({ store: id, hashed_key: hashedKey }, { context })),
          [KnownErrors.DataVaultStoreHashedKeyDoesNotExist],
        );
        if (!stored) return null;
        return decryptVaultValue(material, stored.encrypted_value);
      },
      setValue: async (key, value, { secret }) => {
        if (typeof value !== 'string') throw new TypeError('Data vault value must be a string');
        const { hashedKey, material } = await deriveVaultKey(secret, key);
        const encrypted = await encryptVaultValue(material, value);
        await this.call((context) => this.trpc.dataVault.set.mutate({ store: id, hashed_key: hashedKey, encrypted_value: encrypted }, { context }));
      },
    };
  }
}
