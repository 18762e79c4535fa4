import type { App, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { cardCommand } from '../../commands/card.js';
import { milestoneCommand } from '../../commands/milestone.js';
import { snippetCommand } from '../../commands/snippet.js';
import { tackCommand } from '../../commands/tack.js';
import { todoCommand } from '../../commands/todo.js';
import { howToLinkMessage } from '../domain/slack-links.js';
import { slackCaller } from './caller.js';
import type { CommandContext, CommandHandler, SlackReply } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { errorReply } from './replies.js';
import { messageView } from './views/blocks.js';
import { WorkQueue } from './work-queue.js';

/** The slash commands `manifest.yml` declares, each with its module in `commands/`. */
export const COMMAND_HANDLERS: Readonly<Record<string, CommandHandler>> = {
  '/tack': tackCommand,
  '/milestone': milestoneCommand,
  '/todo': todoCommand,
  '/card': cardCommand,
  '/snippet': snippetCommand,
};

/**
 * Everything after the ack: find (or link) the member, run the handler as them, and map any
 * error to an ephemeral reply. Never throws. Null: the handler answered otherwise (a modal).
 */
export async function runCommand(deps: SlackDeps, command: SlashCommand, client: WebClient, poster: WebClient): Promise<SlackReply | null> {
  const log = deps.log.child({ slack_command: command.command, slack_user: command.user_id });
  try {
    const handler = COMMAND_HANDLERS[command.command];
    if (!handler) return messageView(`tack does not know ${command.command}.`);
    const caller = await slackCaller(deps, client, command.user_id, log);
    if (!caller) return messageView(howToLinkMessage(command.user_id));
    const ctx: CommandContext = {
      ...caller,
      channelId: command.channel_id,
      now: deps.runtime.clock(),
      reminderHour: deps.config.reminderHour,
      log,
      responseUrl: command.response_url,
      async postAsBot(message) {
        await poster.chat.postMessage({ channel: command.channel_id, text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) });
      },
      async openModal(view) {
        await client.views.open({ trigger_id: command.trigger_id, view });
      },
    };
    return await handler(command.text ?? '', ctx);
  } catch (err) {
    return errorReply(err, log);
  }
}

// Commands running after their ack at once, and queued behind them: ~30 s of work on the bench.
const COMMANDS_AT_ONCE = 4;
const COMMANDS_WAITING = 1_000;

/**
 * Acks at once (empty: Slack shows nothing yet), then answers through `response_url`, a few
 * commands at a time (`WorkQueue`), so a flood of commands never delays the next one's ack.
 * With the queue full, the ack itself says so and nothing is done. `poster` is the client new
 * messages are posted with (no retries; see `webClientOptions`).
 */
export function registerCommands(app: App, deps: SlackDeps, poster: WebClient): void {
  const names = Object.keys(COMMAND_HANDLERS).map((n) => n.slice(1));
  const queue = new WorkQueue(COMMANDS_AT_ONCE, COMMANDS_WAITING);
  app.command(new RegExp(`^/(${names.join('|')})$`), async ({ command, ack, respond, client }) => {
    if (queue.full) {
      deps.log.warn({ slack_command: command.command }, 'Slack commands queue full; refused in the ack');
      await ack(BUSY);
      return;
    }
    await ack();
    await queue.run(async () => {
      const reply = await runCommand(deps, command, client, poster);
      if (reply) await respond(reply);
    });
  });
}

const BUSY = messageView('tack is busy right now and did nothing; try again in a moment.');
