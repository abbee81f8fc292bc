import { type FormEvent, useState } from 'react';
import { saveConfig } from '../components/config.js';
import { Card, ConfirmButton, Empty, ErrorMessage, InlineForm, InlineInput, PageHeader, Table, useAction } from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** The data vault's stores, declared in the project config (values are encrypted by the SDK; none are shown here). */
export function DataVaultPage({ admin, project }: PageProps) {
  const stores = project.config.data_vault_stores;
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const save = useAction((next: typeof stores) => saveConfig(admin, { data_vault_stores: next }));
  const add = (event: FormEvent) => {
    event.preventDefault();
    void save.run([...stores, { id: id.trim(), display_name: name.trim() || id.trim() }]).then((ok) => {
      if (ok) {
        setId('');
        setName('');
      }
    });
  };
  return (
    <>
      <PageHeader
        title="Data vault"
        description="Stores for values your servers encrypt before they reach Latch (getDataVaultStore(id) in the SDK). Latch never sees the keys or the values."
      />
      <Card title="Add a store">
        <InlineForm onSubmit={add} submitLabel="Add store" align="end">
          <InlineInput label="Store id" type="text" value={id} onValue={setId} style={{ width: 220 }} />
          <InlineInput label="Display name" type="text" value={name} onValue={setName} style={{ width: 260 }} />
        </InlineForm>
        <ErrorMessage error={save.error} title="Could not save" />
      </Card>
      <Card title="Stores">
        {stores.length === 0 ? (
          <Empty title="No stores">Add a store before your servers write to it.</Empty>
        ) : (
          <Table
            items={stores}
            label="Data vault stores"
            columns={['Id', 'Display name', null]}
            row={(store) => (
              <tr key={store.id}>
                <td>
                  <code>{store.id}</code>
                </td>
                <td>{store.display_name}</td>
                <td className="actions end">
                  <ConfirmButton
                    className="button small danger"
                    label="Remove"
                    title={`Remove the store ${store.id}?`}
                    message={<p>Reads and writes of this store are refused from now on (its stored values stay until it is added again).</p>}
                    onConfirm={() => saveConfig(admin, { data_vault_stores: stores.filter((s) => s.id !== store.id) })}
                  />
                </td>
              </tr>
            )}
          />
        )}
      </Card>
    </>
  );
}
