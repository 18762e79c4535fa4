/** Sign-out (pages/settings/sign-out.ts) announces itself with this window event: the tab's stream closes first. */
export const SIGN_OUT_EVENT = 'tack:sign-out';
