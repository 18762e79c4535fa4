import type { App, BlockAction, ButtonAction, StaticSelectAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { howToLinkMessage } from '../domain/slack-links.js';
import { slackCaller } from './caller.js';
import type { SlackDeps } from './deps.js';
import { errorReply } from './replies.js';
import { cardUnfurlFor } from './unfurls.js';
import { isWorkflowStatus } from './views/cards.js';
import { UNFURL_ASSIGN_ACTION, UNFURL_BLOCK_PREFIX, UNFURL_MOVE_ACTION } from './views/unfurls.js';

type Change = { kind: 'move'; status: string } | { kind: 'assign' };

interface UnfurlContainer {
  channel_id?: string;
  message_ts?: string;
  app_unfurl_url?: string;
}

/**
 * A card unfurl's status select and Assign to me button: the operation runs as the member
 * who clicked (moveCard: the gate and the role judge them), then the unfurl is replaced with
 * the card's new state (chat.unfurl again on the same message). A refusal is told to the
 * clicker alone (an ephemeral message); the unfurl stays as it was.
 */
async function runUnfurlAction(deps: SlackDeps, body: BlockAction, cardId: string, change: Change, client: WebClient, log: Logger): Promise<void> {
  const container = body.container as UnfurlContainer;
  const channel = body.channel?.id ?? container.channel_id;
  const tell = async (text: string) => {
    if (channel) await client.chat.postEphemeral({ channel, user: body.user.id, text }).catch((err: Error) => log.warn({ err: err.message }, 'could not tell the clicker'));
  };
  try {
    const caller = await slackCaller(deps, client, body.user.id, log);
    if (!caller) return tell(howToLinkMessage(body.user.id));
    try {
      if (change.kind === 'move') {
        if (!isWorkflowStatus(change.status)) return tell(`"${change.status}" is not a status.`);
        await caller.call('moveCard', { id: cardId, workflow_status: change.status });
      } else {
        const card = await caller.call('getCard', { id: cardId });
        if (!card.assignee_ids.includes(caller.member.id)) await caller.call('moveCard', { id: cardId, assignee_ids: [...card.assignee_ids, caller.member.id] });
      }
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return tell(err.userMessage);
    }
    const appUrl = deps.runtime.appUrl ?? deps.config.appUrl;
    const ts = container.message_ts ?? body.message?.ts;
    if (!channel || !ts) return;
    const card = await caller.call('getCard', { id: cardId });
    const url = container.app_unfurl_url ?? `${appUrl.replace(/\/+$/, '')}/cards/${encodeURIComponent(card.ref)}`;
    await client.chat.unfurl({ channel, ts, unfurls: { [url]: await cardUnfurlFor(caller, url, cardId) } });
  } catch (err) {
    await tell(errorReply(err, log).text);
  }
}

function cardIdOf(blockId: string): string {
  return blockId.startsWith(UNFURL_BLOCK_PREFIX) ? blockId.slice(UNFURL_BLOCK_PREFIX.length) : '';
}

export function registerUnfurlActions(app: App, deps: SlackDeps): void {
  app.action<BlockAction<StaticSelectAction>>({ type: 'block_actions', action_id: UNFURL_MOVE_ACTION }, async ({ ack, body, action, client }) => {
    await ack();
    const log = deps.log.child({ slack_action: UNFURL_MOVE_ACTION, slack_user: body.user.id });
    await runUnfurlAction(deps, body, cardIdOf(action.block_id), { kind: 'move', status: action.selected_option?.value ?? '' }, client, log);
  });
  app.action<BlockAction<ButtonAction>>({ type: 'block_actions', action_id: UNFURL_ASSIGN_ACTION }, async ({ ack, body, action, client }) => {
    await ack();
    const log = deps.log.child({ slack_action: UNFURL_ASSIGN_ACTION, slack_user: body.user.id });
    await runUnfurlAction(deps, body, cardIdOf(action.block_id), { kind: 'assign' }, client, log);
  });
}
