import { api, ok } from '../../api/client';

/** Ends this browser's own session, then shows the sign-in page. */
export async function signOut(): Promise<void> {
  const sessions = await ok(api.GET('/sessions', { params: { query: { limit: 100 } } }));
  const mine = sessions.data.find((s) => s.current);
  if (mine) await ok(api.DELETE('/sessions/{id}', { params: { path: { id: mine.id } } }));
  location.assign('/signin');
}
