import type { AnyMiddlewareArgs, App, Middleware, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { cardCommand } from '../../commands/card.js';
import { milestoneCommand } from '../../commands/milestone.js';
import { snippetCommand } from '../../commands/snippet.js';
import { isTackConnect, tackCommand } from '../../commands/tack.js';
import { todoCommand, todoForm } from '../../commands/todo.js';
import { howToLinkMessage } from '../domain/slack-links.js';
import { slackCaller } from './caller.js';
import type { CommandContext, CommandForm, CommandHandler, SlackReply } from './command-context.js';
import { connectReply } from './connect.js';
import type { SlackDeps } from './deps.js';
import { errorReply } from './replies.js';
import { checkFormCaller, openTodoForm } from './todo-modal.js';
import { messageView, unescapeText } from './views/blocks.js';
import { WorkQueue } from './work-queue.js';

/** The slash commands `manifest.yml` declares, each with its module in `commands/`. */
export const COMMAND_HANDLERS: Readonly<Record<string, CommandHandler>> = {
  '/tack': tackCommand,
  '/milestone': milestoneCommand,
  '/todo': todoCommand,
  '/card': cardCommand,
  '/snippet': snippetCommand,
};

/** The commands whose text may ask for a form, opened before anything else (see CommandForm). */
export const COMMAND_FORMS: Readonly<Record<string, CommandForm>> = {
  '/todo': todoForm,
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
    // Slack sends what was typed with &, < and > escaped: the handlers read it as typed.
    const text = unescapeText(command.text ?? '');
    // How one links: answered without a member, and without linking by e-mail first.
    if (command.command === '/tack' && isTackConnect(text)) return await connectReply(deps, command.user_id, command.user_name, log);
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
    };
    return await handler(text, ctx);
  } catch (err) {
    return errorReply(err, log);
  }
}

// Commands running after their ack at once, and queued behind them: ~30 s of work on the bench.
const COMMANDS_AT_ONCE = 4;
const COMMANDS_WAITING = 1_000;

/** The queue commands run in after their ack (see `registerCommands`). */
export function commandQueue(): WorkQueue {
  return new WorkQueue(COMMANDS_AT_ONCE, COMMANDS_WAITING);
}

const BUSY = messageView('tack is busy right now and did nothing; try again in a moment.');

function refuseBusy(log: Logger, command: SlashCommand, ack: (reply: SlackReply) => Promise<void>): Promise<void> {
  log.warn({ slack_command: command.command }, 'Slack commands queue full; refused in the ack');
  return ack(BUSY);
}

/**
 * Global Bolt middleware, ahead of the delivery record: with the command queue full, a
 * command is refused "busy" in its ack at once. Nothing acts on it, so it needs no record
 * (a retry of it would be a first attempt), and under a flood the refusals cost the
 * database nothing, leaving the delivery records to the commands that will run.
 */
export function refuseCommandsWhenBusy(queue: WorkQueue, log: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    if ('command' in args && queue.full) return refuseBusy(log, args.command, args.ack);
    await args.next();
  };
}

/**
 * Acks at once (empty: Slack shows nothing yet), then answers through `response_url`, a few
 * commands at a time (`queue`), so a flood of commands never delays the next one's ack.
 * With the queue full, the ack itself says so and nothing is done (here too, for one that
 * filled while its delivery was recorded). `poster` is the client new messages are posted
 * with (no retries; see `webClientOptions`).
 */
export function registerCommands(app: App, deps: SlackDeps, poster: WebClient, queue: WorkQueue): void {
  const names = Object.keys(COMMAND_HANDLERS).map((n) => n.slice(1));
  app.command(new RegExp(`^/(${names.join('|')})$`), async ({ command, ack, respond, client }) => {
    if (queue.full) return refuseBusy(deps.log, command, ack);
    await ack();
    const form = COMMAND_FORMS[command.command]?.(unescapeText(command.text ?? ''), command.response_url);
    if (form) {
      // Opened now, not after the queue: the trigger_id lives 3 seconds.
      const log = deps.log.child({ slack_command: command.command, slack_user: command.user_id });
      const at = await openTodoForm(client, command.trigger_id, form, respond, log);
      if (at) await queue.run(() => checkFormCaller(deps, client, command.user_id, at, log).catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not look up who opened the form')));
      return;
    }
    await queue.run(async () => {
      const reply = await runCommand(deps, command, client, poster);
      if (reply) await respond(reply);
    });
  });
}
