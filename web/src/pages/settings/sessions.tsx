import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { allPages, api, ok } from '../../api/client';
import { formatDateTime } from '../../lib/dates';
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
                <div className="ellipsis">{s.user_agent ?? 'Unknown browser'}</div>
                <div className="muted small">
                  Signed in {formatDateTime(s.created_at)}
                  {s.last_used_at && <> · last used {formatDateTime(s.last_used_at)}</>}
                </div>
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
