import { randomBytes } from 'node:crypto';
import { decrypt, deriveKey, encrypt } from '../../crypto/encryption.js';

/**
 * The server's envelope around a data vault value (issue 19 item 1). What the SDK sends is already
 * ciphertext; this layer protects a database dump without the deployment's secret:
 *
 * - a fresh random 256-bit data key per write seals the value (AES-256-GCM);
 * - the data key is wrapped (AES-256-GCM) by the key-encryption key (KEK), `deriveKey(LATCH_SECRET,
 *   'vault')`, version 1;
 * - both carry the slot, `[tenancy_id, store_id, hashed_key]`, as associated data, so a row copied
 *   to another key, store or project fails authentication instead of answering there.
 *
 * Rotation (rewrapDataKeys in service.ts) unwraps each data key with the old KEK and wraps it with
 * the new one; the sealed values are not touched.
 */

export interface VaultKek {
  version: number;
  key: Buffer;
}

export interface VaultSlot {
  tenancyId: string;
  storeId: string;
  hashedKey: string;
}

export interface SealedEntry {
  key_version: number;
  wrapped_data_key: string;
  value_sealed: string;
}

/** The deployment's current KEK. */
export function currentKek(rootSecret: string): VaultKek {
  return { version: 1, key: deriveKey(rootSecret, 'vault') };
}

// JSON keeps the three parts apart whatever characters they hold.
function slotAad(slot: VaultSlot): string {
  return JSON.stringify([slot.tenancyId, slot.storeId, slot.hashedKey]);
}

function wrapAad(slot: VaultSlot, version: number): string {
  return `${slotAad(slot)}:kek-v${version}`;
}

export function sealEntry(kek: VaultKek, slot: VaultSlot, value: string): SealedEntry {
  const dataKey = randomBytes(32);
  try {
    return {
      key_version: kek.version,
      wrapped_data_key: encrypt(kek.key, dataKey.toString('base64url'), wrapAad(slot, kek.version)),
      value_sealed: encrypt(dataKey, value, slotAad(slot)),
    };
  } finally {
    dataKey.fill(0);
  }
}

function unwrap(kek: VaultKek, slot: VaultSlot, entry: Pick<SealedEntry, 'key_version' | 'wrapped_data_key'>): Buffer {
  if (entry.key_version !== kek.version) throw new Error(`vault entry is wrapped by KEK version ${entry.key_version}, not ${kek.version}`);
  return Buffer.from(decrypt(kek.key, entry.wrapped_data_key, wrapAad(slot, kek.version)), 'base64url');
}

/** Opens an entry; throws when the KEK is not the one that wrapped it or the row is not in its own slot. */
export function openEntry(kek: VaultKek, slot: VaultSlot, entry: SealedEntry): string {
  const dataKey = unwrap(kek, slot, entry);
  try {
    return decrypt(dataKey, entry.value_sealed, slotAad(slot));
  } finally {
    dataKey.fill(0);
  }
}

/** The same entry with its data key wrapped by `to` instead of `from`; the value stays as it is. */
export function rewrapEntry(from: VaultKek, to: VaultKek, slot: VaultSlot, entry: SealedEntry): SealedEntry {
  const dataKey = unwrap(from, slot, entry);
  try {
    return {
      key_version: to.version,
      wrapped_data_key: encrypt(to.key, dataKey.toString('base64url'), wrapAad(slot, to.version)),
      value_sealed: entry.value_sealed,
    };
  } finally {
    dataKey.fill(0);
  }
}
