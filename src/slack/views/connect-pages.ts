import type { ConnectPreview } from '../../domain/slack-connect.js';
import { escapeHtml, htmlPage } from '../../http/html-pages.js';

/**
 * The pages of `/slack/connect` (see connect-routes.ts), rendered like the sign-in page: no
 * script, every value escaped.
 */

const TITLE = 'Link Slack';

const HOW_TO_SIGN_IN =
  '<p>Sign in first: with a link from <code>tack signin-link</code>, from <code>/tack login</code> in Slack (from an account linked already), or from an admin of your organization. Then open this link again in the same browser; it lasts 15 minutes.</p>';

function slackUser(p: { slackUserId: string; slackUserName: string | null }): string {
  return p.slackUserName ? `<strong>@${escapeHtml(p.slackUserName)}</strong> (${escapeHtml(p.slackUserId)})` : `<strong>${escapeHtml(p.slackUserId)}</strong>`;
}

function you(p: ConnectPreview): string {
  return `<strong>${escapeHtml(p.member.name)}</strong> (${escapeHtml(p.member.role)}) in ${escapeHtml(p.orgName)}`;
}

/** GET with a live code, signed in: what confirming links, and the button. Changes nothing. */
export function confirmConnectPage(p: ConnectPreview, code: string): string {
  if (p.member.slackUserId === p.slackUserId) {
    return htmlPage(TITLE, `<h1>Already linked</h1>\n<p>Slack user ${slackUser(p)} already acts as you, ${you(p)}. Nothing to do.</p>`);
  }
  const replaces = p.member.slackUserId
    ? `\n<p>You are linked to Slack user <strong>${escapeHtml(p.member.slackUserId)}</strong> now; confirming replaces that link.</p>`
    : '';
  return htmlPage(
    TITLE,
    `<h1>Link a Slack account to tack</h1>
<p>Slack user ${slackUser(p)} will act as you, ${you(p)}, with everything your role may do.</p>${replaces}
<p>Confirm only if you asked for this link yourself, with <code>/tack connect</code> in Slack, just now.</p>
<form method="post" action="/slack/connect">
<input type="hidden" name="code" value="${escapeHtml(code)}">
<button type="submit">Link this Slack account</button>
</form>`,
  );
}

/** GET with a live code whose Slack user another member is linked to: nothing to confirm. */
export function linkedElsewherePage(message: string): string {
  return htmlPage(TITLE, `<h1>This Slack account is linked to someone else</h1>\n<p>${escapeHtml(message)}</p>`);
}

/** After confirming. */
export function connectedPage(p: ConnectPreview): string {
  return htmlPage(TITLE, `<h1>Slack account linked</h1>\n<p>Slack user ${slackUser(p)} now acts as you, ${you(p)}. Go back to Slack: your commands work now.</p>`);
}

/** Opened without a signed-in session. */
export function connectSignInFirstPage(): string {
  return htmlPage(TITLE, `<h1>Sign in to tack first</h1>\n<p>This link connects a Slack account to the tack member you are signed in as.</p>\n${HOW_TO_SIGN_IN}`);
}

/** A used, expired or unknown code. */
export function invalidConnectPage(): string {
  return htmlPage(
    TITLE,
    '<h1>This Slack link does not work</h1>\n<p>It was already used, has expired (links last 15 minutes), or is not a tack link. Run <code>/tack connect</code> in Slack for a new one.</p>',
  );
}

/** Refused for a reason the domain states (a narrower sign-in, say). */
export function connectRefusedPage(message: string): string {
  return htmlPage(TITLE, `<h1>Not linked</h1>\n<p>${escapeHtml(message)}</p>`);
}

/** The confirmation posted from another site. */
export function connectCrossSitePage(): string {
  return htmlPage(TITLE, '<h1>Request refused</h1>\n<p>This form was sent from another site. Open the link from Slack itself and press the button there.</p>');
}
