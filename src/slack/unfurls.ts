import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { slackCaller, type SlackCaller } from './caller.js';
import type { SlackDeps } from './deps.js';
import { withCardLinks } from './views/card-links.js';
import { cardUnfurl, milestoneUnfurl, snippetUnfurl, type Unfurl } from './views/unfurls.js';

/** A web app page that unfurls: `/cards/{ref}`, `/snippets/{id or slug}`, `/milestones/{ref}`. */
export type AppLink = { kind: 'card' | 'snippet' | 'milestone'; key: string };

const PAGES: Record<string, AppLink['kind']> = { cards: 'card', snippets: 'snippet', milestones: 'milestone' };

/** The page a URL names under `appUrl` (same origin, path prefix), or undefined. */
export function appLinkOf(url: string, appUrl: string): AppLink | undefined {
  let target: URL;
  let base: URL;
  try {
    target = new URL(url);
    base = new URL(appUrl);
  } catch {
    return undefined;
  }
  if (target.origin !== base.origin) return undefined;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!target.pathname.startsWith(`${prefix}/`)) return undefined;
  const parts = target.pathname.slice(prefix.length + 1).split('/');
  if (parts.length !== 2 || parts[1] === '') return undefined;
  const kind = PAGES[parts[0]!];
  if (!kind) return undefined;
  try {
    return { kind, key: decodeURIComponent(parts[1]!) };
  } catch {
    return undefined;
  }
}

/**
 * The unfurl of one link, read as the member who posted it; undefined when it does not
 * unfurl: not found for them, or a private snippet. Private snippets never unfurl, not even
 * in their creator's own messages: an unfurl is shown to everyone in the conversation.
 */
async function unfurlOne(caller: SlackCaller, url: string, target: AppLink): Promise<Unfurl | undefined> {
  try {
    switch (target.kind) {
      case 'card':
        return await cardUnfurlFor(caller, url, target.key);
      case 'milestone':
        return milestoneUnfurl(url, await caller.call('getMilestoneStatus', { ref: target.key }));
      case 'snippet': {
        const snippet = await caller.call('getSnippet', { id: target.key });
        return snippet.visibility === 'private' ? undefined : snippetUnfurl(url, snippet);
      }
    }
  } catch (err) {
    // Unknown, deleted, another organization's, or a key that is not valid: no unfurl.
    if (err instanceof AppError && err.status < 500) return undefined;
    throw err;
  }
}

export interface LinkShared {
  user: string;
  channel: string;
  message_ts: string;
  unfurl_id?: string;
  source?: string;
  links: { url: string; domain?: string }[];
}

/** A card's unfurl with its controls: the statuses the reader may move it to (listCardMoves). */
export async function cardUnfurlFor(caller: SlackCaller, url: string, key: string): Promise<Unfurl> {
  const card = await caller.call('getCard', { id: key });
  const moves = await caller.call('listCardMoves', { id: card.id });
  const links = await caller.call('listCardLinks', { id: card.id });
  return withCardLinks(cardUnfurl(url, card, moves.data.filter((m) => m.allowed).map((m) => m.workflow_status)), links.data);
}

/** At most this many links of one message are unfurled (Slack sends a few at a time anyway). */
const MAX_LINKS = 5;

/**
 * `link_shared`: links to the web app in a message unfurl with the current state of what
 * they name (chat.unfurl), read as the Slack user who posted them; nothing unfurls for a user
 * with no tack member. Never throws.
 */
export async function unfurlLinks(deps: SlackDeps, client: WebClient, event: LinkShared, log: Logger): Promise<void> {
  try {
    const appUrl = deps.runtime.appUrl ?? deps.config.appUrl;
    const targets = event.links.slice(0, MAX_LINKS).flatMap((l) => {
      const target = appLinkOf(l.url, appUrl);
      return target ? [{ url: l.url, target }] : [];
    });
    if (targets.length === 0) return;
    const caller = await slackCaller(deps, client, event.user, log);
    if (!caller) return;
    const unfurls: Record<string, Unfurl> = {};
    for (const { url, target } of targets) {
      const unfurl = await unfurlOne(caller, url, target);
      if (unfurl) unfurls[url] = unfurl;
    }
    if (Object.keys(unfurls).length === 0) return;
    const where = event.unfurl_id && event.source ? { unfurl_id: event.unfurl_id, source: event.source as 'composer' | 'conversations_history' } : { channel: event.channel, ts: event.message_ts };
    await client.chat.unfurl({ ...where, unfurls });
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not unfurl links');
  }
}
