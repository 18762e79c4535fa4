import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { allPages, api, ok } from '../../api/client';
import { formatDateTime } from '../../lib/dates';
import { browserLabel } from '../../lib/user-agent';
import { ConfirmDialog } from '../../ui/dialogs';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { notifyError } from '../../ui/toast-queue';
import { SettingsPage } from './settings-nav';
import { signOut } from './sign-out';

export function SessionsPage() {
  const qc = useQueryClient();
  const sessions = useQuery({
    queryKey: ['sessions'],
    queryFn: () => allPages((cursor) => ok(api.GET('/sessions', { params: { query: { limit: 100, cursor } } }))),
  });
  const end = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/sessions/{id}', { params: { path: { id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['sessions'] }),
  });
  return (
    <SettingsPage>
      <h2>Sessions</h2>
      <p className="muted">Every browser signed in as you. Ending one signs it out at once.</p>
      {sessions.isError && <ErrorPanel error={sessions.error} retry={() => void sessions.refetch()} />}
      {sessions.isPending && <Loading />}
      {sessions.data && (
        <ul className="list list-box" aria-label="Sessions">
          {sessions.data.map((s) => (
            <li key={s.id} data-session={s.id}>
              <div className="grow">
                <div className="ellipsis session-browser" title={s.user_agent ?? undefined}>
                  {browserLabel(s.user_agent)}
                </div>
                <div className="muted small">
                  Signed in {formatDateTime(s.created_at)}
                  {s.last_used_at && <> · last used {formatDateTime(s.last_used_at)}</>}
                </div>
                {/* The raw header, for telling two browsers of the same kind apart. */}
                {s.user_agent && (
                  <details className="small">
                    <summary className="muted">Browser details</summary>
                    <code className="break">{s.user_agent}</code>
                  </details>
                )}
              </div>
              {s.current ? (
                <>
                  <span className="chip accent">This browser</span>
                  <button type="button" className="button small" onClick={() => void signOut().catch(notifyError)}>
                    Sign out
                  </button>
                </>
              ) : (
                <ConfirmDialog trigger={<Button className="button small danger">End</Button>} title="End this session?" confirmLabel="End session" onConfirm={() => end.mutate(s.id)}>
                  <p>That browser is signed out on its next request.</p>
                </ConfirmDialog>
              )}
            </li>
          ))}
        </ul>
      )}
    </SettingsPage>
  );
}
