import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { keys, useMe } from '../../api/queries';
import { browserZone } from '../../lib/dates';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { FieldErrors } from '../../ui/field-errors';
import { SelectField } from '../../ui/select-field';
import { notify, notifyError } from '../../ui/toast-queue';
import { NotificationSettings } from './notifications';
import { SettingsPage } from './settings-nav';
import { signOut } from './sign-out';

function zones(): string[] {
  const list = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return list.includes('UTC') ? list : ['UTC', ...list];
}

export function ProfilePage() {
  const me = useMe();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [tz, setTz] = useState(browserZone());
  const [githubLogin, setGithubLogin] = useState('');
  useEffect(() => {
    if (!me.data) return;
    setName(me.data.member.name);
    setGithubLogin(me.data.member.github_login ?? '');
    setTz(me.data.member.tz ?? browserZone());
  }, [me.data]);
  const options = useMemo(() => zones().map((z) => ({ id: z, label: z.replace(/_/g, ' ') })), []);
  const save = useMutation({
    meta: { inline: true },
    mutationFn: () => ok(api.PATCH('/members/{id}', { params: { path: { id: me.data!.member.id } }, body: { name: name.trim(), tz, github_login: githubLogin.trim() || null } })),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.me });
      void qc.invalidateQueries({ queryKey: keys.members });
      notify('Profile saved');
    },
  });
  if (me.isError) return <ErrorPanel error={me.error} />;
  if (!me.data) return <Loading />;
  const m = me.data.member;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <SettingsPage>
      <form className="panel" onSubmit={submit} aria-labelledby="profile-h">
        <h2 id="profile-h" style={{ marginTop: 0 }}>
          Profile
        </h2>
        <div className="field">
          <label htmlFor="profile-name">Name</label>
          <input id="profile-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </div>
        <SelectField label="Time zone" value={tz} options={options} onChange={setTz} />
        <div className="field">
          <label htmlFor="profile-github">GitHub login</label>
          <input id="profile-github" value={githubLogin} onChange={(e) => setGithubLogin(e.target.value)} maxLength={39} autoComplete="off" spellCheck={false} aria-describedby="profile-github-help" />
          <p id="profile-github-help" className="muted small">
            Pull requests you open or merge on GitHub move cards as you.
          </p>
        </div>
        {m.tz === null && <p className="muted small">Not saved yet: this is your browser’s time zone. Todos and reminders use the saved one.</p>}
        <p className="small">
          <strong>Role:</strong> {m.role} · <strong>Organization:</strong> {me.data.org.name}
          {m.email && (
            <>
              {' '}
              · <strong>E-mail:</strong> {m.email}
            </>
          )}
        </p>
        <FieldErrors error={save.error} />
        <button type="submit" className="button primary" disabled={save.isPending}>
          Save profile
        </button>
      </form>
      <section className="panel" aria-labelledby="slack-h" style={{ marginTop: 16 }}>
        <h2 id="slack-h" style={{ marginTop: 0 }}>
          Slack
        </h2>
        {m.slack_user_id ? (
          <p>
            Linked to Slack user <span className="mono">{m.slack_user_id}</span>: your commands and reminders there act as you.
          </p>
        ) : (
          <p className="muted">Not linked to Slack. An owner or admin links you by setting your Slack user id under Members.</p>
        )}
      </section>
      <NotificationSettings memberId={m.id} settings={m.notifications} linked={m.slack_user_id !== null} />
      <p style={{ marginTop: 16 }}>
        <button type="button" className="button" onClick={() => void signOut().catch(notifyError)}>
          Sign out
        </button>
      </p>
    </SettingsPage>
  );
}
