import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { allPages, api, ok } from '../../api/client';
import type { CreatedWebhook, Webhook, WebhookDelivery } from '../../api/types';
import { formatDateTime } from '../../lib/dates';
import { ConfirmDialog } from '../../ui/dialogs';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { FieldErrors } from '../../ui/field-errors';
import { ShownOnce } from '../../ui/shown-once';
import { SettingsPage } from './settings-nav';

/** Settings → Webhooks: endpoints that receive events, their secrets (shown once) and their deliveries. */
export function WebhooksPage() {
  const hooks = useQuery({ queryKey: ['webhooks'], queryFn: () => allPages((cursor) => ok(api.GET('/webhooks', { params: { query: { limit: 100, cursor } } }))) });
  const [secret, setSecret] = useState<CreatedWebhook | null>(null);
  return (
    <SettingsPage>
      <h2>Webhooks</h2>
      <p className="muted">
        tack POSTs each event to these URLs, signed as Standard Webhooks specify (verify with the secret), and retries a failed delivery for about a
        day. An endpoint that fails every attempt for 3 days is disabled.
      </p>
      {secret && (
        <ShownOnce
          title={<>Signing secret for {secret.url}</>}
          note="Copy it now: it is shown this once."
          id="webhook-secret-value"
          label="Signing secret"
          value={secret.secret}
          testId="webhook-secret"
          onDone={() => setSecret(null)}
        />
      )}
      <NewWebhook onCreated={setSecret} />
      {hooks.isError && <ErrorPanel error={hooks.error} retry={() => void hooks.refetch()} />}
      {hooks.isPending && <Loading />}
      {hooks.data?.length === 0 && <p className="muted">No webhooks yet.</p>}
      {hooks.data?.map((hook) => <WebhookPanel key={hook.id} hook={hook} onSecret={setSecret} />)}
    </SettingsPage>
  );
}

const splitEvents = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function NewWebhook({ onCreated }: { onCreated: (w: CreatedWebhook) => void }) {
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [description, setDescription] = useState('');
  const create = useMutation({
    meta: { inline: true },
    mutationFn: () =>
      ok(api.POST('/webhooks', { body: { url: url.trim(), events: splitEvents(events), ...(description.trim() ? { description: description.trim() } : {}) } })),
    onSuccess: (w) => {
      onCreated(w);
      setUrl('');
      setDescription('');
      void qc.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-webhook-h" style={{ marginBottom: 16 }}>
      <h3 id="new-webhook-h">Add a webhook</h3>
      <div className="field">
        <label htmlFor="webhook-url">URL</label>
        <input id="webhook-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/tack" required maxLength={2000} />
      </div>
      <div className="field">
        <label htmlFor="webhook-events">Events</label>
        <input id="webhook-events" value={events} onChange={(e) => setEvents(e.target.value)} aria-describedby="webhook-events-help" required />
        <span id="webhook-events-help" className="muted small">
          Types or prefixes, separated by commas: <code>card.moved</code>, <code>card.</code> for every card event, <code>*</code> for all.
        </span>
      </div>
      <div className="field">
        <label htmlFor="webhook-description">Description</label>
        <input id="webhook-description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
      </div>
      <FieldErrors error={create.error} />
      <button type="submit" className="button primary" style={{ marginTop: 12 }} disabled={create.isPending}>
        Add webhook
      </button>
    </form>
  );
}

function WebhookPanel({ hook, onSecret }: { hook: Webhook; onSecret: (w: CreatedWebhook) => void }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const refresh = () => qc.invalidateQueries({ queryKey: ['webhooks'] });
  const toggle = useMutation({
    mutationFn: () => ok(api.PATCH('/webhooks/{id}', { params: { path: { id: hook.id } }, body: { enabled: !hook.enabled } })),
    onSettled: refresh,
  });
  const rotate = useMutation({
    mutationFn: () => ok(api.POST('/webhooks/{id}/rotate-secret', { params: { path: { id: hook.id } } })),
    onSuccess: onSecret,
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/webhooks/{id}', { params: { path: { id: hook.id } } })),
    onSettled: refresh,
  });
  return (
    <section className="panel" data-webhook={hook.id} aria-label={`Webhook ${hook.url}`} style={{ marginBottom: 12 }}>
      <div className="row" style={{ justifyContent: 'space-between', flexWrap: 'wrap' }}>
        <div>
          <div className="mono">{hook.url}</div>
          {hook.description && <div className="small">{hook.description}</div>}
          <div className="small muted">
            {hook.events.join(', ')} ·{' '}
            {hook.enabled ? (
              <span className="chip accent">enabled</span>
            ) : (
              <span className="chip danger">disabled{hook.disabled_at ? ` ${formatDateTime(hook.disabled_at)}` : ''}</span>
            )}
            {hook.failing_since && <span className="chip danger"> failing since {formatDateTime(hook.failing_since)}</span>}
          </div>
        </div>
        <div className="row">
          <button type="button" className="button small" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide deliveries' : 'Deliveries'}
          </button>
          <button type="button" className="button small" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
            {hook.enabled ? 'Disable' : 'Enable'}
          </button>
          <ConfirmDialog trigger={<Button className="button small">Rotate secret</Button>} title="Rotate the signing secret?" confirmLabel="Rotate" onConfirm={() => rotate.mutate()}>
            <p>The current secret stops verifying at once: deliveries from now on are signed with the new one.</p>
          </ConfirmDialog>
          <ConfirmDialog trigger={<Button className="button small danger">Delete</Button>} title={`Delete the webhook to ${hook.url}?`} confirmLabel="Delete webhook" onConfirm={() => remove.mutate()}>
            <p>Deliveries still waiting are never sent.</p>
          </ConfirmDialog>
        </div>
      </div>
      {open && <Deliveries hookId={hook.id} />}
    </section>
  );
}

const STATUS_CHIP: Record<WebhookDelivery['status'], string> = { succeeded: 'chip accent', failed: 'chip danger', pending: 'chip', sending: 'chip' };

function Deliveries({ hookId }: { hookId: string }) {
  const qc = useQueryClient();
  const deliveries = useQuery({
    queryKey: ['webhooks', hookId, 'deliveries'],
    queryFn: () => ok(api.GET('/webhooks/{id}/deliveries', { params: { path: { id: hookId }, query: { limit: 50 } } })),
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) => ok(api.POST('/webhooks/{id}/deliveries/{delivery_id}/redeliver', { params: { path: { id: hookId, delivery_id: deliveryId } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['webhooks', hookId, 'deliveries'] }),
  });
  if (deliveries.isError) return <ErrorPanel error={deliveries.error} retry={() => void deliveries.refetch()} />;
  if (deliveries.isPending) return <Loading />;
  const rows = deliveries.data.data;
  return (
    <div className="table-wrap" style={{ marginTop: 12 }}>
      <table className="table stack" aria-label="Deliveries">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">Response</th>
            <th scope="col">Time</th>
            <th scope="col">When</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td className="mono small">{d.event_id}</td>
              <td className="small">{d.attempt}</td>
              <td className="small">
                <span className={STATUS_CHIP[d.status]}>{d.status}</span>
                {d.error && <div className="muted">{d.error}</div>}
                {d.next_attempt_at && <div className="muted">{d.status === 'failed' ? 'retry' : 'due'} {formatDateTime(d.next_attempt_at)}</div>}
              </td>
              <td className="small">{d.response_status ?? '—'}</td>
              <td className="small">{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td>
              <td className="small">{formatDateTime(d.created_at)}</td>
              <td>
                <button type="button" className="button small" onClick={() => redeliver.mutate(d.id)} disabled={redeliver.isPending}>
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={7} className="muted">
                No deliveries yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
