import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { WEBHOOK_EVENT_TYPES } from '../../contract/schemas/webhooks.js';
import type { WebhookEndpoint, WebhookEndpointWithSecret } from '../../sdk/features/webhooks.js';
import {
  Card,
  ConfirmButton,
  CopyButton,
  Empty,
  ErrorMessage,
  Field,
  InlineForm,
  InlineInput,
  Modal,
  PageHeader,
  QueryTable,
  formatDate,
  useAction,
} from '../components/ui.js';
import type { PageProps } from './page-props.js';

/**
 * Outbound webhooks: endpoints (the signing secret shown once, at creation and rotation), their
 * event types and switch, "send test event", and per endpoint the deliveries log with retry and
 * replay since a time.
 */
export function WebhooksPage({ admin }: PageProps) {
  const endpoints = useQuery({ queryKey: ['webhooks', 'endpoints'], queryFn: () => admin.listWebhookEndpoints() }, admin.queryClient);
  const refresh = () => admin.queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<WebhookEndpointWithSecret | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = useAction(async () => {
    setSecret(await admin.createWebhookEndpoint({ url: url.trim() }));
    setUrl('');
    await refresh();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create.run();
  };
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Signed events (Standard Webhooks) sent to your endpoints, at least once: receivers dedupe on the webhook-id header."
      />
      <Card title="Add an endpoint">
        <InlineForm onSubmit={submit} submitLabel="Add endpoint" align="end">
          <InlineInput label="Endpoint URL" type="url" value={url} onValue={setUrl} style={{ flex: 1 }} />
        </InlineForm>
        <ErrorMessage error={create.error} title="Could not add the endpoint" />
      </Card>
      <Card title="Endpoints">
        <QueryTable
          query={endpoints}
          loadingLabel="Loading endpoints…"
          empty={<Empty title="No endpoints">Add an endpoint to receive this project's events.</Empty>}
          label="Webhook endpoints"
          columns={['URL', 'Events', 'Status', 'Created', null]}
          row={(endpoint) => (
            <tr key={endpoint.id}>
              <td>
                <code>{endpoint.url}</code>
              </td>
              <td>{endpoint.event_types ? endpoint.event_types.join(', ') : 'All events'}</td>
              <td>{endpoint.enabled ? 'Enabled' : `Disabled${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}`}</td>
              <td>{formatDate(endpoint.created_at_millis)}</td>
              <td className="actions end">
                <button type="button" className="button small" onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}>
                  {open === endpoint.id ? 'Close' : 'Manage'}
                </button>
              </td>
            </tr>
          )}
        />
      </Card>
      {endpoints.data?.map((endpoint) =>
        endpoint.id === open ? <EndpointCard key={endpoint.id} admin={admin} endpoint={endpoint} onSecret={setSecret} refresh={refresh} /> : null,
      )}
      <Modal title="Signing secret" open={secret !== null} onClose={() => setSecret(null)}>
        {secret ? (
          <div className="stack">
            <p>Copy it now: it is not shown again. Verify deliveries with it (e.g. the standardwebhooks package).</p>
            <code data-testid="webhook-secret">{secret.secret}</code>
            <CopyButton value={secret.secret} />
          </div>
        ) : null}
      </Modal>
    </>
  );
}

function EndpointCard({
  admin,
  endpoint,
  onSecret,
  refresh,
}: {
  admin: PageProps['admin'];
  endpoint: WebhookEndpoint;
  onSecret: (secret: WebhookEndpointWithSecret) => void;
  refresh: () => Promise<unknown>;
}) {
  const deliveries = useQuery(
    { queryKey: ['webhooks', 'deliveries', endpoint.id], queryFn: () => admin.listWebhookDeliveries(endpoint.id), refetchInterval: 2000 },
    admin.queryClient,
  );
  const [since, setSince] = useState('');
  const [replayed, setReplayed] = useState<number | null>(null);
  const act = useAction(async (work: () => Promise<unknown>) => {
    await work();
    await refresh();
  });
  const types = new Set(endpoint.event_types ?? WEBHOOK_EVENT_TYPES);
  const toggleType = (type: (typeof WEBHOOK_EVENT_TYPES)[number]) => {
    const next = WEBHOOK_EVENT_TYPES.filter((t) => (t === type ? !types.has(t) : types.has(t)));
    if (next.length === 0) return;
    void act.run(() => admin.updateWebhookEndpoint(endpoint.id, { event_types: next.length === WEBHOOK_EVENT_TYPES.length ? null : next }));
  };
  return (
    <Card
      title={`Endpoint ${endpoint.url}`}
      actions={
        <div className="row">
          <button type="button" className="button small" onClick={() => void act.run(() => admin.sendWebhookTestEvent(endpoint.id))}>
            Send test event
          </button>
          <button type="button" className="button small" onClick={() => void act.run(async () => onSecret(await admin.rotateWebhookSecret(endpoint.id)))}>
            Rotate secret
          </button>
          <button
            type="button"
            className="button small"
            onClick={() => void act.run(() => admin.updateWebhookEndpoint(endpoint.id, { enabled: !endpoint.enabled }))}
          >
            {endpoint.enabled ? 'Disable' : 'Enable'}
          </button>
          <ConfirmButton
            className="button small danger"
            label="Delete"
            title="Delete this endpoint?"
            message={<p>It stops receiving events at once.</p>}
            onConfirm={() => admin.deleteWebhookEndpoint(endpoint.id).then(refresh)}
          />
        </div>
      }
    >
      <ErrorMessage error={act.error} title="Could not do that" />
      <fieldset className="stack">
        <legend>Event types</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type}>
            <input type="checkbox" checked={types.has(type)} onChange={() => toggleType(type)} /> <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <InlineForm
        onSubmit={(event) => {
          event.preventDefault();
          void act.run(async () => setReplayed(await admin.replayWebhooks(endpoint.id, new Date(since))));
        }}
        submitLabel="Replay since"
        align="end"
        spaced
        after={replayed === null ? null : <span className="muted">{replayed} events queued again</span>}
      >
        <div style={{ width: 260 }}>
          <Field label="Since (your local time)">
            {(props) => <input {...props} type="datetime-local" value={since} onChange={(event) => setSince(event.target.value)} />}
          </Field>
        </div>
      </InlineForm>
      <h3>Deliveries</h3>
      <QueryTable
        query={deliveries}
        loadingLabel="Loading deliveries…"
        empty={<Empty title="No deliveries yet">Send a test event to see one.</Empty>}
        label="Deliveries"
        columns={['Event', 'Status', 'Response', 'Attempts', 'Created', null]}
        row={(delivery) => (
          <tr key={delivery.id} data-testid="webhook-delivery">
            <td>
              <code>{delivery.event_type}</code>
            </td>
            <td>{delivery.state}</td>
            <td>
              {delivery.last_status ?? '—'} {delivery.last_error ? <span className="muted">{delivery.last_error}</span> : null}
              {delivery.last_response_snippet ? <pre className="muted">{delivery.last_response_snippet.slice(0, 200)}</pre> : null}
            </td>
            <td>{delivery.attempts}</td>
            <td>{formatDate(delivery.created_at_millis)}</td>
            <td className="actions end">
              <button type="button" className="button small" onClick={() => void act.run(() => admin.retryWebhookDelivery(endpoint.id, delivery.id))}>
                Retry
              </button>
            </td>
          </tr>
        )}
      />
    </Card>
  );
}
