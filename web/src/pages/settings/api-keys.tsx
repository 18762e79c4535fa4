import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { allPages, api, ok } from '../../api/client';
import type { CreatedToken, Scope } from '../../api/types';
import { formatDateTime } from '../../lib/dates';
import { ConfirmDialog } from '../../ui/dialogs';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { FieldErrors } from '../../ui/field-errors';
import { SelectField } from '../../ui/select-field';
import { ShownOnce } from '../../ui/shown-once';
import { SettingsPage } from './settings-nav';

const SCOPES: { id: Scope; label: string }[] = [
  { id: 'read', label: 'read: every GET' },
  { id: 'write', label: 'write: create and change' },
  { id: 'config:write', label: 'config:write: boards, members, others’ tokens' },
  { id: 'replay', label: 'replay: run jobs now' },
];
const EXPIRY = [
  { id: 'never', label: 'Never' },
  { id: '7', label: 'In 7 days' },
  { id: '30', label: 'In 30 days' },
  { id: '90', label: 'In 90 days' },
  { id: '365', label: 'In a year' },
];

export function ApiKeysPage() {
  const qc = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens'], queryFn: () => allPages((cursor) => ok(api.GET('/tokens', { params: { query: { limit: 100, cursor } } }))) });
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/tokens/{id}', { params: { path: { id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['tokens'] }),
  });
  const live = (tokens.data ?? []).filter((t) => !t.revoked_at);
  return (
    <SettingsPage>
      <h2>API keys</h2>
      <p className="muted">Keys let the command-line tool, scripts and agents call /v1 as you. Agent keys are refused on gated moves.</p>
      {created && (
        <ShownOnce
          title={<>Your new key “{created.name}”</>}
          note="Copy it now: it is shown this once and tack keeps only its hash."
          id="new-key-value"
          label="New API key"
          value={created.token}
          testId="new-key"
          onDone={() => setCreated(null)}
        />
      )}
      <NewKey onCreated={setCreated} />
      {tokens.isError && <ErrorPanel error={tokens.error} retry={() => void tokens.refetch()} />}
      {tokens.isPending && <Loading />}
      {tokens.data && (
        <div className="table-wrap">
          <table className="table stack" aria-label="API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {live.map((t) => (
                <tr key={t.id} data-token={t.id}>
                  <td>
                    {t.name} {t.agent && <span className="chip">agent</span>}
                  </td>
                  <td className="mono small">{t.hint}</td>
                  <td className="small">{t.scopes.join(', ')}</td>
                  <td className="small">{t.expires_at ? formatDateTime(t.expires_at) : 'never'}</td>
                  <td>
                    <ConfirmDialog
                      trigger={<Button className="button small danger">Revoke</Button>}
                      title={`Revoke “${t.name}”?`}
                      confirmLabel="Revoke key"
                      onConfirm={() => revoke.mutate(t.id)}
                    >
                      <p>Anything using this key gets 401 from its next request on.</p>
                    </ConfirmDialog>
                  </td>
                </tr>
              ))}
              {live.length === 0 && (
                <tr>
                  <td colSpan={5} className="muted">
                    No keys.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
    </SettingsPage>
  );
}

function NewKey({ onCreated }: { onCreated: (t: CreatedToken) => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [agent, setAgent] = useState(false);
  const [expiry, setExpiry] = useState('90');
  const create = useMutation({
    meta: { inline: true },
    mutationFn: () => {
      const expires_at = expiry === 'never' ? undefined : new Date(Date.now() + Number(expiry) * 86_400_000).toISOString();
      return ok(api.POST('/tokens', { body: { name: name.trim(), scopes, agent, ...(expires_at ? { expires_at } : {}) } }));
    },
    onSuccess: (t) => {
      onCreated(t);
      setName('');
      void qc.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const toggle = (s: Scope, on: boolean) => setScopes((cur) => (on ? [...cur, s] : cur.filter((x) => x !== s)));
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-key-h" style={{ marginBottom: 16 }}>
      <h3 id="new-key-h">Create a key</h3>
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <div className="field grow">
          <label htmlFor="key-name">Name</label>
          <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="laptop CLI" required maxLength={100} />
        </div>
        <SelectField label="Expires" value={expiry} options={EXPIRY} onChange={setExpiry} />
      </div>
      <fieldset className="field plain-fieldset">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s.id} className="check">
            <input type="checkbox" checked={scopes.includes(s.id)} onChange={(e) => toggle(s.id, e.target.checked)} /> {s.label}
          </label>
        ))}
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={agent} onChange={(e) => setAgent(e.target.checked)} /> Agent key (an AI agent or bot: never allowed to make gated moves)
      </label>
      <FieldErrors error={create.error} />
      <button type="submit" className="button primary" style={{ marginTop: 12 }} disabled={create.isPending || scopes.length === 0}>
        Create key
      </button>
    </form>
  );
}
