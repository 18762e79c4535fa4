import { SIGN_OUT_EVENT } from '../../live/sign-out-event';

/** Ends this browser's session (tack's own POST /signout clears the cookie), then shows the sign-in page. */
export async function signOut(): Promise<void> {
  window.dispatchEvent(new Event(SIGN_OUT_EVENT));
  const res = await fetch('/signout', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (!res.ok && res.status !== 204) throw new Error(`Sign-out answered ${res.status}`);
  location.assign('/signin');
}
