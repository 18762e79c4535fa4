import type { Logger } from 'pino';
import { issueSlackConnectLink } from '../domain/slack-connect.js';
import { findSlackMember } from '../domain/slack-links.js';
import type { SlackReply } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { messageView } from './views/blocks.js';
import { alreadyLinkedView, connectLinkView } from './views/tack.js';

/**
 * `/tack connect` for a Slack user, linked or not (it is how one links): a one-time link to
 * confirm in the web app, signed in (see `slack-connect.ts`). A Slack user linked already is
 * told to whom, and gets no link.
 */
export async function connectReply(deps: SlackDeps, slackUserId: string, slackUserName: string | undefined, log: Logger): Promise<SlackReply> {
  const { db } = deps.runtime;
  const org = deps.config.slack.org;
  const linked = await findSlackMember(db, org, slackUserId);
  if (linked) return alreadyLinkedView(linked);
  const appUrl = deps.runtime.appUrl ?? deps.config.appUrl;
  const link = await issueSlackConnectLink(db, { orgSlug: org, slackUserId, slackUserName, now: deps.runtime.clock(), appUrl });
  if (!link) {
    log.warn({ slack_org: org }, 'SLACK_ORG names no organization; no connect link made');
    return messageView(`tack has no organization "${org}" (SLACK_ORG) for this Slack workspace; ask whoever runs tack.`);
  }
  log.info({ slack_user: slackUserId }, 'Slack connect link made');
  return connectLinkView(link);
}
