import { createCipheriv, createHmac, hkdfSync, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ServerApp } from '../../../sdk/server-app.js';
import { KnownErrors } from '../../../sdk/errors.js';
import { decryptVaultValue, deriveVaultKey, encryptVaultValue } from '../../../sdk/vault-crypto.js';
import { type ProjectFixture, useHarness } from '../../test/harness.js';
import { currentKek, openEntry, sealEntry } from './envelope.js';
import { rewrapDataKeys } from './service.js';
import { deriveKey } from '../../crypto/encryption.js';

const h = useHarness();

async function vaultProject(stores: string[] = ['tax-ids']): Promise<{ project: ProjectFixture; server: ServerApp; tenancyId: string }> {
  const project = await h.createProject({ config: { data_vault_stores: stores.map((id) => ({ id, display_name: `Store ${id}` })) } });
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: h.url });
  const tenancy = await h.latch.deps.db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).executeTakeFirstOrThrow();
  return { project, server, tenancyId: tenancy.id };
}

async function rowsOf(tenancyId: string) {
  return h.latch.deps.db
    .selectFrom('data_vault_entries')
    .select(['store_id', 'hashed_key', 'key_version', 'wrapped_data_key', 'value_sealed'])
    .where('tenancy_id', '=', tenancyId)
    .execute();
}

describe('data vault: SDK round trips', () => {
  it('stores and reads values, overwrites, and returns null for a key never set', async () => {
    const { server } = await vaultProject();
    const store = server.getDataVaultStore('tax-ids');
    await store.setValue('user-1', 'first value ✓', { secret: 'vault-secret' });
    expect(await store.getValue('user-1', { secret: 'vault-secret' })).toBe('first value ✓');
    await store.setValue('user-1', 'second', { secret: 'vault-secret' });
    expect(await store.getValue('user-1', { secret: 'vault-secret' })).toBe('second');
    expect(await store.getValue('user-2', { secret: 'vault-secret' })).toBeNull();
  });

  it('a wrong key finds nothing; a wrong secret finds nothing (the hashed key depends on both)', async () => {
    const { server } = await vaultProject();
    const store = server.getDataVaultStore('tax-ids');
    await store.setValue('user-1', 'value', { secret: 'right' });
    expect(await store.getValue('user-2', { secret: 'right' })).toBeNull();
    expect(await store.getValue('user-1', { secret: 'wrong' })).toBeNull();
  });

  it('the table never holds the key, the value or the secret in clear', async () => {
    const { server, tenancyId } = await vaultProject();
    await server.getDataVaultStore('tax-ids').setValue('alice@example.com', 'SSN 123-45-6789', { secret: 'the-secret' });
    const rows = await rowsOf(tenancyId);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows);
    for (const clear of ['alice@example.com', '123-45-6789', 'the-secret', btoa('SSN 123-45-6789')]) expect(dump).not.toContain(clear);
    // What the SDK sent (the client ciphertext) is not stored as-is either: the envelope wraps it.
    const { material, hashedKey } = await deriveVaultKey('the-secret', 'alice@example.com');
    expect(rows[0]!.hashed_key).toBe(hashedKey);
    const clientCiphertext = openEntry(currentKek(h.latch.deps.env.secret), { tenancyId, storeId: 'tax-ids', hashedKey }, rows[0]!);
    expect(dump).not.toContain(clientCiphertext);
    expect(await decryptVaultValue(material, clientCiphertext)).toBe('SSN 123-45-6789');
  });
});

describe('data vault: routes and errors', () => {
  it('an undeclared store is DATA_VAULT_STORE_DOES_NOT_EXIST; a missing key is DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST', async () => {
    const { project, server } = await vaultProject();
    const missingStore = await h.post('/data-vault/stores/nope/get', { hashed_key: 'abc' }, project.server());
    expect([missingStore.status, missingStore.body.code]).toEqual([400, 'DATA_VAULT_STORE_DOES_NOT_EXIST']);
    await expect(server.getDataVaultStore('nope').getValue('k', { secret: 's' })).rejects.toBeInstanceOf(KnownErrors.DataVaultStoreDoesNotExist);
    const missingKey = await h.post('/data-vault/stores/tax-ids/get', { hashed_key: 'abc' }, project.server());
    expect([missingKey.status, missingKey.body.code]).toEqual([400, 'DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST']);
  });

  it('needs server access: a client key is refused', async () => {
    const { project } = await vaultProject();
    const res = await h.post('/data-vault/stores/tax-ids/set', { hashed_key: 'abc', encrypted_value: 'x' }, project.client());
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(
      await rowsOf((await h.latch.deps.db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).executeTakeFirstOrThrow()).id),
    ).toEqual([]);
  });

  it('a tampered stored value fails to decrypt in the SDK instead of returning garbage', async () => {
    const { project, server } = await vaultProject();
    const { hashedKey, material } = await deriveVaultKey('s', 'k');
    const good = await encryptVaultValue(material, 'hello');
    const bytes = Uint8Array.from(atob(good), (c) => c.charCodeAt(0));
    bytes[bytes.length - 1]! ^= 1;
    const tampered = btoa(String.fromCharCode(...bytes));
    const set = await h.post('/data-vault/stores/tax-ids/set', { hashed_key: hashedKey, encrypted_value: tampered }, project.server());
    expect(set.status).toBe(200);
    await expect(server.getDataVaultStore('tax-ids').getValue('k', { secret: 's' })).rejects.toThrow(/could not be decrypted/);
  });

  it('a row moved to another store or another project does not open', async () => {
    const a = await vaultProject(['one', 'two']);
    const b = await vaultProject(['one']);
    await a.server.getDataVaultStore('one').setValue('k', 'secret value', { secret: 's' });
    const [row] = await rowsOf(a.tenancyId);
    const db = h.latch.deps.db;
    await db
      .insertInto('data_vault_entries')
      .values({ ...row!, tenancy_id: a.tenancyId, store_id: 'two' })
      .execute();
    await db
      .insertInto('data_vault_entries')
      .values({ ...row!, tenancy_id: b.tenancyId, store_id: 'one' })
      .execute();
    expect(await a.server.getDataVaultStore('one').getValue('k', { secret: 's' })).toBe('secret value');
    await expect(a.server.getDataVaultStore('two').getValue('k', { secret: 's' })).rejects.toThrow();
    await expect(b.server.getDataVaultStore('one').getValue('k', { secret: 's' })).rejects.toThrow();
  });
});

describe('data vault: server envelope and rotation', () => {
  it('rotation re-wraps the data keys only: values stay byte-identical and open under the new KEK only', async () => {
    const { server, tenancyId } = await vaultProject();
    const store = server.getDataVaultStore('tax-ids');
    for (const key of ['a', 'b', 'c']) await store.setValue(key, `value ${key}`, { secret: 's' });
    const before = await rowsOf(tenancyId);
    const from = currentKek(h.latch.deps.env.secret);
    const to = { version: 2, key: deriveKey('a-new-root-secret-for-the-vault', 'vault') };
    // Other tests' rows are on version 1 too; count only ours.
    // Pages of 2 cross our three rows; rows another test copied to foreign slots do not open and are skipped.
    const result = await rewrapDataKeys(h.latch.deps.db, from, to, 2);
    expect(result.rewrapped).toBeGreaterThanOrEqual(3);
    const after = await rowsOf(tenancyId);
    for (const row of after) {
      const old = before.find((b) => b.hashed_key === row.hashed_key)!;
      expect(row.value_sealed).toBe(old.value_sealed);
      expect(row.wrapped_data_key).not.toBe(old.wrapped_data_key);
      expect(row.key_version).toBe(2);
      const slot = { tenancyId, storeId: 'tax-ids', hashedKey: row.hashed_key };
      expect(() => openEntry(from, slot, row)).toThrow();
      expect(openEntry(to, slot, row)).toBe(openEntry(from, slot, old));
    }
    expect((await rewrapDataKeys(h.latch.deps.db, from, to)).rewrapped).toBe(0);
    // Rotate back so the server (still on version 1) reads them again.
    await rewrapDataKeys(h.latch.deps.db, to, { ...from, version: 1 });
    expect(await store.getValue('b', { secret: 's' })).toBe('value b');
  });

  it('sealEntry binds the slot: another hashed key or a different KEK does not open it', () => {
    const kek = currentKek('root-secret-one');
    const slot = { tenancyId: '00000000-0000-0000-0000-000000000001', storeId: 's', hashedKey: 'h1' };
    const entry = sealEntry(kek, slot, 'ciphertext-from-sdk');
    expect(openEntry(kek, slot, entry)).toBe('ciphertext-from-sdk');
    expect(() => openEntry(kek, { ...slot, hashedKey: 'h2' }, entry)).toThrow();
    expect(() => openEntry(currentKek('root-secret-two'), slot, entry)).toThrow();
  });
});

describe('data vault: client-side scheme', () => {
  it('pins test vectors, and matches the documented scheme recomputed with node:crypto', async () => {
    const { hashedKey, material } = await deriveVaultKey('vector-secret', 'vector-key');
    expect(hashedKey).toBe('D68mROsqHT9VWzftzAidoKh76H4xBjb7HTNbb8+z9jc=');
    const salt = new Uint8Array(16).fill(7);
    const iv = new Uint8Array(12).fill(9);
    const encrypted = await encryptVaultValue(material, 'vector value', { salt, iv });
    expect(encrypted).toBe('AQAHBwcHBwcHBwcHBwcHBwcHCQkJCQkJCQkJCQkJyv1S0GyWvtueFVWQzpYuu9CnX+KkiemcL9yoxw==');
    expect(await decryptVaultValue(material, encrypted)).toBe('vector value');

    // The README's description, step by step, with another implementation.
    const nodeMaterial = pbkdf2Sync('vector-key', 'latch-data-vault-v1\0vector-secret', 100_000, 32, 'sha256');
    expect(Buffer.from(material).equals(nodeMaterial)).toBe(true);
    expect(createHmac('sha256', nodeMaterial).update('latch-data-vault-v1:hashed-key').digest('base64')).toBe(hashedKey);
    const valueKey = Buffer.from(hkdfSync('sha256', nodeMaterial, Buffer.from(salt), 'latch-data-vault-v1:value', 32));
    const cipher = createCipheriv('aes-256-gcm', valueKey, Buffer.from(iv));
    const ct = Buffer.concat([cipher.update('vector value', 'utf8'), cipher.final(), cipher.getAuthTag()]);
    expect(Buffer.concat([Buffer.from([1, 0]), Buffer.from(salt), Buffer.from(iv), ct]).toString('base64')).toBe(encrypted);
  });

  it('wrong secret or key cannot decrypt a value; the secret must be a string', async () => {
    const right = await deriveVaultKey('s1', 'k1');
    const encrypted = await encryptVaultValue(right.material, 'v');
    await expect(decryptVaultValue((await deriveVaultKey('s2', 'k1')).material, encrypted)).rejects.toThrow(/could not be decrypted/);
    await expect(decryptVaultValue((await deriveVaultKey('s1', 'k2')).material, encrypted)).rejects.toThrow(/could not be decrypted/);
    expect(() => deriveVaultKey(42 as unknown as string, 'k')).toThrow('Data vault secret must be a string');
  });
});
